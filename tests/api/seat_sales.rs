//! Which seats of a hall sell first (`Hall.seatSales`), and the cinemas an operator sees
//! (`operatorCinemas`): what the dashboard reads. The seat figures come from one aggregation
//! that examines the hall's showtimes of the window and nothing else; bad arguments and
//! callers without the hall's cinema in scope are refused before anything is read.

use boxoffice::store::CrashPoint;
use serde_json::{json, Value};

use crate::scheduling::{input, tomorrow_at, world, World, SCHEDULE};

const HOLD: &str = "mutation ($showtime: ID!, $seats: [String!]!) {
    holdSeats(input: { showtimeId: $showtime, seats: $seats }) { id } }";
const CONFIRM: &str = "mutation ($hold: ID!) { confirmHold(input: { holdId: $hold,
    customer: { name: \"李四\", contact: \"li@example.cn\" } }) { id } }";
const CANCEL: &str = "mutation ($id: ID!) { cancelOrder(orderId: $id) { id } }";
const CANCEL_SEATS: &str =
    "mutation ($id: ID!, $seats: [String!]) { cancelOrder(orderId: $id, seats: $seats) { id } }";
const SEAT_SALES: &str = "query ($hall: ID!, $days: Int, $before: DateTime, $showtimes: Int) {
    node(id: $hall) { ... on Hall { seatSales(days: $days, before: $before, showtimes: $showtimes) {
        showtimes seats { label showtimesSold soldShare medianSecondsToSale } } } } }";

/// Schedules a showtime of `hall` tomorrow at `hour`:00 as the chain; its id.
async fn schedule(w: &World, hall: &boxoffice::store::documents::HallDoc, hour: i64) -> String {
    let made = w
        .app
        .graphql_as(
            &w.chain,
            SCHEDULE,
            json!({ "input": input(hall, &w.movie, tomorrow_at(hour, 0)) }),
        )
        .await;
    made.data()["scheduleShowtime"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Sells `seats` of `showtime` on the world's channel; the order's id.
async fn sell(w: &World, showtime: &str, seats: &[&str]) -> Value {
    let held = w
        .app
        .graphql_as(
            &w.channel,
            HOLD,
            json!({ "showtime": showtime, "seats": seats }),
        )
        .await;
    let hold = held.data()["holdSeats"]["id"].clone();
    let confirmed = w
        .app
        .graphql_as(&w.channel, CONFIRM, json!({ "hold": hold }))
        .await;
    confirmed.data()["confirmHold"]["id"].clone()
}

fn hall_id(w: &World) -> String {
    crate::fixtures::global_id("Hall", w.hall.id)
}

/// Two showtimes of the hall and one of its other hall: the hall's A1 sold in both, A2 and
/// B2 in one; B1 sold then cancelled, B3 sold then refunded (B2 of its order kept), B4 in an
/// order the gateway died confirming (PENDING); the other hall's A1 sold.
async fn sold_world() -> World {
    let w = world().await;
    let (first, second) = (
        schedule(&w, &w.hall, 10).await,
        schedule(&w, &w.hall, 14).await,
    );
    let elsewhere = schedule(&w, &w.other_hall, 10).await;
    sell(&w, &first, &["A1", "A2"]).await;
    sell(&w, &second, &["A1"]).await;
    let cancelled = sell(&w, &second, &["B1"]).await;
    w.app
        .graphql_as(&w.channel, CANCEL, json!({ "id": cancelled }))
        .await
        .data();
    let refunded = sell(&w, &second, &["B2", "B3"]).await;
    w.app
        .graphql_as(
            &w.channel,
            CANCEL_SEATS,
            json!({ "id": refunded, "seats": ["B3"] }),
        )
        .await
        .data();
    let held = w
        .app
        .graphql_as(
            &w.channel,
            HOLD,
            json!({ "showtime": first, "seats": ["B4"] }),
        )
        .await;
    w.app
        .store
        .faults()
        .crash_next_at(CrashPoint::ConfirmBeforeSell);
    let crashed = w
        .app
        .graphql_as(
            &w.channel,
            CONFIRM,
            json!({ "hold": held.data()["holdSeats"]["id"] }),
        )
        .await;
    assert_eq!(
        crashed.error_code(),
        "INTERNAL",
        "the order is left PENDING"
    );
    sell(&w, &elsewhere, &["A1"]).await;
    w
}

fn window() -> Value {
    let before = (chrono::Utc::now() + chrono::Duration::days(2)).to_rfc3339();
    json!({ "before": before })
}

#[tokio::test]
async fn seats_that_sold_in_more_showtimes_come_first_from_one_indexed_aggregation() {
    let w = sold_world().await;
    let mut variables = window();
    variables["hall"] = json!(hall_id(&w));
    w.app.store.commands().start();
    let read = w.app.graphql_as(&w.chain, SEAT_SALES, variables).await;
    let sent = w.app.store.commands().take();
    let figures = &read.data()["node"]["seatSales"];
    println!("seatSales: {figures:#}");
    assert_eq!(
        figures["showtimes"], 2,
        "the hall's two, not the other hall's"
    );
    let seats = figures["seats"].as_array().unwrap();
    let mut shown: Vec<(&str, i64, f64)> = seats
        .iter()
        .map(|seat| {
            let label = seat["label"].as_str().unwrap();
            (
                label,
                seat["showtimesSold"].as_i64().unwrap(),
                seat["soldShare"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(shown[0], ("A1", 2, 1.0), "the seat that sold in both first");
    shown.sort_by_key(|seat| seat.0);
    assert_eq!(
        shown,
        [("A1", 2, 1.0), ("A2", 1, 0.5), ("B2", 1, 0.5)],
        "not B1 (its order cancelled), B3 (refunded) nor B4 (its order PENDING)"
    );
    for seat in seats {
        // Scheduled and sold within this test: well under a minute.
        let median = seat["medianSecondsToSale"].as_i64().unwrap();
        assert!((0..60).contains(&median), "{seat}");
    }

    let aggregates: Vec<_> = sent.iter().filter(|c| c.name == "aggregate").collect();
    assert_eq!(aggregates.len(), 1, "one aggregation: {sent:?}");
    let plan = w.app.store.plan_of(aggregates[0]).await.unwrap().unwrap();
    println!("seatSales: {plan:?}");
    assert_eq!(plan.collection, "showtimes");
    assert!(
        !plan.collection_scan && plan.docs_examined == 2,
        "examines the hall's two showtimes only: {} documents, plan {}",
        plan.docs_examined,
        plan.winning_plan
    );
}

#[tokio::test]
async fn bad_windows_are_refused_before_anything_is_read() {
    let w = world().await;
    for (days, showtimes) in [(0, 10), (8, 10), (7, 0), (7, 101)] {
        let mut variables = window();
        variables["hall"] = json!(hall_id(&w));
        variables["days"] = json!(days);
        variables["showtimes"] = json!(showtimes);
        w.app.store.commands().start();
        let read = w.app.graphql_as(&w.chain, SEAT_SALES, variables).await;
        let sent = w.app.store.commands().take();
        assert_eq!(
            read.error_code(),
            "BAD_USER_INPUT",
            "days {days}, showtimes {showtimes}"
        );
        // The caller's key is looked up and `node(id:)` loads the hall; the field reads
        // nothing more (no scope, no figures).
        let key_lookup = |c: &&boxoffice::store::SentCommand| {
            c.collection.as_deref() == Some("operators")
                && c.filter().is_some_and(|f| f.contains_key("apiKeyHash"))
        };
        let reads: Vec<_> = (sent.iter())
            .filter(|c| c.collection.as_deref() != Some("theaters") && !key_lookup(c))
            .collect();
        assert!(reads.is_empty(), "nothing read: {reads:?}");
    }
}

#[tokio::test]
async fn only_an_operator_whose_scope_holds_the_cinema_reads_its_seat_sales() {
    let w = sold_world().await;
    let other = w.app.operator_key("bona", Some(&[])).await;
    let mut variables = window();
    variables["hall"] = json!(hall_id(&w));
    for (key, code) in [
        (None, "UNAUTHENTICATED"),
        (Some(&w.channel), "FORBIDDEN"),
        (Some(&other), "FORBIDDEN"),
    ] {
        w.app.store.commands().start();
        let read = match key {
            Some(key) => w.app.graphql_as(key, SEAT_SALES, variables.clone()).await,
            None => w.app.graphql(SEAT_SALES, variables.clone()).await,
        };
        let sent = w.app.store.commands().take();
        assert_eq!(read.error_code(), code);
        assert!(
            sent.iter().all(|c| c.name != "aggregate"),
            "no figures read: {sent:?}"
        );
    }
    let platform = w.app.graphql_as(&w.platform, SEAT_SALES, variables).await;
    assert_eq!(platform.data()["node"]["seatSales"]["showtimes"], 2);
}

const OPERATOR_CINEMAS: &str = "{ operatorCinemas(first: 10) { edges { node { id name } } } }";

#[tokio::test]
async fn an_operator_lists_the_cinemas_of_its_scope_and_the_platform_every_cinema() {
    let w = world().await;
    let names = |answer: &Value| -> Vec<String> {
        crate::helpers::nodes(&answer["operatorCinemas"])
            .iter()
            .map(|cinema| cinema["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let chain = w
        .app
        .graphql_as(&w.chain, OPERATOR_CINEMAS, json!({}))
        .await;
    assert_eq!(names(chain.data()), ["万达影城"]);
    let other = w.app.operator_key("bona", Some(&[])).await;
    let none = w.app.graphql_as(&other, OPERATOR_CINEMAS, json!({})).await;
    assert_eq!(names(none.data()), Vec::<String>::new());
    let platform = w
        .app
        .graphql_as(&w.platform, OPERATOR_CINEMAS, json!({}))
        .await;
    // City, then name: 上海 sorts before 北京.
    assert_eq!(names(platform.data()), ["博纳影城", "万达影城"]);
    let channel = w
        .app
        .graphql_as(&w.channel, OPERATOR_CINEMAS, json!({}))
        .await;
    assert_eq!(channel.error_code(), "FORBIDDEN");
    let anonymous = w.app.graphql(OPERATOR_CINEMAS, json!({})).await;
    assert_eq!(anonymous.error_code(), "UNAUTHENTICATED");
}

const LENGTHS: &str = "query ($ids: [ID!]!) { waitingListLengths(showtimeIds: $ids) {
    showtimeId parties people } }";

#[tokio::test]
async fn waiting_list_lengths_come_from_one_indexed_read_in_the_order_asked() {
    use crate::waiting_list::{joined, standard_seats_held};
    let (sale, _) =
        standard_seats_held(boxoffice::config::BookingArgs::default().hold_policy()).await;
    joined(&sale, "c-1", 2, true).await;
    joined(&sale, "c-2", 3, false).await;
    let nobody = crate::fixtures::global_id("Showtime", [7u8; 12]);
    sale.app.store.commands().start();
    let read = sale
        .app
        .graphql(LENGTHS, json!({ "ids": [nobody, sale.showtime] }))
        .await;
    let sent = sale.app.store.commands().take();
    assert_eq!(
        read.data()["waitingListLengths"],
        json!([
            { "showtimeId": nobody, "parties": 0, "people": 0 },
            { "showtimeId": sale.showtime, "parties": 2, "people": 5 },
        ])
    );
    assert_eq!(sent.len(), 1, "one read: {sent:?}");
    let plan = sale.app.store.plan_of(&sent[0]).await.unwrap().unwrap();
    assert!(
        !plan.collection_scan && plan.docs_examined == 2,
        "examines the two waiting entries: {} documents, plan {}",
        plan.docs_examined,
        plan.winning_plan
    );

    let too_many: Vec<String> = (0..101).map(|_| sale.showtime.clone()).collect();
    sale.app.store.commands().start();
    let refused = sale.app.graphql(LENGTHS, json!({ "ids": too_many })).await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert!(sale.app.store.commands().take().is_empty(), "nothing read");
}
