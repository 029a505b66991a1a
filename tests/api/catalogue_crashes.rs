//! Operator (catalogue) writes that die half way (a test-only crash point: the gateway stops
//! there) and are retried with the same key on another gateway: the retry finishes what the
//! dead attempt left (the propagation of a rename, the audit entry of a write), answers, and
//! leaves one effect and one audit entry.

use boxoffice::domain::seat::SeatState;
use boxoffice::store::CrashPoint;
use bson::doc;
use serde_json::{json, Value};

use crate::blocked_seats::BLOCK;
use crate::catalogue_faults::{
    answered_by, database, find, key_record, oid, one_audit_entry, scheduled, short_lease_world,
    showtime_id,
};
use crate::catalogue_writes::{movie_input, CREATE_MOVIE, UPDATE_CINEMA};
use crate::fixtures::global_id;
use crate::hall_writes::{hall_input, CREATE_HALL, UPDATE_HALL};
use crate::helpers::mongodb_uri;
use crate::price_revisions::CHANGE;
use crate::scheduling::{input, tomorrow_at, SCHEDULE};

/// Each copied field's rename dies before its propagation on one gateway; the client's retry
/// with the same key, on another gateway and before any background pass, finishes it.
#[tokio::test]
async fn a_rename_that_died_before_its_propagation_is_finished_by_its_retry_elsewhere() {
    let w = short_lease_world().await;
    let showtime = showtime_id(&scheduled(&w).await);
    let other = w.app.another_gateway().await;
    let db = database(&mongodb_uri(), &w.app).await;
    let cinema = global_id("Cinema", w.cinema.id);
    let hall = global_id("Hall", w.hall.id);
    let renames = [
        (
            UPDATE_CINEMA,
            "updateCinema",
            "cinemas",
            json!({ "cinemaId": cinema, "name": "新影城" }),
        ),
        (
            UPDATE_HALL,
            "updateHall",
            "theaters",
            json!({ "hallId": hall, "name": "新厅" }),
        ),
    ];
    for (query, operation, collection, mut input) in renames {
        let key = format!("{operation}-crash");
        input["idempotencyKey"] = json!(key);
        let variables = json!({ "input": input });
        w.app
            .store
            .faults()
            .crash_next_at(CrashPoint::BeforePropagation);
        let crashed = w.app.graphql_as(&w.chain, query, variables.clone()).await;
        assert_eq!(crashed.error_code(), "INTERNAL");
        let pending = find(&db, collection, doc! { "refPending": true }).await;
        assert_eq!(
            pending.len(),
            1,
            "the rename is written, its propagation is not"
        );
        assert!(find(&db, "audit_log", doc! { "operation": operation })
            .await
            .is_empty());

        let retried = other.graphql_as(&w.chain, query, variables.clone()).await;
        assert_eq!(retried.data()[operation]["name"], input["name"]);
        let again = w.app.graphql_as(&w.chain, query, variables).await;
        assert_eq!(again.0, retried.0, "replayed");
        let pending = find(&db, collection, doc! { "refPending": true }).await;
        assert!(pending.is_empty(), "propagated: {pending:?}");
        let resource = answered_by(&db, "wanda", &key, 2).await;
        let subject = input.get("cinemaId").or(input.get("hallId")).unwrap();
        one_audit_entry(&db, operation, resource, subject.as_str().unwrap()).await;
    }
    let copy = w.app.store.showtimes_by_ids(&[showtime]).await.unwrap();
    assert_eq!(
        (copy[0].cinema.name.as_str(), copy[0].theater.name.as_str()),
        ("新影城", "新厅")
    );
}

/// Each write dies after its writes and before its audit entry; its retry with the same key,
/// on another gateway, answers with what the dead attempt wrote and records it once.
#[tokio::test]
async fn a_write_that_died_before_its_audit_entry_is_recorded_once_by_its_retry() {
    let w = short_lease_world().await;
    let showtime = scheduled(&w).await;
    let other = w.app.another_gateway().await;
    let db = database(&mongodb_uri(), &w.app).await;
    let with_key = |mut input: Value, key: &str| {
        input["idempotencyKey"] = json!(key);
        json!({ "input": input })
    };
    let writes = [
        (
            SCHEDULE,
            "scheduleShowtime",
            &w.chain,
            with_key(input(&w.hall, &w.movie, tomorrow_at(18, 0)), "audit-1"),
        ),
        (
            CHANGE,
            "changeShowtimePrices",
            &w.chain,
            with_key(
                json!({ "showtimeId": showtime, "prices": [{ "channel": "maoyan", "amount": 5000 }] }),
                "audit-2",
            ),
        ),
        (
            CREATE_HALL,
            "createHall",
            &w.chain,
            with_key(hall_input(&w.cinema), "audit-3"),
        ),
        (
            CREATE_MOVIE,
            "createMovie",
            &w.platform,
            with_key(movie_input(), "audit-4"),
        ),
        (
            BLOCK,
            "blockSeats",
            &w.chain,
            with_key(
                json!({ "showtimeId": showtime, "seats": ["B4"] }),
                "audit-5",
            ),
        ),
    ];
    for (query, operation, caller, variables) in writes {
        w.app.store.faults().crash_next_at(CrashPoint::BeforeAudit);
        let crashed = w.app.graphql_as(caller, query, variables.clone()).await;
        assert_eq!(crashed.error_code(), "INTERNAL", "{operation}");
        let code = if operation == "createMovie" {
            "platform"
        } else {
            "wanda"
        };
        let key = variables["input"]["idempotencyKey"].as_str().unwrap();
        let record = key_record(&db, code, key).await;
        let unrecorded = doc! { "_id": record.get_object_id("resourceId").unwrap() };
        assert!(
            find(&db, "audit_log", unrecorded).await.is_empty(),
            "{operation}"
        );
        let retried = other.graphql_as(caller, query, variables.clone()).await;
        let answer = &retried.data()[operation];
        let resource = answered_by(&db, code, key, 2).await;
        let subject = match operation {
            "createHall" => global_id("Hall", resource),
            "createMovie" => global_id("Movie", resource),
            "scheduleShowtime" => global_id("Showtime", resource),
            _ => showtime.clone(),
        };
        if let Some(id) = answer.get("id") {
            assert_eq!(
                id.as_str().unwrap(),
                subject,
                "{operation} answers its own object"
            );
        }
        one_audit_entry(&db, operation, resource, &subject).await;
    }
    // Each write was done once.
    let showtimes = find(&db, "showtimes", doc! { "theater.id": oid(w.hall.id.0) }).await;
    assert_eq!(showtimes.len(), 2, "the first showtime and the keyed one");
    let hall = w.app.store.halls_by_ids(&[w.hall.id]).await.unwrap();
    assert_eq!(hall[0].schedule_version, 2);
    let revisions = find(&db, "showtime_price_revisions", doc! {}).await;
    assert_eq!(revisions.len(), 1, "{revisions:?}");
    assert_eq!(
        find(&db, "theaters", doc! { "name": "IMAX厅" }).await.len(),
        1
    );
    assert_eq!(
        find(&db, "movies", doc! { "title": "流浪地球3" })
            .await
            .len(),
        1
    );
    let inventory = w.app.store.inventory(showtime_id(&showtime)).await;
    let inventory = inventory.unwrap().unwrap();
    assert_eq!(inventory.seat("B4").unwrap().state, SeatState::Blocked);
    assert_eq!((inventory.version, inventory.counts.blocked), (1, 1));
}
