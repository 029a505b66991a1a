//! `--federation`: Boxoffice as an Apollo Federation v2 subgraph, composed under Apollo Gateway
//! (npm, `tests/federation`) with a loyalty subgraph written in the test; a query crossing both
//! resolves Boxoffice's orders through `_entities` in one `$in`, and only for their channel.

use boxoffice::config::Limits;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::round_trips::names;
use crate::sale::{sale_on, Sale};

const SERVICE: &str = "{ _service { sdl } }";

/// A sale on a gateway serving the federated schema, with three of maoyan's orders.
async fn federated_sale() -> (Sale, Vec<String>) {
    let app =
        TestApp::spawn_configured(Limits::default(), |state| state.with_federation(true)).await;
    let sale = sale_on(app, &["SSSSSS", "SSS_SSS", "CCCC"]).await;
    let mut orders = Vec::new();
    for seats in [&["A1"][..], &["A2", "A3"], &["A4", "A5", "A6"]] {
        let hold = sale.hold_id(&sale.maoyan, seats).await;
        let confirmed = sale.confirm(&sale.maoyan, &hold).await;
        orders.push(
            confirmed.data()["confirmHold"]["id"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    (sale, orders)
}

/// Runs `node compose.mjs` with the loyalty points of `orders` (100, 200, 300) and `queries`;
/// returns the gateway's answers.
async fn compose(sale: &Sale, orders: &[String], queries: Value) -> Vec<Value> {
    let rewards: Vec<Value> = orders
        .iter()
        .zip([100, 200, 300])
        .map(|(order, points)| json!({ "order": order, "points": points }))
        .collect();
    let args = [
        sale.app.url("/graphql"),
        Value::from(rewards).to_string(),
        queries.to_string(),
    ];
    let packages = ["@apollo/gateway", "@apollo/server", "@apollo/subgraph"];
    let summary = crate::helpers::node_summary("federation", &packages, "compose.mjs", &args).await;
    summary["answers"].as_array().unwrap().clone()
}

fn bearer(key: &str) -> String {
    format!("Bearer {key}")
}

#[tokio::test]
async fn a_query_across_both_subgraphs_resolves_orders_in_one_in_and_only_for_their_channel() {
    let (sale, orders) = federated_sale().await;
    // Loyalty lists the rewards; Boxoffice resolves their orders, all three in one `find`.
    let rewards = "{ rewards { points order { id status total { amount } seats { label } } } }";
    sale.app.store.commands().start();
    let answers = compose(
        &sale,
        &orders,
        json!([{ "query": rewards, "authorization": bearer(&sale.maoyan) }]),
    )
    .await;
    let commands = sale.app.store.commands().take();
    let answer = &answers[0];
    assert!(answer.get("errors").is_none(), "{answer}");
    let got: Vec<(i64, &str, i64, usize)> = answer["data"]["rewards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|reward| {
            let order = &reward["order"];
            (
                reward["points"].as_i64().unwrap(),
                order["id"].as_str().unwrap(),
                order["total"]["amount"].as_i64().unwrap(),
                order["seats"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (300, orders[2].as_str(), 3 * 4000, 3),
            (200, orders[1].as_str(), 2 * 4000, 2),
            (100, orders[0].as_str(), 4000, 1),
        ]
    );
    let all = names(&commands);
    let orders_read: Vec<&str> = all
        .iter()
        .filter(|name| name.ends_with(" orders"))
        .map(String::as_str)
        .collect();
    assert_eq!(orders_read, ["find orders"], "{all:?}");

    // The other way: Boxoffice lists the channel's orders, loyalty adds their points.
    let mine = "{ orders(first: 10) { nodes { id points } } }";
    // Another channel, and no channel at all, get no order.
    let answers = compose(
        &sale,
        &orders,
        json!([
            { "query": mine, "authorization": bearer(&sale.maoyan) },
            { "query": rewards, "authorization": bearer(&sale.wechat) },
            { "query": rewards },
        ]),
    )
    .await;
    let mut points: Vec<(String, i64)> = answers[0]["data"]["orders"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["id"].as_str().unwrap().to_owned(),
                o["points"].as_i64().unwrap(),
            )
        })
        .collect();
    points.sort();
    let mut expected: Vec<(String, i64)> = orders.iter().cloned().zip([100, 200, 300]).collect();
    expected.sort();
    assert_eq!(points, expected);
    for (answer, code) in [(&answers[1], "NOT_FOUND"), (&answers[2], "UNAUTHENTICATED")] {
        let errors = answer["errors"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"));
        assert!(
            errors.iter().any(|e| e["extensions"]["code"] == code),
            "{code}: {answer}"
        );
        assert!(answer["data"].is_null(), "{answer}");
    }
}

#[tokio::test]
async fn only_federation_serves_the_subgraph_fields_and_its_sdl_keys_the_four_entities() {
    let (sale, orders) = federated_sale().await;
    let sdl = sale.app.graphql(SERVICE, json!({})).await;
    let sdl = sdl.data()["_service"]["sdl"].as_str().unwrap().to_owned();
    assert_eq!(
        sdl,
        boxoffice::schema::federation_sdl(),
        "schema.federation.graphql"
    );
    for entity in ["Cinema", "Movie", "Showtime", "Order"] {
        let keyed = sdl.lines().any(|line| {
            line.starts_with(&format!("type {entity} ")) && line.contains("@key(fields: \"id\")")
        });
        assert!(keyed, "{entity}:\n{sdl}");
    }
    // `_entities` straight from a client: an order is its channel's only.
    let entities =
        "query ($representations: [_Any!]!) { _entities(representations: $representations) {
        ... on Order { id status } ... on Showtime { id startsAt } } }";
    let representations = json!({ "representations": [
        { "__typename": "Order", "id": orders[0] },
        { "__typename": "Showtime", "id": sale.showtime },
    ] });
    let mine = sale
        .app
        .graphql_as(&sale.maoyan, entities, representations.clone())
        .await;
    assert_eq!(mine.data()["_entities"][0]["status"], "CONFIRMED");
    assert_eq!(mine.data()["_entities"][1]["id"], sale.showtime.as_str());
    let theirs = sale
        .app
        .graphql_as(&sale.wechat, entities, representations)
        .await;
    assert_eq!(theirs.error_code(), "NOT_FOUND");
    // Without --federation the fields do not exist.
    let plain = TestApp::spawn().await;
    let refused = plain.graphql(SERVICE, json!({})).await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert!(
        !boxoffice::schema::sdl().contains("_service"),
        "schema.graphql has no federation fields"
    );
}

#[tokio::test]
async fn an_entities_call_over_the_cap_is_refused_before_anything_is_read() {
    use boxoffice::graphql::MAX_REPRESENTATIONS;
    let (sale, _) = federated_sale().await;
    let by_variable =
        "query ($representations: [_Any!]!) { _entities(representations: $representations) {
        ... on Showtime { id seatMap { rows { label } } } } }";
    let showtimes = |n: usize| -> Vec<Value> {
        (0..n)
            .map(|_| json!({ "__typename": "Showtime", "id": sale.showtime }))
            .collect()
    };
    // At the cap: every one answered, in one read of showtimes.
    let at_cap = json!({ "representations": showtimes(MAX_REPRESENTATIONS) });
    let answered = sale.app.graphql(by_variable, at_cap).await;
    let entities = answered.data()["_entities"].as_array().unwrap();
    assert_eq!(entities.len(), MAX_REPRESENTATIONS);
    assert_eq!(
        entities[MAX_REPRESENTATIONS - 1]["id"],
        sale.showtime.as_str()
    );
    // One over: refused, nothing read. (A list written in the query is refused the same way,
    // unit-tested in `entity_limit`: the token limit refuses one that long first.)
    let over = json!({ "representations": showtimes(MAX_REPRESENTATIONS + 1) });
    sale.app.store.commands().start();
    let refused = sale.app.graphql(by_variable, over).await;
    assert_eq!(refused.error_code(), "QUERY_TOO_COMPLEX", "{:?}", refused.0);
    assert!(
        refused.error_message().contains("at most 500"),
        "{}",
        refused.error_message()
    );
    assert!(sale.app.store.commands().take().is_empty());
}
