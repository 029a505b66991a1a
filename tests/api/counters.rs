//! The approximate counters (`counters::Tally`): every page view counted once, by one gateway
//! or two racing; a flush whose answer is lost counted once, one a stopped database does not
//! answer kept and sent again; old flush marks pruned without touching the counts.

use std::time::{Duration, Instant};

use boxoffice::counters::{Counted, Tally, FLUSH_EVERY};
use boxoffice::domain::ids::ShowtimeId;
use boxoffice::store::{CrashPoint, DatabaseOptions, Store};
use futures::future::join_all;
use serde_json::json;

use crate::helpers::{fresh_database_name, TestApp};
use crate::processes::OwnDatabase;

const PAGE: &str = "query ($id: ID!) { showtime(id: $id) { id } }";
/// Read through `node`, which is not a page view.
const VIEWS: &str = "query ($id: ID!) { node(id: $id) { ... on Showtime { viewCount } } }";

async fn views(app: &TestApp, showtime: &str) -> i64 {
    let read = app.graphql(VIEWS, json!({ "id": showtime })).await;
    read.data()["node"]["viewCount"].as_i64().unwrap()
}

/// Waits until the showtime shows `expected` views, which it must within two flushes, and
/// never more on the way; then checks a third flush adds nothing.
async fn views_reach(app: &TestApp, showtime: &str, expected: i64) {
    let deadline = Instant::now() + 2 * FLUSH_EVERY + Duration::from_millis(500);
    loop {
        let now = views(app, showtime).await;
        assert!((0..=expected).contains(&now), "{now} of {expected}");
        if now == expected {
            break;
        }
        assert!(Instant::now() < deadline, "{now} views after two flushes");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(FLUSH_EVERY + Duration::from_millis(200)).await;
    assert_eq!(views(app, showtime).await, expected);
}

/// What `counted` says in the database now.
async fn stored(store: &Store, counted: Counted) -> i64 {
    let found = boxoffice::counters::counts(store, &[counted])
        .await
        .unwrap();
    found.get(&counted).copied().unwrap_or(0)
}

/// The gateways' flush marks on a counter's document.
async fn flush_marks(uri: &str, store: &Store, counted: ShowtimeId) -> bson::Document {
    let client = mongodb::Client::with_uri_str(uri).await.unwrap();
    let tallies = client
        .database(store.database_name())
        .collection::<bson::Document>("tallies");
    let id = bson::oid::ObjectId::from_bytes(counted.bytes());
    let found = tallies.find_one(bson::doc! { "_id": id }).await.unwrap();
    found.unwrap().get_document("flushes").unwrap().clone()
}

#[tokio::test]
async fn sixty_four_concurrent_page_reads_are_sixty_four_views() {
    let sale = crate::sale::sale().await;
    let reads = (0..64).map(|_| sale.app.graphql(PAGE, json!({ "id": sale.showtime })));
    for read in join_all(reads).await {
        read.data();
    }
    views_reach(&sale.app, &sale.showtime, 64).await;
}

#[tokio::test]
async fn two_gateways_reading_one_page_count_every_view_once() {
    let sale = crate::sale::sale().await;
    let other = sale.app.another_gateway().await;
    let reads = (0..96).map(|i| {
        let app = if i % 2 == 0 { &sale.app } else { &other };
        app.graphql(PAGE, json!({ "id": sale.showtime }))
    });
    for read in join_all(reads).await {
        read.data();
    }
    views_reach(&sale.app, &sale.showtime, 96).await;
    let uri = crate::helpers::mongodb_uri();
    let marks = flush_marks(&uri, &sale.app.store, sale.showtime_id).await;
    assert_eq!(marks.len(), 2, "one mark per gateway");
}

#[tokio::test]
async fn a_flush_whose_answer_is_lost_is_sent_again_and_not_counted_again() {
    let sale = crate::sale::sale().await;
    let store = &sale.app.store;
    let counted = Counted::Views(sale.showtime_id);
    let tally = Tally::default();
    tally.add(counted, 5);
    store.faults().crash_next_at(CrashPoint::TallyAnswerLost);
    assert!(tally.flush(store).await.is_err());
    assert_eq!(tally.pending(counted), 5, "kept as unacknowledged");
    assert_eq!(stored(store, counted).await, 5, "the database took it");
    // Counted meanwhile: held back while the lost one is sent again.
    tally.add(counted, 2);
    assert_eq!(tally.flush(store).await.unwrap(), 1);
    assert_eq!(stored(store, counted).await, 5, "refused: taken already");
    assert_eq!(tally.pending(counted), 2);
    assert_eq!(tally.flush(store).await.unwrap(), 1);
    assert_eq!(stored(store, counted).await, 7);
    assert_eq!(tally.pending(counted), 0);
    assert_eq!(tally.flush(store).await.unwrap(), 0);
}

#[tokio::test]
async fn a_flush_a_stopped_database_does_not_answer_is_kept_and_counted_once() {
    let database = OwnDatabase::start();
    let options = DatabaseOptions {
        timeout: Duration::from_millis(500),
        ..Default::default()
    };
    let store = Store::connect_with(&database.uri(), &fresh_database_name(), &options)
        .await
        .unwrap();
    store.ensure_indexes().await.unwrap();
    let counted = Counted::Views(ShowtimeId([7; 12]));
    let tally = Tally::default();
    tally.add(counted, 4);
    tally.flush(&store).await.unwrap();
    // The next increment reaches a database that has stopped: unanswered, kept.
    tally.add(counted, 7);
    database.freeze();
    let refused = tally.flush(&store).await.unwrap_err();
    assert_eq!(refused.code(), boxoffice::error::ErrorCode::Unavailable);
    tally.add(counted, 3);
    database.thaw();
    // Sent again until acknowledged (if the stopped server took it after all, the copy is
    // refused): nothing lost, nothing twice.
    let deadline = Instant::now() + Duration::from_secs(10);
    while tally.pending(counted) != 0 {
        assert!(Instant::now() < deadline, "never acknowledged");
        let _ = tally.flush(&store).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(stored(&store, counted).await, 14);
}

#[tokio::test]
async fn flush_marks_older_than_the_horizon_are_pruned_and_the_counts_kept() {
    let sale = crate::sale::sale().await;
    let store = &sale.app.store;
    let counted = Counted::Views(sale.showtime_id);
    let (one, two) = (Tally::default(), Tally::default());
    one.add(counted, 3);
    two.add(counted, 4);
    one.flush(store).await.unwrap();
    two.flush(store).await.unwrap();
    let uri = crate::helpers::mongodb_uri();
    assert_eq!(flush_marks(&uri, store, sale.showtime_id).await.len(), 2);
    let now = chrono::Utc::now().timestamp_millis();
    boxoffice::counters::inspect::prune_flush_marks_before(store, now - 60_000)
        .await
        .unwrap();
    assert_eq!(flush_marks(&uri, store, sale.showtime_id).await.len(), 2);
    boxoffice::counters::inspect::prune_flush_marks_before(store, now + 60_000)
        .await
        .unwrap();
    assert!(flush_marks(&uri, store, sale.showtime_id).await.is_empty());
    assert_eq!(stored(store, counted).await, 7);
    // A gateway whose mark was pruned counts on.
    one.add(counted, 1);
    one.flush(store).await.unwrap();
    assert_eq!(stored(store, counted).await, 8);
}
