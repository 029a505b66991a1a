//! The event log under faults: a gateway stalled or killed between its change and its relay,
//! two relays appending the same entries, two gateways appending to one channel's log at once.
//! Every event is appended once, and each channel's log counts 1, 2, 3, … without a gap.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use boxoffice::channel_events::inspect;
use boxoffice::channel_events::{CLEAR_AFTER, STALE_AFTER};
use boxoffice::store::{Pause, PausePoint};
use futures::future::join_all;
use serde_json::json;

use crate::events::{log_of, read_log, types_of};
use crate::helpers::{mongodb_uri, TestApp};
use crate::orders::CONFIRM;
use crate::processes::GatewayProcess;
use crate::sale::{sale, Sale, HOLD};

/// Checks the channel's stored log counts 1..=n in order, and returns n.
async fn gap_free(sale: &Sale, channel: &str) -> usize {
    let stored = boxoffice::channel_events::events_after(&sale.app.store, channel, 0, None, 10_000)
        .await
        .unwrap();
    let sequences: Vec<i64> = stored.iter().map(|event| event.sequence).collect();
    let expected: Vec<i64> = (1..=stored.len() as i64).collect();
    assert_eq!(sequences, expected, "{channel}'s log has a gap or a repeat");
    let ids: HashSet<_> = stored.iter().map(|event| event.id.clone()).collect();
    assert_eq!(ids.len(), stored.len(), "an event appended twice");
    stored.len()
}

/// Whether every document's outbox is empty, or empties within a second (the live relay
/// pulls the entries it appended off `CLEAR_AFTER` later).
pub async fn outbox_empty(sale: &Sale) -> bool {
    let deadline = Instant::now() + CLEAR_AFTER + Duration::from_secs(1);
    loop {
        let left = sale
            .app
            .store
            .stale_outboxes(boxoffice::store::now() + chrono::Duration::hours(1), 10);
        if left.await.unwrap().is_empty() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn entries_a_stalled_gateway_left_are_relayed_by_another_s_pass_and_appended_once() {
    let sale = sale().await;
    let other = sale.app.another_gateway().await;
    // The first gateway stalls after its change, before its relay appends it.
    let (stalled, hold) = held_relay_paused(&sale, "A1").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(read_log(&sale.app, &sale.maoyan, None).await.is_empty());
    // The other gateway's background pass takes it once it is stale.
    let pass = boxoffice::assembly::event_relay(&other.store);
    assert_eq!(pass.relay_stale().await.unwrap(), 0, "not stale yet");
    tokio::time::sleep(STALE_AFTER).await;
    assert_eq!(pass.relay_stale().await.unwrap(), 1);
    let log = log_of(&sale.app, &sale.maoyan, 1).await;
    assert_eq!(log[0]["holdId"], hold);
    // The stalled relay wakes with the entry the pass appended: it is in the log once.
    stalled.resume();
    sale.confirm(&sale.maoyan, &hold).await.data();
    let log = log_of(&sale.app, &sale.maoyan, 2).await;
    assert_eq!(types_of(&log), ["HOLD_PLACED", "ORDER_CONFIRMED"]);
    assert_eq!(gap_free(&sale, "maoyan").await, 2);
    assert!(outbox_empty(&sale).await);
}

#[tokio::test]
async fn a_relay_stalled_after_appending_and_a_pass_appending_again_leave_each_event_once() {
    let sale = sale().await;
    let other = sale.app.another_gateway().await;
    // The first gateway appends, then stalls before it pulls its entries off.
    let stalled = sale
        .app
        .store
        .faults()
        .pause_next_at(PausePoint::RelayBeforeClear);
    let hold = sale.hold_id(&sale.maoyan, &["A1", "A2"]).await;
    stalled.reached().await;
    sale.confirm(&sale.maoyan, &hold).await.data();
    tokio::time::sleep(STALE_AFTER).await;
    // The other's pass finds both entries: the hold's is in the log already, the
    // confirmation's is appended.
    let pass = boxoffice::assembly::event_relay(&other.store);
    assert_eq!(pass.relay_stale().await.unwrap(), 1, "appended again");
    assert!(outbox_empty(&sale).await);
    stalled.resume();
    sale.hold(&sale.maoyan, &["A3"]).await.data();
    let log = log_of(&sale.app, &sale.maoyan, 3).await;
    assert_eq!(
        types_of(&log),
        ["HOLD_PLACED", "ORDER_CONFIRMED", "HOLD_PLACED"]
    );
    assert_eq!(gap_free(&sale, "maoyan").await, 3);
}

#[tokio::test]
async fn two_gateways_booking_at_once_append_every_event_once_without_a_gap() {
    let sale = sale().await;
    let other = sale.app.another_gateway().await;
    let seats = [
        "A1", "A2", "A3", "A4", "A5", "A6", "B1", "B2", "B3", "B5", "B6", "B7",
    ];
    // 24 clients on two gateways, two per seat, both channels: each seat is held by one.
    let sale = &sale;
    let bookings = (0..24).map(|i| {
        let app = if i % 2 == 0 { &sale.app } else { &other };
        let key = sale.key_of_client(i / 2).to_owned();
        let seat = seats[i % seats.len()];
        let showtime = sale.showtime.clone();
        async move {
            let input = json!({ "showtimeId": showtime, "seats": [seat] });
            let held = app.graphql_as(&key, HOLD, json!({ "input": input })).await;
            if held.0.get("errors").is_some() {
                assert_eq!(held.error_code(), "SEAT_UNAVAILABLE", "{:?}", held.0);
                return (key, 0);
            }
            let hold = held.data()["holdSeats"]["id"].clone();
            app.graphql_as(&key, CONFIRM, json!({ "hold": hold }))
                .await
                .data();
            (key, 2)
        }
    });
    let results = join_all(bookings).await;
    let made = |key: &str| {
        results
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, n)| n)
            .sum::<usize>()
    };
    let (maoyan, wechat) = (made(&sale.maoyan), made(&sale.wechat));
    assert_eq!(maoyan + wechat, 2 * seats.len(), "every seat sold once");
    log_of(&sale.app, &sale.maoyan, maoyan).await;
    log_of(&sale.app, &sale.wechat, wechat).await;
    assert_eq!(gap_free(sale, "maoyan").await, maoyan);
    assert_eq!(gap_free(sale, "wechat").await, wechat);
    sale.check_orders_agree_with_seats().await;
}

#[tokio::test]
async fn events_of_a_gateway_killed_before_its_relay_are_relayed_by_another_once() {
    let sale = sale().await;
    let mut process = GatewayProcess::start_with_env(
        &mongodb_uri(),
        sale.app.store.database_name(),
        &[],
        &[("BOXOFFICE_TEST_DELAY_BEFORE_RELAY_MS", "60000")],
    );
    let input = json!({ "showtimeId": sale.showtime, "seats": ["B5"] });
    let held = process.post_in_background(&sale.maoyan, HOLD, json!({ "input": input }));
    let held: serde_json::Value = held.await.unwrap().unwrap().json().await.unwrap();
    let hold = held["data"]["holdSeats"]["id"].clone();
    assert!(hold.is_string(), "{held}");
    let confirmed = process.post_in_background(&sale.maoyan, CONFIRM, json!({ "hold": hold }));
    let confirmed: serde_json::Value = confirmed.await.unwrap().unwrap().json().await.unwrap();
    assert_eq!(
        confirmed["data"]["confirmHold"]["status"], "CONFIRMED",
        "{confirmed}"
    );
    // Killed with both changes made and neither relayed.
    process.kill();
    let killed_at = Instant::now();
    assert!(read_log(&sale.app, &sale.maoyan, None).await.is_empty());
    let pass = boxoffice::assembly::event_relay(&sale.app.store);
    while pass.relay_stale().await.unwrap() == 0 {
        assert!(
            killed_at.elapsed() < Duration::from_secs(20),
            "never relayed"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let log = log_of(&sale.app, &sale.maoyan, 2).await;
    assert_eq!(types_of(&log), ["HOLD_PLACED", "ORDER_CONFIRMED"]);
    assert_eq!(log[1]["holdId"], hold);
    assert_eq!(pass.relay_stale().await.unwrap(), 0);
    assert_eq!(gap_free(&sale, "maoyan").await, 2);
}

#[tokio::test]
async fn one_insert_appends_a_run_of_events_up_to_the_first_the_log_refuses() {
    use boxoffice::channel_events::rules::EventType;
    use boxoffice::channel_events::EventDoc;
    use boxoffice::store::documents::SCHEMA_VERSION;
    let sale = sale().await;
    let store = &sale.app.store;
    let now = boxoffice::store::now();
    let event = |id: &str, sequence: i64| EventDoc {
        id: format!("{id}:maoyan"),
        schema_version: SCHEMA_VERSION,
        channel: "maoyan".into(),
        sequence,
        kind: EventType::HoldPlaced,
        at: now,
        expires_at: now + chrono::Duration::hours(1),
        details: Default::default(),
    };
    assert_eq!(
        inspect::append_events(store, &[event("a", 1), event("b", 2)])
            .await
            .unwrap(),
        2
    );
    // c is appended; the copy of b after it is refused, and nothing after that is tried.
    let run = [event("c", 3), event("b", 4), event("d", 5)];
    assert_eq!(inspect::append_events(store, &run).await.unwrap(), 1);
    // Sequence 4 taken by another relay first: none of this run is appended.
    assert_eq!(
        inspect::append_events(store, &[event("e", 4)])
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        inspect::append_events(store, &[event("d", 4), event("f", 5)])
            .await
            .unwrap(),
        0
    );
    let log = boxoffice::channel_events::events_after(store, "maoyan", 0, None, 10)
        .await
        .unwrap();
    let ids: Vec<&str> = log.iter().map(|event| event.id.as_str()).collect();
    assert_eq!(ids, ["a:maoyan", "b:maoyan", "c:maoyan", "e:maoyan"]);
    assert_eq!(gap_free(&sale, "maoyan").await, 4);
}

#[tokio::test]
async fn a_pull_that_met_a_frozen_database_leaves_its_entry_to_the_next_relay_appended_once() {
    use crate::processes::OwnDatabase;
    let database = OwnDatabase::start();
    let options = boxoffice::store::DatabaseOptions {
        timeout: Duration::from_millis(1000),
        ..Default::default()
    };
    let app = crate::helpers::TestApp::spawn_on(&database.uri(), &options).await;
    let sale = crate::sale::sale_on(app, &["SSSSSS"; 2]).await;
    // The hold's event is appended; its pull waits, and meets a frozen database.
    let pull = (sale.app.store.faults()).pause_next_at(PausePoint::RelayBeforeClear);
    let hold = sale.hold_id(&sale.maoyan, &["A1"]).await;
    pull.reached().await;
    assert_eq!(
        types_of(&log_of(&sale.app, &sale.maoyan, 1).await),
        ["HOLD_PLACED"]
    );
    database.freeze();
    pull.resume();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    database.thaw();
    // The entry is still on the inventory, its pull tried again; the confirmation's relay
    // appends only the confirmation's.
    sale.confirm(&sale.maoyan, &hold).await.data();
    let log = log_of(&sale.app, &sale.maoyan, 2).await;
    assert_eq!(types_of(&log), ["HOLD_PLACED", "ORDER_CONFIRMED"]);
    assert_eq!(gap_free(&sale, "maoyan").await, 2);
    assert!(outbox_empty(&sale).await);
}

#[tokio::test]
async fn a_showtime_s_events_keep_its_order_when_the_gateway_that_changed_it_first_relays_last() {
    let sale = sale().await;
    let other = sale.app.another_gateway().await;
    // The other gateway's relay appends the first hold's event (on the document before its
    // own, and older than OWNER_GRACE by then), then its own.
    let (stalled, first, second) = held_in_turn_first_relay_paused(&sale, &other).await;
    let log = log_of(&sale.app, &sale.maoyan, 2).await;
    assert_eq!(
        [&log[0]["holdId"], &log[1]["holdId"]],
        [&first, &second],
        "the log keeps the showtime's order"
    );
    // The stalled relay wakes and finds the first hold's event in the log: once, in place.
    stalled.resume();
    let third = sale.hold_id(&sale.maoyan, &["A3"]).await;
    let log = log_of(&sale.app, &sale.maoyan, 3).await;
    let holds: Vec<_> = log.iter().map(|event| event["holdId"].clone()).collect();
    assert_eq!(holds, [first, second, third]);
    assert_eq!(gap_free(&sale, "maoyan").await, 3);
    assert!(outbox_empty(&sale).await);
}

/// Two gateways changing one showtime in turn: a gateway leaves the other's entry, made
/// moments before its own, to the gateway that made it (which appends it within
/// `OWNER_GRACE`), and appends its own after it. Neither appends the other's event, and the
/// log keeps the showtime's order.
#[tokio::test]
async fn a_gateway_leaves_another_s_fresh_event_to_it_and_appends_its_own_after() {
    let sale = sale().await;
    let other = sale.app.another_gateway().await;
    let (first_log, other_log) = (sale.app.store.commands(), other.store.commands());
    first_log.start_with_background();
    other_log.start_with_background();
    // The other gateway's note of A2 holds A1's entry before its own, made moments ago.
    let (stalled, first, second) = held_in_turn_first_relay_paused(&sale, &other).await;
    // Well within OWNER_GRACE, the first gateway's relay goes on.
    tokio::time::sleep(Duration::from_millis(100)).await;
    stalled.resume();
    let log = log_of(&sale.app, &sale.maoyan, 2).await;
    let holds: Vec<_> = log.iter().map(|event| event["holdId"].clone()).collect();
    assert_eq!(holds, [first, second], "the log keeps the showtime's order");
    assert_eq!(gap_free(&sale, "maoyan").await, 2);
    let inserts = |sent: Vec<boxoffice::store::SentCommand>| {
        (sent.iter())
            .filter(|command| command.name == "insert")
            .filter(|command| command.collection.as_deref() == Some("events"))
            .map(|command| command.inserted())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        inserts(first_log.take()),
        [1],
        "the first appends only its own"
    );
    assert_eq!(
        inserts(other_log.take()),
        [1],
        "the other appends only its own"
    );
}

/// The sale's gateway holds `seat` and pauses before its relay appends the hold's event: the
/// pause (reached), and the hold's id.
async fn held_relay_paused(sale: &Sale, seat: &str) -> (Arc<Pause>, serde_json::Value) {
    let stalled = (sale.app.store.faults()).pause_next_at(PausePoint::RelayBeforeAppend);
    let hold = sale.hold_id(&sale.maoyan, &[seat]).await;
    stalled.reached().await;
    (stalled, hold)
}

/// The first gateway holds A1 and pauses before its relay appends the hold's event; then the
/// other gateway holds A2. The pause, and the two holds' ids.
async fn held_in_turn_first_relay_paused(
    sale: &Sale,
    other: &TestApp,
) -> (Arc<Pause>, serde_json::Value, serde_json::Value) {
    let (stalled, first) = held_relay_paused(sale, "A1").await;
    let input = json!({ "showtimeId": sale.showtime, "seats": ["A2"] });
    let second = other
        .graphql_as(&sale.maoyan, HOLD, json!({ "input": input }))
        .await
        .data()["holdSeats"]["id"]
        .clone();
    (stalled, first, second)
}

#[tokio::test]
async fn a_relay_that_loses_a_sequence_number_reads_the_log_on_from_it() {
    let sale = sale().await;
    // The relay appends the first hold's event: it has seen maoyan's log up to 1.
    sale.hold_id(&sale.maoyan, &["A1"]).await;
    log_of(&sale.app, &sale.maoyan, 1).await;
    // Another gateway's relay appends number 2 (written here as it would write it).
    let events = mongodb::Client::with_uri_str(mongodb_uri())
        .await
        .unwrap()
        .database(sale.app.store.database_name())
        .collection::<bson::Document>("events");
    let mut theirs = (events.find_one(bson::doc! { "channel": "maoyan" }).await)
        .unwrap()
        .expect("the first event");
    theirs.insert("_id", "another-gateway-2");
    theirs.insert("sequence", 2_i64);
    events.insert_one(theirs).await.unwrap();
    let log = sale.app.store.commands();
    log.start_with_background();
    sale.hold_id(&sale.maoyan, &["A3"]).await;
    log_of(&sale.app, &sale.maoyan, 3).await;
    assert_eq!(gap_free(&sale, "maoyan").await, 3);
    // Number 2 was taken: the refused insert is followed by one read of the log after the
    // last event the relay saw (a range of `channel_sequence`, never the channel's whole log)
    // and one insert of the rest (the relay's commands: the reads of `log_of` are a request's).
    let sent = log.take();
    let on_events = |name: &str| -> Vec<bson::Document> {
        (sent.iter())
            .filter(|command| command.background && command.name == name)
            .filter(|command| command.collection.as_deref() == Some("events"))
            .map(|command| command.filter().cloned().unwrap_or_default())
            .collect()
    };
    let after_one = bson::doc! { "channel": "maoyan", "sequence": { "$gt": 1_i64 } };
    assert_eq!(on_events("find"), [after_one], "{sent:#?}");
    assert_eq!(on_events("insert").len(), 2, "{sent:#?}");
}
