//! MongoDB round trips per request depend on the depth of the query, never on list length:
//! extended-reference fields cost nothing, other fields of referenced objects cost one batched
//! `find` per collection. Each booking mutation costs a fixed set of commands.

use boxoffice::store::SentCommand;
use serde_json::{json, Value};

use crate::fixtures::{order_global_id, Catalogue};
use crate::helpers::{nodes, TestApp};
use crate::orders::{CANCEL, CONFIRM};
use crate::sale::{sale, Sale};

/// `n` showtimes spread over `n` cinemas, `n` halls and `n` movies, so every reference differs.
async fn app_with_showtimes(n: usize) -> TestApp {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    for i in 0..n {
        let cinema = catalogue.cinema(&format!("影城{i}"), "上海", 31.2, 121.4);
        let hall = catalogue.hall(&cinema, "1号厅", &["SSSS", "SS_SS"]);
        let movie = catalogue.movie(&format!("电影{i}"), &["剧情"]);
        catalogue.showtime(&cinema, &hall, &movie, 1 + i as i64, &[("maoyan", 4000)]);
    }
    catalogue.insert(&app).await;
    app
}

/// Runs `query` and returns the commands it sent.
async fn commands_of(app: &TestApp, query: &str) -> Vec<SentCommand> {
    app.store.commands().start();
    let response = app.graphql(query, json!({})).await;
    let commands = app.store.commands().take();
    let showtimes = nodes(&response.data()["showtimes"]);
    assert!(!showtimes.is_empty());
    commands
}

/// The commands' names and collections, sorted.
pub(crate) fn names(commands: &[SentCommand]) -> Vec<String> {
    let mut names: Vec<String> = commands
        .iter()
        .map(|c| format!("{} {}", c.name, c.collection.as_deref().unwrap_or("")))
        .collect();
    names.sort();
    names
}

const REFERENCES_ONLY: &str = "{ showtimes(first: 50) { edges { node {
    id startsAt price(channel: \"maoyan\") { amount }
    cinema { name city } movie { title runtimeMinutes } hall { name format } } } } }";

const WITH_LOADED_FIELDS: &str = "{ showtimes(first: 50) { edges { node {
    id cinema { name location { latitude longitude } }
    movie { title details { plot } }
    seatMap { counts { available } } } } } }";

#[tokio::test]
async fn extended_reference_fields_cost_one_query_for_a_page_of_50() {
    let app = app_with_showtimes(50).await;
    let commands = commands_of(&app, REFERENCES_ONLY).await;
    assert_eq!(names(&commands), ["find showtimes"]);
}

#[tokio::test]
async fn referenced_fields_cost_one_query_per_collection_whatever_the_page_size() {
    let expected = [
        "find cinemas",
        "find movie_details",
        "find seat_inventory",
        "find showtimes",
    ];
    for n in [5, 50] {
        let app = app_with_showtimes(n).await;
        let commands = commands_of(&app, WITH_LOADED_FIELDS).await;
        assert_eq!(names(&commands), expected, "with {n} showtimes");
    }
}

/// 16 requests at once on a multi-thread runtime, each a page of 50 with three levels of
/// loaded fields: still one query per collection per request. A batch sent before its level
/// had every key (split across polls, workers or a timer) would show as more.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sixteen_requests_at_once_each_cost_one_query_per_collection() {
    let app = app_with_showtimes(50).await;
    app.store.commands().start();
    let requests = (0..16).map(|_| app.graphql(WITH_LOADED_FIELDS, json!({})));
    for response in futures::future::join_all(requests).await {
        assert_eq!(nodes(&response.data()["showtimes"]).len(), 50);
    }
    let commands = app.store.commands().take();
    let mut expected = Vec::new();
    for collection in ["cinemas", "movie_details", "seat_inventory", "showtimes"] {
        expected.extend(std::iter::repeat_n(format!("find {collection}"), 16));
    }
    assert_eq!(names(&commands), expected);
}

/// Runs a mutation as `key` and returns the commands it sent, sorted.
async fn booking_commands(sale: &Sale, key: &str, query: &str, variables: Value) -> Vec<String> {
    sale.app.store.commands().start();
    let response = sale.app.graphql_as(key, query, variables).await;
    let commands = sale.app.store.commands().take();
    response.data();
    names(&commands)
}

/// Every booking mutation costs a fixed set of commands: its reads (run side by side where
/// they do not depend on each other), one conditional update of the seats, and the order's
/// writes. The caller's API key is looked up once, then remembered.
#[tokio::test]
async fn each_booking_mutation_costs_a_fixed_set_of_commands() {
    let sale = sale().await;
    let first = booking_commands(&sale, &sale.maoyan, "{ __typename }", json!({})).await;
    assert_eq!(first, ["find channels"]);

    let hold =
        "mutation ($id: ID!) { holdSeats(input: { showtimeId: $id, best: { count: 2 } }) { id } }";
    let held = booking_commands(&sale, &sale.maoyan, hold, json!({ "id": sale.showtime })).await;
    assert_eq!(
        held,
        [
            "find seat_inventory",
            "find showtimes",
            "findAndModify seat_inventory",
        ]
    );

    let hold_id = sale.hold_id(&sale.maoyan, &["B1", "B2"]).await;
    let confirmed =
        booking_commands(&sale, &sale.maoyan, CONFIRM, json!({ "hold": hold_id })).await;
    assert_eq!(
        confirmed,
        [
            "find seat_inventory",
            "find showtimes",
            "findAndModify seat_inventory",
            "insert orders",
            "update orders",
        ]
    );

    let order = sale.inventory().await.seats["B"][0]
        .as_ref()
        .unwrap()
        .order
        .unwrap();
    let order = order_global_id(sale.showtime_id, order);
    let cancelled = booking_commands(&sale, &sale.maoyan, CANCEL, json!({ "id": order })).await;
    // The order and its cinema's refund policy; the refund recorded (the order CANCELLING),
    // the seats back, the refund's audit entry, the order CANCELLED.
    assert_eq!(
        cancelled,
        [
            "find cinemas",
            "find orders",
            "findAndModify seat_inventory",
            "insert audit_log",
            "update orders",
            "update orders",
        ]
    );

    let hold_id = sale.hold_id(&sale.maoyan, &["B5"]).await;
    let release = "mutation ($id: ID!) { releaseHold(holdId: $id) }";
    let released = booking_commands(&sale, &sale.maoyan, release, json!({ "id": hold_id })).await;
    assert_eq!(
        released,
        ["find seat_inventory", "findAndModify seat_inventory"]
    );

    // An idempotency key adds its record's insert and the stored answer.
    let keyed = "mutation ($id: ID!) { holdSeats(input: { showtimeId: $id, seats: [\"C1\", \"C2\"], idempotencyKey: \"k\" }) { id } }";
    let held = booking_commands(&sale, &sale.maoyan, keyed, json!({ "id": sale.showtime })).await;
    assert_eq!(
        held,
        [
            "find seat_inventory",
            "find showtimes",
            "findAndModify seat_inventory",
            "insert idempotency_keys",
            "update idempotency_keys",
        ]
    );
    // A keyed release also drops, once its answer is stored, the note it left for a retry.
    let hold_id = sale.hold_id(&sale.maoyan, &["B6"]).await;
    let release = "mutation ($id: ID!) { releaseHold(holdId: $id, idempotencyKey: \"r\") }";
    let released = booking_commands(&sale, &sale.maoyan, release, json!({ "id": hold_id })).await;
    assert_eq!(
        released,
        [
            "find seat_inventory",
            "findAndModify seat_inventory",
            "insert idempotency_keys",
            "update idempotency_keys",
            "update seat_inventory",
        ]
    );
    assert!(sale.inventory().await.released_holds.is_empty());
}

/// Every write of a booking waits for a majority of the replica set and the journal, and every
/// read of one reads what a majority has (the defaults; production runs on a replica set).
#[tokio::test]
async fn booking_writes_wait_for_a_majority_and_the_journal_and_reads_read_majority() {
    let sale = sale().await;
    sale.app.store.commands().start();
    let hold = sale.hold_id(&sale.maoyan, &["A1", "A2"]).await;
    let confirm = "mutation ($hold: ID!) { confirmHold(input: { holdId: $hold,
        customer: { name: \"张三\", contact: \"13800000000\" }, idempotencyKey: \"c\" }) { id } }";
    let order = sale
        .app
        .graphql_as(&sale.maoyan, confirm, json!({ "hold": hold }))
        .await;
    order.data();
    let commands = sale.app.store.commands().take();
    let writes: Vec<_> = commands
        .iter()
        .filter(|c| ["insert", "update", "delete", "findAndModify"].contains(&c.name.as_str()))
        .collect();
    let reads: Vec<_> = commands.iter().filter(|c| c.name == "find").collect();
    assert!(writes.len() >= 4 && reads.len() >= 3, "{commands:?}");
    for write in writes {
        let concern = write.write_concern.as_deref().unwrap_or_default();
        assert!(
            concern.contains("\"w\": \"majority\"") && concern.contains("\"j\": true"),
            "{write:?}"
        );
    }
    for read in reads {
        let concern = read.read_concern.as_deref().unwrap_or_default();
        assert!(concern.contains("\"level\": \"majority\""), "{read:?}");
    }
}

/// `serve` opens every collection before it takes requests: one `find` of one document id
/// each, one after another (see `store/warm_up.rs`).
#[tokio::test]
async fn warming_up_reads_one_document_of_every_collection() {
    let app = app_with_showtimes(3).await;
    app.store.commands().start();
    let took = app.store.warm_up().await.expect("warm up");
    let commands = app.store.commands().take();
    let opened: Vec<&str> = took.iter().map(|(collection, _)| *collection).collect();
    assert_eq!(opened, boxoffice::store::names::ALL);
    let sent: Vec<(String, Option<String>)> = commands
        .iter()
        .map(|c| (c.name.clone(), c.collection.clone()))
        .collect();
    let expected: Vec<(String, Option<String>)> = boxoffice::store::names::ALL
        .iter()
        .map(|collection| ("find".to_owned(), Some(collection.to_string())))
        .collect();
    assert_eq!(sent, expected, "one find per collection, in order");
    let showtimes_reply = |commands: &[SentCommand]| {
        let find = commands
            .iter()
            .find(|c| c.collection.as_deref() == Some("showtimes"));
        find.and_then(|c| c.reply_bytes).expect("a reply")
    };
    let opened = showtimes_reply(&commands);
    // A whole showtime, read by a page of one showtime that asks for a price.
    let page =
        "{ showtimes(first: 1) { edges { node { price(channel: \"maoyan\") { amount } } } } }";
    let whole = commands_of(&app, page).await;
    let whole = showtimes_reply(&whole);
    // Its references, times and prices are over 200 bytes; an `_id` is 17.
    assert!(
        opened + 200 < whole,
        "{opened} B opening, {whole} B a whole showtime"
    );
}
