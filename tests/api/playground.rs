//! The playground page, its assets, and its example operations.

use crate::helpers::{GqlResponse, TestApp};
use crate::live_client::LiveClient;

#[tokio::test]
async fn the_playground_and_its_assets_are_served_by_the_gateway() {
    let app = TestApp::spawn().await;
    let page = app.get("/").await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("/playground/vendor/graphiql.min.js"));
    for asset in [
        "graphiql.min.js",
        "graphiql.min.css",
        "react.production.min.js",
        "react-dom.production.min.js",
        "graphql-ws.min.js",
    ] {
        let response = app.get(&format!("/playground/vendor/{asset}")).await;
        assert_eq!(response.status(), 200, "{asset}");
        assert!(
            response.bytes().await.unwrap().len() > 1_000,
            "{asset} has content"
        );
    }
    assert_eq!(app.get("/playground/vendor/nope.js").await.status(), 404);
    assert_eq!(app.get("/health").await.status(), 200);
}

#[tokio::test]
async fn every_example_file_is_offered_by_the_playground() {
    let app = TestApp::spawn().await;
    let offered: Vec<serde_json::Value> = app
        .get("/playground/examples.json")
        .await
        .json()
        .await
        .unwrap();
    let mut offered: Vec<String> = offered
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/playground/examples");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".graphql").map(str::to_owned)
        })
        .collect();
    offered.sort();
    on_disk.sort();
    assert_eq!(offered, on_disk);
}

/// The demo catalogue `scripts/run` loads, then every example as the playground sends it.
#[tokio::test]
async fn every_example_answers_with_data_on_the_demo_catalogue() {
    let app = TestApp::spawn().await;
    boxoffice::demo::load(&app.store, &boxoffice::demo::DemoPlan::small(), false)
        .await
        .expect("load the demo catalogue");
    let examples: Vec<serde_json::Value> = app
        .get("/playground/examples.json")
        .await
        .json()
        .await
        .unwrap();
    assert!(examples.len() >= 15);
    let upcoming = app
        .graphql(
            "query ($now: DateTime) { showtimes(filter: { startsFrom: $now }, first: 2) { edges { node { id } } } }",
            serde_json::json!({ "now": chrono::Utc::now() + chrono::Duration::hours(1) }),
        )
        .await;
    // The second is the one `cancel-showtime` cancels: the others keep the first on sale.
    let to_cancel = upcoming.data()["showtimes"]["edges"][1]["node"]["id"].clone();
    let upcoming = upcoming.data()["showtimes"]["edges"][0]["node"]["id"].clone();
    assert_ne!(upcoming, to_cancel);
    let provinces = app
        .graphql(
            "{ regions(first: 50) { edges { node { id name } } } }",
            serde_json::json!({}),
        )
        .await;
    let beijing = crate::helpers::nodes(&provinces.data()["regions"])
        .into_iter()
        .find(|province| province["name"] == "北京市")
        .expect("北京市 is a province")["id"]
        .clone();
    // A district of 北京市, a cinema, a hall and a movie of the demo, for the operator examples.
    let district = app
        .graphql(
            "query ($id: ID) { regions(parent: $id, first: 1) { edges { node {
                children(first: 1) { edges { node { id } } } } } } }",
            serde_json::json!({ "id": beijing }),
        )
        .await;
    let district = district.data()["regions"]["edges"][0]["node"]["children"]["edges"][0]["node"]
        ["id"]
        .clone();
    let listed = app
        .graphql(
            "{ cinemas(first: 1) { edges { node { id halls(first: 1) { edges { node { id } } } } } }
               movies(first: 1) { edges { node { id } } } }",
            serde_json::json!({}),
        )
        .await;
    let cinema = listed.data()["cinemas"]["edges"][0]["node"].clone();
    let hall = cinema["halls"]["edges"][0]["node"]["id"].clone();
    let cinema = cinema["id"].clone();
    let movie = listed.data()["movies"]["edges"][0]["node"]["id"].clone();
    // Every demo cinema sells snacks and drinks (the seat picker offers them).
    let products = app
        .graphql(
            "query ($id: ID!) { node(id: $id) { ... on Cinema { products(first: 10) { edges { node { name stock onSale } } } } } }",
            serde_json::json!({ "id": cinema }),
        )
        .await;
    let products = crate::helpers::nodes(&products.data()["node"]["products"]);
    assert_eq!(products.len(), 3, "{products:?}");
    assert!(products.iter().all(|p| p["onSale"] == true));
    // 04:00 China time the day after tomorrow: demo halls are free from about 02:00 to 10:00.
    let free_night = (chrono::Utc::now() + chrono::Duration::hours(8))
        .date_naive()
        .checked_add_days(chrono::Days::new(2))
        .unwrap()
        .and_hms_opt(4, 0, 0)
        .unwrap()
        .and_utc()
        - chrono::Duration::hours(8);
    // The demo key the channel examples carry in their headers.
    let key_of = |example: &serde_json::Value| {
        let headers = example["headers"].as_str().filter(|h| !h.is_empty())?;
        let headers: serde_json::Value = serde_json::from_str(headers).unwrap();
        let bearer = headers["Authorization"].as_str().unwrap();
        Some(bearer.strip_prefix("Bearer ").unwrap().to_owned())
    };
    let maoyan = examples
        .iter()
        .filter_map(key_of)
        .find(|key| key.starts_with("bo_"))
        .expect("a channel example");
    let maoyan = maoyan.as_str();
    let platform = examples
        .iter()
        .filter_map(key_of)
        .find(|key| key.starts_with("bop_"))
        .expect("an operator example");
    // A fresh live hold of maoyan on the upcoming showtime, and a fresh order.
    let hold = || async {
        let held = app
            .graphql_as(maoyan, "mutation ($id: ID!) { holdSeats(input: { showtimeId: $id, best: { count: 1 } }) { id } }", serde_json::json!({ "id": upcoming }))
            .await;
        held.data()["holdSeats"]["id"].clone()
    };
    let order = || async {
        let confirmed = app
            .graphql_as(maoyan, "mutation ($id: ID!) { confirmHold(input: { holdId: $id, customer: { name: \"n\", contact: \"c\" } }) { id } }", serde_json::json!({ "id": hold().await }))
            .await;
        confirmed.data()["confirmHold"]["id"].clone()
    };
    let mut last_order = serde_json::Value::Null;
    for example in &examples {
        let name = example["name"].as_str().unwrap();
        let mut variables: serde_json::Value =
            serde_json::from_str(example["variables"].as_str().unwrap()).unwrap();
        // A placeholder asks the person to paste an id; paste one of the kind it names.
        for value in placeholders(&mut variables) {
            let placeholder = value.as_str().unwrap().to_owned();
            *value = if placeholder.starts_with("<paste the id of a showtime to cancel") {
                to_cancel.clone()
            } else if placeholder.starts_with("<paste the id of a showtime")
                && name.ends_with("block-seats")
            {
                // By then the examples above have held and sold a dozen of the best seats of
                // `upcoming`; in a small hall they reach D4 and E4, which block-seats names.
                // `to_cancel` has no holds until cancel-showtime, the example after these two.
                to_cancel.clone()
            } else if placeholder.starts_with("<paste the id of a showtime") {
                upcoming.clone()
            } else if placeholder.starts_with("<paste the id of a hold") {
                hold().await
            } else if placeholder.starts_with("<paste the id of an order") {
                last_order = order().await;
                last_order.clone()
            } else if placeholder.starts_with("<paste one of its seats") {
                let read = app
                    .graphql_as(
                        maoyan,
                        "query ($id: ID!) { order(id: $id) { seats { label } } }",
                        serde_json::json!({ "id": last_order }),
                    )
                    .await;
                read.data()["order"]["seats"][0]["label"].clone()
            } else if placeholder.starts_with("<paste the id of a region of level DISTRICT") {
                district.clone()
            } else if placeholder.starts_with("<paste the id of a cinema") {
                cinema.clone()
            } else if placeholder.starts_with("<paste the id of a hall") {
                hall.clone()
            } else if placeholder.starts_with("<paste the id of a movie") {
                movie.clone()
            } else if placeholder.starts_with("<paste the id of a region") {
                beijing.clone()
            } else if placeholder.starts_with("<paste the code of a door key") {
                let id = boxoffice::domain::global_id::cinema_id(cinema.as_str().unwrap());
                let made = boxoffice::catalogue::create_door_key(
                    &app.store,
                    "platform",
                    id.unwrap(),
                    "Side",
                )
                .await
                .expect("a door key");
                serde_json::json!(made.record.code)
            } else if placeholder.starts_with("<paste a ticket code") {
                serde_json::json!(ticket_code(&app, maoyan, &upcoming).await)
            } else if placeholder.starts_with("<paste a voucher code") {
                let made = app
                    .graphql_as(
                        &platform,
                        "mutation { createVoucherBatch(input: { name: \"t\", count: 1, effect: { percentOff: 15 }, maxRedemptions: 5 }) { codes } }",
                        serde_json::json!({}),
                    )
                    .await;
                made.data()["createVoucherBatch"]["codes"][0].clone()
            } else if placeholder.starts_with("<paste the id of a product") {
                product_at(&app, &platform, &upcoming).await
            } else if placeholder.starts_with("<paste a pickup code") {
                let product = product_at(&app, &platform, &upcoming).await;
                serde_json::json!(pickup_code(&app, maoyan, &upcoming, &product).await)
            } else if placeholder.starts_with("<paste a start time") {
                serde_json::json!(free_night.to_rfc3339())
            } else {
                panic!("{name}: unknown placeholder {placeholder}")
            };
        }
        let query = example["query"].as_str().unwrap();
        let subscription = query
            .lines()
            .find(|line| !line.starts_with('#'))
            .is_some_and(|line| line.starts_with("subscription"));
        // A door staff key is made for the example that needs one.
        let key = match key_of(example) {
            Some(key) if key.starts_with("<paste") => Some(door_key(&app, &upcoming).await),
            key => key,
        };
        let response = match key {
            // As GraphiQL sends it: over WebSocket; the first event must carry data.
            None if subscription => {
                let mut client = LiveClient::connect(&app, None).await;
                client.subscribe("example", query, variables).await;
                let message = client.recv().await;
                assert_eq!(message["type"], "next", "{name}: {message}");
                GqlResponse(message["payload"].clone())
            }
            Some(key) => app.graphql_as(&key, query, variables).await,
            None => app.graphql(query, variables).await,
        };
        let data = response.data();
        // Every top-level field answered, and lists are not empty.
        for (field, value) in data.as_object().unwrap() {
            assert!(!value.is_null(), "{name}: {field} is null");
            // A channel's own lists may be empty on a fresh catalogue (no orders, no holds yet).
            if let Some(edges) = value
                .get("edges")
                .filter(|_| !["orders", "holds", "events"].contains(&field.as_str()))
            {
                assert!(
                    !edges.as_array().unwrap().is_empty(),
                    "{name}: {field} has no edges"
                );
            }
        }
    }
}

#[tokio::test]
async fn start_up_can_create_the_indexes_again() {
    let app = TestApp::spawn().await;
    // TestApp::spawn created them once; a restart creates them again over existing ones.
    app.store.ensure_indexes().await.expect("second start-up");
    app.store.ensure_indexes().await.expect("third start-up");
}

/// Every placeholder among `variables`, at any depth (an operator's example nests its ids in
/// `input`).
fn placeholders(variables: &mut serde_json::Value) -> Vec<&mut serde_json::Value> {
    match variables {
        serde_json::Value::Object(fields) => fields.values_mut().flat_map(placeholders).collect(),
        serde_json::Value::Array(items) => items.iter_mut().flat_map(placeholders).collect(),
        value if value.as_str().is_some_and(|v| v.starts_with("<paste")) => vec![value],
        _ => Vec::new(),
    }
}

/// A new product of `showtime`'s cinema, made by the platform operator (key `platform`).
async fn product_at(
    app: &TestApp,
    platform: &str,
    showtime: &serde_json::Value,
) -> serde_json::Value {
    let read = app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { cinema { id } } }",
            serde_json::json!({ "id": showtime }),
        )
        .await;
    let cinema = read.data()["showtime"]["cinema"]["id"].clone();
    let made = app
        .graphql_as(platform, "mutation ($cinema: ID!) { createProduct(input: { cinemaId: $cinema, name: \"可乐\", price: 1200, stock: 50 }) { id } }", serde_json::json!({ "cinema": cinema }))
        .await;
    made.data()["createProduct"]["id"].clone()
}

/// The pickup code of a fresh order of `showtime` with `product`, the showtime moved to start
/// in 30 minutes (inside the window the counter collects in).
async fn pickup_code(
    app: &TestApp,
    channel: &str,
    showtime: &serde_json::Value,
    product: &serde_json::Value,
) -> String {
    let id = boxoffice::domain::global_id::showtime_id(showtime.as_str().unwrap()).unwrap();
    crate::admissions::move_start(&crate::helpers::mongodb_uri(), app, id, 30).await;
    let held = app
        .graphql_as(channel, "mutation ($id: ID!, $product: ID!) { holdSeats(input: { showtimeId: $id, best: { count: 1 }, items: [{ productId: $product, quantity: 2 }] }) { id } }", serde_json::json!({ "id": showtime, "product": product }))
        .await;
    let confirmed = app
        .graphql_as(channel, "mutation ($id: ID!) { confirmHold(input: { holdId: $id, customer: { name: \"n\", contact: \"c\" } }) { pickupCode } }", serde_json::json!({ "id": held.data()["holdSeats"]["id"] }))
        .await;
    confirmed.data()["confirmHold"]["pickupCode"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A ticket code of a fresh order of `showtime`, which is moved to start in 30 minutes
/// (inside the admission window): the last example that sells on it has run.
async fn ticket_code(app: &TestApp, channel: &str, showtime: &serde_json::Value) -> String {
    let id = boxoffice::domain::global_id::showtime_id(showtime.as_str().unwrap()).unwrap();
    crate::admissions::move_start(&crate::helpers::mongodb_uri(), app, id, 30).await;
    let held = app
        .graphql_as(channel, "mutation ($id: ID!) { holdSeats(input: { showtimeId: $id, best: { count: 1 } }) { id } }", serde_json::json!({ "id": showtime }))
        .await;
    let confirmed = app
        .graphql_as(channel, "mutation ($id: ID!) { confirmHold(input: { holdId: $id, customer: { name: \"n\", contact: \"c\" } }) { tickets { code } } }", serde_json::json!({ "id": held.data()["holdSeats"]["id"] }))
        .await;
    confirmed.data()["confirmHold"]["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A door staff key of `showtime`'s cinema, made by the demo platform operator.
async fn door_key(app: &TestApp, showtime: &serde_json::Value) -> String {
    let read = app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { cinema { id } } }",
            serde_json::json!({ "id": showtime }),
        )
        .await;
    let cinema = read.data()["showtime"]["cinema"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let cinema = boxoffice::domain::global_id::cinema_id(&cinema).unwrap();
    let made = boxoffice::catalogue::create_door_key(&app.store, "platform", cinema, "North")
        .await
        .expect("a door key");
    made.key.as_str().to_owned()
}
