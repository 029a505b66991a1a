//! A scheduler that stalls between reading a hall and writing its showtime: the seat
//! inventory, written just before the scheduling transaction, always ends up copied from the
//! hall's layout as it was when the showtime committed, whichever attempt wrote it last.

use std::sync::Arc;

use boxoffice::catalogue::Scheduled;
use boxoffice::store::documents::{SeatInventoryDoc, ShowtimeDoc};
use boxoffice::store::PausePoint;
use bson::doc;
use serde_json::json;

use crate::fixtures::{global_id, Catalogue};
use crate::hall_writes::{layout, UPDATE_HALL};
use crate::helpers::{mongodb_uri, TestApp};
use crate::scheduling::{world, World};

/// A showtime of the world's hall in a day, not stored.
fn showtime(w: &World) -> ShowtimeDoc {
    Catalogue::default().showtime(&w.cinema, &w.hall, &w.movie, 24, &[("maoyan", 4000)])
}

/// Changes the hall's layout to one row of three seats (the hall has no showtime yet).
async fn shrink_hall(w: &World) {
    let change = json!({ "input": {
        "hallId": global_id("Hall", w.hall.id), "layout": layout(&["SSS"]) } });
    let changed = w.app.graphql_as(&w.platform, UPDATE_HALL, change).await;
    assert_eq!(changed.data()["updateHall"]["capacity"], 3);
}

/// The stored documents of `collection` whose `field` is `id`.
async fn stored(app: &TestApp, collection: &str, field: &str, id: [u8; 12]) -> Vec<bson::Document> {
    use futures::TryStreamExt;
    let client = mongodb::Client::with_uri_str(mongodb_uri()).await.unwrap();
    let db = client.database(app.store.database_name());
    db.collection::<bson::Document>(collection)
        .find(doc! { field: bson::oid::ObjectId::from_bytes(id) })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

async fn inventory(app: &TestApp, showtime: &ShowtimeDoc) -> SeatInventoryDoc {
    let mut found = stored(app, "seat_inventory", "_id", showtime.id.0).await;
    assert_eq!(found.len(), 1, "one inventory");
    bson::from_document(found.remove(0)).unwrap()
}

async fn hall_version(app: &TestApp, w: &World) -> i64 {
    let hall = &stored(app, "theaters", "_id", w.hall.id.0).await[0];
    hall.get_i64("scheduleVersion")
        .or_else(|_| hall.get_i32("scheduleVersion").map(i64::from))
        .unwrap()
}

/// Starts scheduling `showtime` on `app` and waits until it has read the hall (8 seats) and
/// stalls before writing anything.
async fn stalled_scheduler(
    app: &TestApp,
    showtime: &ShowtimeDoc,
) -> (
    Arc<boxoffice::store::Pause>,
    tokio::task::JoinHandle<Scheduled>,
) {
    let pause = app
        .store
        .faults()
        .pause_next_at(PausePoint::BeforeScheduleWrite);
    let (store, showtime) = (app.store.clone(), showtime.clone());
    let task = tokio::spawn(async move {
        store
            .schedule_showtimes(std::slice::from_ref(&showtime))
            .await
            .unwrap()
    });
    pause.reached().await;
    (pause, task)
}

#[tokio::test]
async fn a_stalled_scheduler_never_overwrites_the_inventory_of_the_committed_showtime() {
    let w = world().await;
    let showtime = showtime(&w);
    let (pause, stalled) = stalled_scheduler(&w.app, &showtime).await;
    // While it stalls with the 8-seat layout, the layout changes and another gateway
    // schedules the same showtime (a retry of the same keyed request) with the new one.
    shrink_hall(&w).await;
    let other = w.app.another_gateway().await;
    let written = other
        .store
        .schedule_showtimes(std::slice::from_ref(&showtime))
        .await
        .unwrap();
    assert!(matches!(written, Scheduled::Written), "{written:?}");
    let committed_version = hall_version(&w.app, &w).await;

    pause.resume();
    let late = stalled.await.unwrap();
    assert!(matches!(late, Scheduled::AlreadyThere), "{late:?}");
    let inventory = inventory(&w.app, &showtime).await;
    assert_eq!(
        (inventory.capacity, inventory.counts.available),
        (3, 3),
        "the seats are the layout the showtime committed with"
    );
    assert_eq!(inventory.seats.keys().collect::<Vec<_>>(), ["A"]);
    assert_eq!(inventory.hall_schedule_version, committed_version - 1);
    assert_eq!(
        hall_version(&w.app, &w).await,
        committed_version,
        "the stalled scheduler wrote nothing"
    );
    assert_eq!(
        stored(&w.app, "showtimes", "theater.id", w.hall.id.0)
            .await
            .len(),
        1
    );
}

#[tokio::test]
async fn a_scheduler_that_lost_its_hall_rewrites_the_inventory_it_left() {
    let w = world().await;
    let showtime = showtime(&w);
    let (pause, stalled) = stalled_scheduler(&w.app, &showtime).await;
    // The layout changes under it: its transaction loses the hall's version, and it reads
    // again, finding an 8-seat inventory of its own that no showtime reaches.
    shrink_hall(&w).await;
    pause.resume();
    let written = stalled.await.unwrap();
    assert!(matches!(written, Scheduled::Written), "{written:?}");
    let inventory = inventory(&w.app, &showtime).await;
    assert_eq!(
        (inventory.capacity, inventory.counts.available),
        (3, 3),
        "copied again from the layout it committed with"
    );
    assert_eq!(inventory.seats["A"].len(), 3);
    assert_eq!(
        hall_version(&w.app, &w).await,
        2,
        "the layout change, then the schedule"
    );
}
