//! `channelEvents`: a channel that disconnects and reconnects with its last cursor receives
//! every event of its log, none twice, in order; the log itself tells every booking that
//! succeeded, and nothing of another channel's.

use std::collections::HashSet;
use std::time::Duration;

use boxoffice::channel_events::rules::Retention;
use serde_json::{json, Value};

use crate::events::{log_of, read_log, types_of};
use crate::helpers::TestApp;
use crate::live_client::LiveClient;
use crate::orders::CANCEL;
use crate::sale::{sale_in_hall, sale_on, Sale};
use boxoffice::config::BookingArgs;

const CHANNEL_EVENTS: &str = "subscription ($after: String, $types: [ChannelEventType!]) {
    channelEvents(after: $after, types: $types) { id cursor type seats } }";
const RELEASE: &str = "mutation ($id: ID!) { releaseHold(holdId: $id) }";

/// A tiny deterministic generator (the run is the same every time).
struct Dice(u64);

impl Dice {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// What the test knows a channel did, and so must find in its log.
#[derive(Default)]
struct Done {
    /// Live holds and orders, each of one seat.
    holds: Vec<(Value, &'static str)>,
    orders: Vec<(Value, &'static str)>,
    /// Successful changes, each one event of the channel's log.
    events: usize,
}

/// The seats of the hall, and which are free (the test makes every change, so it knows).
struct Seats(Vec<&'static str>);

const ROWS: [&str; 4] = ["SSSSSSSS", "SSSSSSSS", "SSSSSSSS", "SSSSSSSS"];

impl Seats {
    fn all() -> Seats {
        let labels = ["A", "B", "C", "D"].iter().flat_map(|row| {
            (1..=8).map(move |n| &*Box::leak(format!("{row}{n}").into_boxed_str()))
        });
        Seats(labels.collect())
    }
}

/// One random booking step of the channel with key `key`, each bound to succeed: hold a free
/// seat, release or confirm one of its holds, or cancel one of its orders.
async fn step(sale: &Sale, key: &str, done: &mut Done, free: &mut Seats, dice: &mut Dice) {
    let app = &sale.app;
    match dice.below(20) {
        0..=7 if !free.0.is_empty() => {
            let seat = free.0.swap_remove(dice.below(free.0.len()));
            let held = sale.hold(key, &[seat]).await;
            done.holds
                .push((held.data()["holdSeats"]["id"].clone(), seat));
        }
        8..=10 if !done.holds.is_empty() => {
            let (hold, seat) = done.holds.swap_remove(dice.below(done.holds.len()));
            app.graphql_as(key, RELEASE, json!({ "id": hold }))
                .await
                .data();
            free.0.push(seat);
        }
        11..=15 if !done.holds.is_empty() => {
            let (hold, seat) = done.holds.swap_remove(dice.below(done.holds.len()));
            let order = sale.confirm(key, &hold).await.data()["confirmHold"]["id"].clone();
            done.orders.push((order, seat));
        }
        16..=19 if !done.orders.is_empty() => {
            let (order, seat) = done.orders.swap_remove(dice.below(done.orders.len()));
            app.graphql_as(key, CANCEL, json!({ "id": order }))
                .await
                .data();
            free.0.push(seat);
        }
        _ => return,
    }
    done.events += 1;
}

/// The `channelEvents` events of subscription `id` until `count` arrived.
async fn receive(client: &mut LiveClient, id: &str, count: usize, into: &mut Vec<Value>) {
    while into.len() < count {
        let event = tokio::time::timeout(Duration::from_secs(10), client.event_of(id))
            .await
            .unwrap_or_else(|_| panic!("only {} of {count} events arrived", into.len()));
        into.push(event["channelEvents"].clone());
    }
}

#[tokio::test]
async fn a_channel_that_reconnects_with_its_last_cursor_gets_every_event_once_in_order() {
    let sale = sale_in_hall(BookingArgs::default().hold_policy(), &ROWS).await;
    let (mut maoyan, mut wechat) = (Done::default(), Done::default());
    let mut free = Seats::all();
    let mut dice = Dice(2026);
    let mut received = Vec::new();

    // As a channel starts: a first booking, its log read, then a subscription from there.
    step_until_event(&sale, &mut maoyan, &mut free, &mut dice).await;
    received.extend(log_of(&sale.app, &sale.maoyan, maoyan.events).await);
    let mut client = LiveClient::connect(&sale.app, Some(&sale.maoyan)).await;
    let after = json!({ "after": received[0]["cursor"] });
    client.subscribe("events", CHANNEL_EVENTS, after).await;
    for i in 0..200 {
        // Alternate channels; maoyan disconnects for the middle third of the bookings.
        if i % 2 == 0 {
            step(
                &sale,
                &sale.maoyan.clone(),
                &mut maoyan,
                &mut free,
                &mut dice,
            )
            .await;
        } else {
            step(
                &sale,
                &sale.wechat.clone(),
                &mut wechat,
                &mut free,
                &mut dice,
            )
            .await;
        }
        if i == 66 {
            receive(&mut client, "events", maoyan.events, &mut received).await;
            drop(client);
            client = LiveClient::connect(&sale.app, Some(&sale.maoyan)).await;
        }
        if i == 133 {
            let last = received.last().unwrap()["cursor"].clone();
            client
                .subscribe("events", CHANNEL_EVENTS, json!({ "after": last }))
                .await;
        }
    }
    receive(&mut client, "events", maoyan.events, &mut received).await;
    // Nothing more arrives: every event came once.
    let extra = client.recv_within(Duration::from_millis(300)).await;
    assert!(extra.is_none(), "an event too many: {extra:?}");

    let log = log_of(&sale.app, &sale.maoyan, maoyan.events).await;
    let ids = |events: &[Value]| -> Vec<Value> { events.iter().map(|e| e["id"].clone()).collect() };
    assert_eq!(types_of(&received[..1]), types_of(&log[..1]));
    assert_eq!(
        ids(&received),
        ids(&log),
        "the stream is the log, in its order"
    );
    assert_eq!(ids(&log).iter().collect::<HashSet<_>>().len(), log.len());
    // The log tells what the test did: one event per successful booking of maoyan's,
    // and each order confirmed once.
    let confirmed = types_of(&log)
        .iter()
        .filter(|t| **t == "ORDER_CONFIRMED")
        .count();
    let cancelled = types_of(&log)
        .iter()
        .filter(|t| **t == "ORDER_CANCELLED")
        .count();
    let orders = sale.all_orders(&sale.maoyan).await;
    assert_eq!(confirmed, orders.len());
    let cancelled_orders = orders.iter().filter(|o| o["status"] == "CANCELLED").count();
    assert_eq!(cancelled, cancelled_orders);
    assert!(
        maoyan.events + wechat.events > 150,
        "{} bookings",
        maoyan.events + wechat.events
    );
    // wechat's log has exactly its own.
    let theirs = read_log(&sale.app, &sale.wechat, None).await;
    assert_eq!(theirs.len(), wechat.events);
    sale.check_invariants().await;
}

/// Books until one of maoyan's bookings succeeded.
async fn step_until_event(sale: &Sale, done: &mut Done, free: &mut Seats, dice: &mut Dice) {
    while done.events == 0 {
        step(sale, &sale.maoyan.clone(), done, free, dice).await;
    }
}

#[tokio::test]
async fn a_subscriber_filters_by_type_and_a_cursor_older_than_the_retention_is_cursor_expired() {
    let app = TestApp::spawn_with_retention(Retention::exactly(chrono::Duration::seconds(2))).await;
    let sale = sale_on(app, &["SSSSSS"]).await;
    let order = sale.order(&sale.maoyan, &["A1"]).await;
    let log = log_of(&sale.app, &sale.maoyan, 2).await;

    // From the first event on, only confirmations: this order's, then the next.
    let mut client = LiveClient::connect(&sale.app, Some(&sale.maoyan)).await;
    let types = json!({ "after": log[0]["cursor"], "types": ["ORDER_CONFIRMED"] });
    client.subscribe("confirmed", CHANNEL_EVENTS, types).await;
    sale.order(&sale.maoyan, &["A2"]).await;
    for seat in ["A1", "A2"] {
        let event = client.event_of("confirmed").await["channelEvents"].clone();
        assert_eq!(event["type"], "ORDER_CONFIRMED");
        assert_eq!(event["seats"], json!([seat]));
    }
    assert!(order.is_string());

    // Two seconds on, the first event's cursor is past the retention.
    tokio::time::sleep(Duration::from_millis(2100)).await;
    let mut late = LiveClient::connect(&sale.app, Some(&sale.maoyan)).await;
    let after = json!({ "after": log[0]["cursor"] });
    late.subscribe("late", CHANNEL_EVENTS, after.clone()).await;
    let refused = late.recv().await;
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(
        refused["payload"][0]["extensions"]["code"],
        "CURSOR_EXPIRED"
    );
    // The log still holds the events (its TTL adds an hour): only the cursor is refused.
    assert_eq!(read_log(&sale.app, &sale.maoyan, None).await.len(), 4);
    let read = sale
        .app
        .graphql_as(&sale.maoyan, crate::events::EVENTS, after)
        .await;
    assert_eq!(read.error_code(), "CURSOR_EXPIRED");
}
