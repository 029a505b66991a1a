//! Operator (catalogue) writes while the database is away: frozen under a write that already
//! claimed its key, or stopped before the request came. The write answers UNAVAILABLE (HTTP
//! 503, before the request timeout would answer REQUEST_TIMEOUT), never INTERNAL or a dropped
//! connection; once the database is back, the same keyed request succeeds, is replayed, and has
//! one effect and one audit entry. Each test runs a database server of its own.

use std::time::Duration;

use boxoffice::domain::seat::SeatState;
use boxoffice::store::{DatabaseOptions, PausePoint};
use bson::doc;
use serde_json::{json, Value};

use crate::blocked_seats::BLOCK;
use crate::catalogue_faults::{
    answered_by, database, find, oid, one_audit_entry, scheduled, showtime_id,
};
use crate::fixtures::global_id;
use crate::hall_writes::{hall_input, CREATE_HALL};
use crate::helpers::TestApp;
use crate::price_revisions::CHANGE;
use crate::processes::OwnDatabase;
use crate::scheduling::{input, tomorrow_at, world_on, World, SCHEDULE};

/// A world on `database`, whose gateway waits at most a second for each database call.
async fn world_on_own(own: &OwnDatabase) -> World {
    let options = DatabaseOptions {
        timeout: Duration::from_millis(1000),
        ..DatabaseOptions::default()
    };
    world_on(TestApp::spawn_on(&own.uri(), &options).await).await
}

/// Posts `query` as `caller`: the HTTP status and the body.
async fn post(app: &TestApp, caller: &str, query: &str, variables: &Value) -> (u16, Value) {
    let body = json!({ "query": query, "variables": variables });
    app.post_with_authorization(&format!("Bearer {caller}"), &body)
        .await
}

fn assert_unavailable((status, body): &(u16, Value)) {
    let code = &body["errors"][0]["extensions"]["code"];
    assert_eq!(
        (*status, code.as_str()),
        (503, Some("UNAVAILABLE")),
        "{body}"
    );
}

/// Runs a keyed write whose attempt, once it owns its key, meets a frozen database: it must
/// answer UNAVAILABLE. Thaws the database, retries the write with its key, checks the replay,
/// and returns the answer's data and the key's resource id.
async fn frozen_mid_write(
    own: &OwnDatabase,
    w: &World,
    query: &'static str,
    operation: &str,
    variables: Value,
) -> (Value, bson::oid::ObjectId) {
    let pause = w.app.store.faults().pause_next_at(PausePoint::BeforeEffect);
    let frozen = {
        let (app, caller, variables) = (w.app.clone(), w.chain.clone(), variables.clone());
        tokio::spawn(async move { post(&app, &caller, query, &variables).await })
    };
    pause.reached().await;
    own.freeze();
    pause.resume();
    let answer = frozen.await.unwrap();
    own.thaw();
    assert_unavailable(&answer);

    let retried = w.app.graphql_as(&w.chain, query, variables.clone()).await;
    let data = retried.data()[operation].clone();
    let again = w.app.graphql_as(&w.chain, query, variables.clone()).await;
    assert_eq!(again.0, retried.0, "replayed");
    let key = variables["input"]["idempotencyKey"].as_str().unwrap();
    let db = database(&own.uri(), &w.app).await;
    (data, answered_by(&db, "wanda", key, 2).await)
}

fn keyed(mut input: Value, key: &str) -> Value {
    input["idempotencyKey"] = json!(key);
    json!({ "input": input })
}

#[tokio::test]
async fn a_schedule_meeting_a_frozen_database_is_unavailable_then_retried_into_one_showtime() {
    let own = OwnDatabase::start();
    let w = world_on_own(&own).await;
    let variables = keyed(input(&w.hall, &w.movie, tomorrow_at(14, 0)), "frozen-1");
    let (answer, resource) =
        frozen_mid_write(&own, &w, SCHEDULE, "scheduleShowtime", variables).await;
    assert_eq!(answer["id"], global_id("Showtime", resource));
    let db = database(&own.uri(), &w.app).await;
    let showtimes = find(&db, "showtimes", doc! { "theater.id": oid(w.hall.id.0) }).await;
    assert_eq!(showtimes.len(), 1, "one showtime");
    let inventories = find(&db, "seat_inventory", doc! {}).await;
    assert_eq!(inventories.len(), 1, "one seat inventory");
    assert_eq!(inventories[0].get_object_id("_id").unwrap(), resource);
    let hall = w.app.store.halls_by_ids(&[w.hall.id]).await.unwrap();
    assert_eq!(hall[0].schedule_version, 1);
    let subject = global_id("Showtime", resource);
    one_audit_entry(&db, "scheduleShowtime", resource, &subject).await;
}

#[tokio::test]
async fn a_price_change_meeting_a_frozen_database_is_unavailable_then_retried_once() {
    let own = OwnDatabase::start();
    let w = world_on_own(&own).await;
    let showtime = scheduled(&w).await;
    let prices = json!([{ "channel": "maoyan", "amount": 5000 }]);
    let variables = keyed(
        json!({ "showtimeId": showtime, "prices": prices }),
        "frozen-2",
    );
    let (answer, resource) =
        frozen_mid_write(&own, &w, CHANGE, "changeShowtimePrices", variables).await;
    assert_eq!(answer["priceRevision"], 1);
    let db = database(&own.uri(), &w.app).await;
    let revisions = find(&db, "showtime_price_revisions", doc! {}).await;
    assert_eq!(revisions.len(), 1, "one revision");
    assert_eq!(revisions[0].get_object_id("request").unwrap(), resource);
    let stored = w
        .app
        .store
        .showtimes_by_ids(&[showtime_id(&showtime)])
        .await;
    assert_eq!(stored.unwrap()[0].price_revision, 1);
    one_audit_entry(&db, "changeShowtimePrices", resource, &showtime).await;
}

#[tokio::test]
async fn a_hall_creation_meeting_a_frozen_database_is_unavailable_then_retried_into_one_hall() {
    let own = OwnDatabase::start();
    let w = world_on_own(&own).await;
    let variables = keyed(hall_input(&w.cinema), "frozen-3");
    let (answer, resource) = frozen_mid_write(&own, &w, CREATE_HALL, "createHall", variables).await;
    let id = global_id("Hall", resource);
    assert_eq!(answer["id"], id);
    let db = database(&own.uri(), &w.app).await;
    let halls = find(&db, "theaters", doc! { "name": "IMAX厅" }).await;
    assert_eq!(halls.len(), 1, "one hall");
    assert_eq!(halls[0].get_object_id("_id").unwrap(), resource);
    one_audit_entry(&db, "createHall", resource, &id).await;
}

#[tokio::test]
async fn a_block_meeting_a_frozen_database_is_unavailable_then_retried_into_one_block() {
    let own = OwnDatabase::start();
    let w = world_on_own(&own).await;
    let showtime = scheduled(&w).await;
    let variables = keyed(
        json!({ "showtimeId": showtime, "seats": ["A1", "A2"] }),
        "frozen-4",
    );
    let (answer, resource) = frozen_mid_write(&own, &w, BLOCK, "blockSeats", variables).await;
    assert_eq!(answer["seats"], json!(["A1", "A2"]));
    let inventory = w.app.store.inventory(showtime_id(&showtime)).await;
    let inventory = inventory.unwrap().unwrap();
    assert_eq!(
        (inventory.version, inventory.counts.blocked),
        (1, 2),
        "once"
    );
    assert_eq!(inventory.seat("A2").unwrap().state, SeatState::Blocked);
    let db = database(&own.uri(), &w.app).await;
    one_audit_entry(&db, "blockSeats", resource, &showtime).await;
}

/// The four writes sent while the database is stopped (nothing listens on its port) answer
/// UNAVAILABLE and write nothing; started again, each retried with its key is done once.
#[tokio::test]
async fn writes_sent_to_a_stopped_database_are_unavailable_then_retried_once_each() {
    let mut own = OwnDatabase::start();
    let w = world_on_own(&own).await;
    let showtime = scheduled(&w).await;
    let prices = json!([{ "channel": "maoyan", "amount": 5000 }]);
    let writes = [
        (
            SCHEDULE,
            "scheduleShowtime",
            keyed(input(&w.hall, &w.movie, tomorrow_at(18, 0)), "down-1"),
        ),
        (
            CHANGE,
            "changeShowtimePrices",
            keyed(
                json!({ "showtimeId": showtime, "prices": prices }),
                "down-2",
            ),
        ),
        (
            CREATE_HALL,
            "createHall",
            keyed(hall_input(&w.cinema), "down-3"),
        ),
        (
            BLOCK,
            "blockSeats",
            keyed(json!({ "showtimeId": showtime, "seats": ["B1"] }), "down-4"),
        ),
    ];
    own.stop();
    let answers = futures::future::join_all(
        writes
            .iter()
            .map(|(query, _, variables)| post(&w.app, &w.chain, query, variables)),
    )
    .await;
    own.start_again();
    for answer in &answers {
        assert_unavailable(answer);
    }

    let db = database(&own.uri(), &w.app).await;
    for (query, operation, variables) in &writes {
        let retried = w.app.graphql_as(&w.chain, query, variables.clone()).await;
        let again = w.app.graphql_as(&w.chain, query, variables.clone()).await;
        assert_eq!(again.0, retried.0, "replayed");
        retried.data();
        let key = variables["input"]["idempotencyKey"].as_str().unwrap();
        // The key was never claimed while the database was away: its first attempt answered.
        let resource = answered_by(&db, "wanda", key, 1).await;
        let subject = match *operation {
            "scheduleShowtime" => global_id("Showtime", resource),
            "createHall" => global_id("Hall", resource),
            _ => showtime.clone(),
        };
        one_audit_entry(&db, operation, resource, &subject).await;
    }
    let showtimes = find(&db, "showtimes", doc! { "theater.id": oid(w.hall.id.0) }).await;
    assert_eq!(showtimes.len(), 2, "the first showtime and the keyed one");
    assert_eq!(find(&db, "seat_inventory", doc! {}).await.len(), 2);
    let revisions = find(&db, "showtime_price_revisions", doc! {}).await;
    assert_eq!(revisions.len(), 1);
    assert_eq!(
        find(&db, "theaters", doc! { "name": "IMAX厅" }).await.len(),
        1
    );
    let inventory = w.app.store.inventory(showtime_id(&showtime)).await;
    let inventory = inventory.unwrap().unwrap();
    assert_eq!((inventory.version, inventory.counts.blocked), (1, 1));
}
