//! Operator (catalogue) writes under faults. An attempt stalls right after claiming its key,
//! on one gateway, while a retry of the same request reaches another gateway and takes the key
//! over once the lease lapsed; then the stalled attempt goes on. A write dies half way and is
//! retried with its key on another gateway. Whatever the timing, one key has one effect, one
//! audit entry (under the key's resource id) and one answer: a late attempt answers with the
//! answer of the attempt that took its key over (see `idempotency::keys`).

use std::time::Duration;

use boxoffice::config::{BookingArgs, Limits};
use boxoffice::domain::ids::ShowtimeId;
use boxoffice::domain::seat::SeatState;
use boxoffice::idempotency::KeyPolicy;
use boxoffice::store::PausePoint;
use bson::oid::ObjectId;
use bson::{doc, Document};
use serde_json::{json, Value};

use crate::blocked_seats::{BLOCK, UNBLOCK};
use crate::cancel_showtime::CANCEL_SHOWTIME;
use crate::catalogue_writes::{
    cinema_input, movie_input, tree_on, CREATE_CINEMA, CREATE_MOVIE, UPDATE_CINEMA, UPDATE_MOVIE,
};
use crate::fixtures::global_id;
use crate::hall_writes::{hall_input, layout, CREATE_HALL, UPDATE_HALL};
use crate::helpers::{mongodb_uri, GqlResponse, TestApp};
use crate::price_revisions::CHANGE;
use crate::scheduling::{input, tomorrow_at, world_on, World, SCHEDULE};

/// A short lease, so that a stalled attempt is taken over quickly.
const LEASE: Duration = Duration::from_millis(800);

/// The scheduling world on a gateway whose keys lapse after [`LEASE`].
pub async fn short_lease_world() -> World {
    let keys = KeyPolicy {
        lease: LEASE,
        ..KeyPolicy::default()
    };
    let hold_policy = BookingArgs::default().hold_policy();
    world_on(TestApp::spawn_with_keys(Limits::default(), hold_policy, keys).await).await
}

/// Sends `query` as `caller` through `first`, stalled right after it claimed its key; meanwhile
/// the same request goes through another gateway, which takes the key over once the lease
/// lapsed; only after the retry answered does the stalled attempt go on. (late, retry)
pub async fn stalled_and_retried(
    first: &TestApp,
    caller: &str,
    query: &'static str,
    variables: Value,
) -> (GqlResponse, GqlResponse) {
    let second = first.another_gateway().await;
    let pause = first.store.faults().pause_next_at(PausePoint::AfterClaim);
    let stalled = {
        let (first, caller, variables) = (first.clone(), caller.to_owned(), variables.clone());
        tokio::spawn(async move { first.graphql_as(&caller, query, variables).await })
    };
    pause.reached().await;
    let retry = second.graphql_as(caller, query, variables).await;
    pause.resume();
    (stalled.await.unwrap(), retry)
}

/// The database `app` writes, on the server at `uri`, read with the driver.
pub async fn database(uri: &str, app: &TestApp) -> mongodb::Database {
    mongodb::Client::with_uri_str(uri)
        .await
        .expect("connect")
        .database(app.store.database_name())
}

pub async fn find(db: &mongodb::Database, collection: &str, filter: Document) -> Vec<Document> {
    use futures::TryStreamExt;
    let found = db.collection::<Document>(collection).find(filter).await;
    found.unwrap().try_collect().await.unwrap()
}

/// The record of `operator`'s idempotency key `key`.
pub async fn key_record(db: &mongodb::Database, operator: &str, key: &str) -> Document {
    let id = format!("operator/{operator}:{key}");
    let mut record = find(db, "idempotency_keys", doc! { "_id": &id }).await;
    assert_eq!(record.len(), 1, "the key's record");
    record.remove(0)
}

/// The resource id of `operator`'s key `key`, after checking that attempt `attempt` answered it.
pub async fn answered_by(
    db: &mongodb::Database,
    operator: &str,
    key: &str,
    attempt: i32,
) -> ObjectId {
    let record = key_record(db, operator, key).await;
    assert_eq!(record.get_i32("attempt").unwrap(), attempt, "{record}");
    assert!(record.contains_key("outcome"), "answered: {record}");
    record.get_object_id("resourceId").unwrap()
}

/// The one audit entry of `operation` about `subject`, which must be the key's (`resource`).
pub async fn one_audit_entry(
    db: &mongodb::Database,
    operation: &str,
    resource: ObjectId,
    subject: &str,
) -> Document {
    let filter = doc! { "operation": operation, "subject": subject };
    let mut entries = find(db, "audit_log", filter).await;
    assert_eq!(entries.len(), 1, "one entry: {entries:?}");
    let entry = entries.remove(0);
    assert_eq!(entry.get_object_id("_id").unwrap(), resource, "{entry}");
    entry
}

/// Schedules the world's movie in its hall tomorrow at 14:00 (no key); returns the showtime.
pub async fn scheduled(w: &World) -> String {
    let variables = json!({ "input": input(&w.hall, &w.movie, tomorrow_at(14, 0)) });
    let answer = w.app.graphql_as(&w.chain, SCHEDULE, variables).await;
    answer.data()["scheduleShowtime"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

pub fn showtime_id(global: &str) -> ShowtimeId {
    boxoffice::domain::global_id::showtime_id(global).unwrap()
}

pub fn oid(id: [u8; 12]) -> ObjectId {
    ObjectId::from_bytes(id)
}

#[tokio::test]
async fn a_stalled_schedule_taken_over_by_its_retry_schedules_one_showtime() {
    let w = short_lease_world().await;
    let mut request = input(&w.hall, &w.movie, tomorrow_at(14, 0));
    request["idempotencyKey"] = json!("schedule-1");
    let variables = json!({ "input": request });
    let (late, retry) = stalled_and_retried(&w.app, &w.chain, SCHEDULE, variables).await;
    let id = retry.data()["scheduleShowtime"]["id"].as_str().unwrap();
    assert_eq!(late.0, retry.0, "one key, one answer");

    let db = database(&mongodb_uri(), &w.app).await;
    let resource = answered_by(&db, "wanda", "schedule-1", 2).await;
    assert_eq!(id, global_id("Showtime", resource), "the key's showtime");
    let stored = find(&db, "showtimes", doc! { "theater.id": oid(w.hall.id.0) }).await;
    assert_eq!(stored.len(), 1, "one showtime in the hall");
    assert_eq!(stored[0].get_object_id("_id").unwrap(), resource);
    let inventories = find(&db, "seat_inventory", doc! {}).await;
    assert_eq!(inventories.len(), 1, "one seat inventory");
    assert_eq!(inventories[0].get_object_id("_id").unwrap(), resource);
    let hall = w.app.store.halls_by_ids(&[w.hall.id]).await.unwrap();
    assert_eq!(hall[0].schedule_version, 1, "the schedule moved once");
    one_audit_entry(&db, "scheduleShowtime", resource, id).await;
}

#[tokio::test]
async fn a_stalled_price_change_taken_over_by_its_retry_makes_one_revision() {
    let w = short_lease_world().await;
    let showtime = scheduled(&w).await;
    let variables = json!({ "input": { "showtimeId": showtime, "idempotencyKey": "price-1",
        "prices": [{ "channel": "maoyan", "amount": 5000 }] } });
    let (late, retry) = stalled_and_retried(&w.app, &w.chain, CHANGE, variables).await;
    assert_eq!(retry.data()["changeShowtimePrices"]["priceRevision"], 1);
    assert_eq!(late.0, retry.0, "one key, one answer");

    let db = database(&mongodb_uri(), &w.app).await;
    let resource = answered_by(&db, "wanda", "price-1", 2).await;
    let revisions = find(&db, "showtime_price_revisions", doc! {}).await;
    assert_eq!(revisions.len(), 1, "one revision: {revisions:?}");
    assert_eq!(revisions[0].get_object_id("request").unwrap(), resource);
    let id = showtime_id(&showtime);
    let stored = w.app.store.showtimes_by_ids(&[id]).await.unwrap();
    assert_eq!(stored[0].price_revision, 1, "changed once");
    assert_eq!(stored[0].prices.len(), 1);
    assert_eq!(stored[0].prices[0].amount, 5000);
    one_audit_entry(&db, "changeShowtimePrices", resource, &showtime).await;
}

#[tokio::test]
async fn a_stalled_cinema_creation_taken_over_by_its_retry_makes_one_cinema() {
    let keys = KeyPolicy {
        lease: LEASE,
        ..KeyPolicy::default()
    };
    let hold_policy = BookingArgs::default().hold_policy();
    let t = tree_on(TestApp::spawn_with_keys(Limits::default(), hold_policy, keys).await).await;
    let mut cinema = cinema_input(&t.nanshan);
    cinema["idempotencyKey"] = json!("cinema-1");
    let variables = json!({ "input": cinema });
    let (late, retry) = stalled_and_retried(&t.app, &t.chain, CREATE_CINEMA, variables).await;
    let id = retry.data()["createCinema"]["id"].as_str().unwrap();
    assert_eq!(late.0, retry.0, "one key, one answer");

    let db = database(&mongodb_uri(), &t.app).await;
    let resource = answered_by(&db, "wanda", "cinema-1", 2).await;
    assert_eq!(id, global_id("Cinema", resource));
    let cinemas = find(&db, "cinemas", doc! {}).await;
    assert_eq!(cinemas.len(), 1, "one cinema");
    assert_eq!(cinemas[0].get_object_id("_id").unwrap(), resource);
    let chain = find(&db, "operators", doc! { "_id": "wanda" }).await;
    let scope = chain[0].get_array("cinemaIds").unwrap();
    assert_eq!(
        scope,
        &vec![bson::Bson::ObjectId(resource)],
        "in scope once"
    );
    one_audit_entry(&db, "createCinema", resource, id).await;
}

#[tokio::test]
async fn a_stalled_cinema_update_taken_over_by_its_retry_is_recorded_once() {
    let w = short_lease_world().await;
    let cinema = global_id("Cinema", w.cinema.id);
    let variables = json!({ "input": { "cinemaId": cinema, "name": "万达影城（新）",
        "idempotencyKey": "rename-1" } });
    let (late, retry) = stalled_and_retried(&w.app, &w.chain, UPDATE_CINEMA, variables).await;
    assert_eq!(retry.data()["updateCinema"]["name"], "万达影城（新）");
    assert_eq!(late.0, retry.0, "one key, one answer");

    let db = database(&mongodb_uri(), &w.app).await;
    let resource = answered_by(&db, "wanda", "rename-1", 2).await;
    let stored = w.app.store.cinemas_by_ids(&[w.cinema.id]).await.unwrap();
    assert_eq!(stored[0].name, "万达影城（新）");
    let entry = one_audit_entry(&db, "updateCinema", resource, &cinema).await;
    assert_eq!(entry.get_str("before").unwrap(), r#"{"name":"万达影城"}"#);
    assert_eq!(
        entry.get_str("after").unwrap(),
        r#"{"name":"万达影城（新）"}"#
    );
}

#[tokio::test]
async fn a_stalled_hall_creation_taken_over_by_its_retry_makes_one_hall() {
    let w = short_lease_world().await;
    let mut hall = hall_input(&w.cinema);
    hall["idempotencyKey"] = json!("hall-1");
    let variables = json!({ "input": hall });
    let (late, retry) = stalled_and_retried(&w.app, &w.chain, CREATE_HALL, variables).await;
    let id = retry.data()["createHall"]["id"].as_str().unwrap();
    assert_eq!(late.0, retry.0, "one key, one answer");

    let db = database(&mongodb_uri(), &w.app).await;
    let resource = answered_by(&db, "wanda", "hall-1", 2).await;
    assert_eq!(id, global_id("Hall", resource));
    let halls = find(&db, "theaters", doc! { "name": "IMAX厅" }).await;
    assert_eq!(halls.len(), 1, "one hall");
    assert_eq!(halls[0].get_object_id("_id").unwrap(), resource);
    assert_eq!(find(&db, "theaters", doc! {}).await.len(), 4, "3 + 1");
    one_audit_entry(&db, "createHall", resource, id).await;
}

#[tokio::test]
async fn a_stalled_hall_update_taken_over_by_its_retry_is_recorded_once() {
    let w = short_lease_world().await;
    let hall = global_id("Hall", w.hall.id);
    let variables = json!({ "input": { "hallId": hall, "name": "激光厅",
        "layout": layout(&["SSS", "SSS"]), "idempotencyKey": "hall-2" } });
    let (late, retry) = stalled_and_retried(&w.app, &w.chain, UPDATE_HALL, variables).await;
    assert_eq!(retry.data()["updateHall"]["capacity"], 6);
    assert_eq!(late.0, retry.0, "one key, one answer");

    let db = database(&mongodb_uri(), &w.app).await;
    let resource = answered_by(&db, "wanda", "hall-2", 2).await;
    let stored = w.app.store.halls_by_ids(&[w.hall.id]).await.unwrap();
    assert_eq!((stored[0].name.as_str(), stored[0].capacity), ("激光厅", 6));
    let entry = one_audit_entry(&db, "updateHall", resource, &hall).await;
    assert!(
        entry.get_str("before").unwrap().contains("1号厅"),
        "{entry}"
    );
}

#[tokio::test]
async fn a_stalled_movie_creation_taken_over_by_its_retry_makes_one_movie() {
    let w = short_lease_world().await;
    let mut movie = movie_input();
    movie["idempotencyKey"] = json!("movie-1");
    let variables = json!({ "input": movie });
    let (late, retry) = stalled_and_retried(&w.app, &w.platform, CREATE_MOVIE, variables).await;
    let id = retry.data()["createMovie"]["id"].as_str().unwrap();
    assert_eq!(late.0, retry.0, "one key, one answer");

    let db = database(&mongodb_uri(), &w.app).await;
    let resource = answered_by(&db, "platform", "movie-1", 2).await;
    assert_eq!(id, global_id("Movie", resource));
    let movies = find(&db, "movies", doc! { "title": "流浪地球3" }).await;
    assert_eq!(movies.len(), 1, "one movie");
    assert_eq!(movies[0].get_object_id("_id").unwrap(), resource);
    let details = find(&db, "movie_details", doc! { "_id": resource }).await;
    assert_eq!(details.len(), 1, "its details");
    one_audit_entry(&db, "createMovie", resource, id).await;
}

#[tokio::test]
async fn a_stalled_movie_update_taken_over_by_its_retry_reaches_the_showtimes_once_recorded() {
    let w = short_lease_world().await;
    let showtime = scheduled(&w).await;
    let movie = global_id("Movie", w.movie.id);
    let variables = json!({ "input": { "movieId": movie, "title": "流浪地球（重映）",
        "idempotencyKey": "movie-2" } });
    let (late, retry) = stalled_and_retried(&w.app, &w.platform, UPDATE_MOVIE, variables).await;
    assert_eq!(retry.data()["updateMovie"]["title"], "流浪地球（重映）");
    assert_eq!(late.0, retry.0, "one key, one answer");

    let db = database(&mongodb_uri(), &w.app).await;
    let resource = answered_by(&db, "platform", "movie-2", 2).await;
    let copy = w
        .app
        .store
        .showtimes_by_ids(&[showtime_id(&showtime)])
        .await
        .unwrap();
    assert_eq!(copy[0].movie.title, "流浪地球（重映）", "the copy follows");
    let pending = find(&db, "movies", doc! { "refPending": true }).await;
    assert!(pending.is_empty(), "propagated: {pending:?}");
    let entry = one_audit_entry(&db, "updateMovie", resource, &movie).await;
    assert!(
        entry.get_str("before").unwrap().contains("流浪地球"),
        "{entry}"
    );
}

#[tokio::test]
async fn a_stalled_block_and_a_stalled_unblock_each_move_the_seats_once() {
    let w = short_lease_world().await;
    let showtime = scheduled(&w).await;
    let id = showtime_id(&showtime);
    let db = database(&mongodb_uri(), &w.app).await;
    let seats = json!(["A1", "A2"]);
    let cases = [
        (BLOCK, "blockSeats", SeatState::Blocked),
        (UNBLOCK, "unblockSeats", SeatState::Available),
    ];
    for (version, (query, operation, state)) in (1..).zip(cases) {
        let key = format!("{operation}-1");
        let variables = json!({ "input": { "showtimeId": showtime, "seats": seats,
            "idempotencyKey": key } });
        let (late, retry) = stalled_and_retried(&w.app, &w.chain, query, variables).await;
        assert_eq!(retry.data()[operation]["seats"], seats);
        assert_eq!(late.0, retry.0, "one key, one answer");
        let inventory = w.app.store.inventory(id).await.unwrap().unwrap();
        assert_eq!(inventory.version, version, "{operation} once");
        for label in ["A1", "A2"] {
            assert_eq!(inventory.seat(label).unwrap().state, state, "{label}");
        }
        let blocked = if state == SeatState::Blocked { 2 } else { 0 };
        assert_eq!(
            (inventory.counts.blocked, inventory.counts.available),
            (blocked, 8 - blocked)
        );
        let resource = answered_by(&db, "wanda", &key, 2).await;
        one_audit_entry(&db, operation, resource, &showtime).await;
    }
}

/// [`stalled_and_retried`] with another request (`change`, made from the retry's answer)
/// answered between the retry's answer and the stalled attempt going on. (late, retry)
async fn stalled_retried_and_changed(
    first: &TestApp,
    caller: &str,
    query: &'static str,
    variables: Value,
    change: impl FnOnce(&GqlResponse) -> (&'static str, Value),
) -> (GqlResponse, GqlResponse) {
    let second = first.another_gateway().await;
    let pause = first.store.faults().pause_next_at(PausePoint::AfterClaim);
    let stalled = {
        let (first, caller, variables) = (first.clone(), caller.to_owned(), variables.clone());
        tokio::spawn(async move { first.graphql_as(&caller, query, variables).await })
    };
    pause.reached().await;
    let retry = second.graphql_as(caller, query, variables).await;
    let (change, change_variables) = change(&retry);
    let changed = second.graphql_as(caller, change, change_variables).await;
    assert!(changed.0["errors"].is_null(), "{:?}", changed.0);
    pause.resume();
    (stalled.await.unwrap(), retry)
}

/// A stalled attempt that wakes up after its key was taken over and answered writes nothing:
/// its update is behind the key's fence (the owning attempt in the filter of the key record,
/// in the update's transaction), so a change made in between stands. Both update paths: a
/// copied field (read, then a versioned update) and a plain one (find and modify).
#[tokio::test]
async fn a_late_attempt_of_a_taken_over_update_does_not_undo_a_later_change() {
    let w = short_lease_world().await;
    let cinema = global_id("Cinema", w.cinema.id);
    for (field, value, later) in [("name", "甲", "乙"), ("address", "一路1号", "二路2号")] {
        let variables = json!({ "input": { "cinemaId": cinema, field: value,
            "idempotencyKey": format!("late-{field}") } });
        let change = json!({ "input": { "cinemaId": cinema, field: later } });
        let (late, retry) =
            stalled_retried_and_changed(&w.app, &w.chain, UPDATE_CINEMA, variables, |_| {
                (UPDATE_CINEMA, change)
            })
            .await;
        assert_eq!(retry.data()["updateCinema"][field], value);
        // The key's answer is the cinema; its fields are read when the answer is sent.
        assert_eq!(late.data()["updateCinema"]["id"], cinema, "{:?}", late.0);
        assert_eq!(late.data()["updateCinema"][field], later);
        let stored = w.app.store.cinemas_by_ids(&[w.cinema.id]).await.unwrap();
        let stored = serde_json::to_value(&stored[0]).unwrap();
        assert_eq!(stored[field], later, "the later change stands");
    }
}

/// The same for seats: a late block attempt does not block again the seats unblocked after
/// its retry answered.
#[tokio::test]
async fn a_late_block_does_not_block_seats_unblocked_since() {
    let w = short_lease_world().await;
    let showtime = scheduled(&w).await;
    let seats = json!(["A1", "A2"]);
    let block = json!({ "input": { "showtimeId": showtime, "seats": seats,
        "idempotencyKey": "late-block" } });
    let unblock = json!({ "input": { "showtimeId": showtime, "seats": seats } });
    let (late, retry) =
        stalled_retried_and_changed(&w.app, &w.chain, BLOCK, block, |_| (UNBLOCK, unblock)).await;
    assert_eq!(retry.data()["blockSeats"]["seats"], seats);
    // The key's answer is the seats it moved; the counts are read when the answer is sent.
    assert_eq!(late.data()["blockSeats"]["seats"], seats, "{:?}", late.0);
    assert_eq!(
        late.data()["blockSeats"]["showtime"]["seatMap"]["counts"]["blocked"],
        0
    );
    let inventory = w
        .app
        .store
        .inventory(showtime_id(&showtime))
        .await
        .unwrap()
        .unwrap();
    for label in ["A1", "A2"] {
        assert_eq!(inventory.seat(label).unwrap().state, SeatState::Available);
    }
    assert_eq!((inventory.counts.blocked, inventory.version), (0, 2));
}

/// A late scheduling attempt that wakes up after its retry scheduled the showtime and the
/// showtime was cancelled: it finds the key's showtime (cancelled) and answers with the
/// retry's answer; it neither fails nor schedules the slot again.
#[tokio::test]
async fn a_late_schedule_of_a_showtime_cancelled_since_schedules_nothing() {
    let w = short_lease_world().await;
    let mut request = input(&w.hall, &w.movie, tomorrow_at(16, 0));
    request["idempotencyKey"] = json!("schedule-late");
    let cancel = |retry: &GqlResponse| {
        let id = retry.data()["scheduleShowtime"]["id"].clone();
        (CANCEL_SHOWTIME, json!({ "input": { "showtimeId": id } }))
    };
    let variables = json!({ "input": request });
    let (late, retry) =
        stalled_retried_and_changed(&w.app, &w.chain, SCHEDULE, variables, cancel).await;
    assert_eq!(late.0, retry.0, "one key, one answer: {:?}", late.0);
    let db = database(&mongodb_uri(), &w.app).await;
    let stored = find(&db, "showtimes", doc! { "theater.id": oid(w.hall.id.0) }).await;
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0].get_str("status").unwrap(), "CANCELLED");
    let inventory = find(&db, "seat_inventory", doc! {}).await;
    assert_eq!(inventory.len(), 1);
    assert!(inventory[0].get_bool("cancelled").unwrap());
}
