//! Overload without collapse (see `src/overload`): counts, not timings. A crowd with one new key
//! costs one look-up; a request refused at the door, or over the in-flight cap, sent no command
//! and changed nothing; a purchase in flight (confirm, release, cancel) is never refused at the
//! door; background passes run on connections of their own.

use std::sync::Arc;
use std::time::Duration;

use boxoffice::background::{self, Intervals};
use boxoffice::config::{BookingArgs, Limits};
use boxoffice::domain::seat::SeatState;
use boxoffice::gateways::Membership;
use boxoffice::holds::rules::HoldPolicy;
use boxoffice::shutdown::Shutdown;
use boxoffice::store::{DatabaseOptions, Lane, PausePoint, BACKGROUND_POOL};
use boxoffice::webhooks::{Deliverer, Sender};
use serde_json::{json, Value};

use crate::helpers::{mongodb_uri, test_ticket_secret, TestApp};
use crate::sale::{sale, sale_on, sale_with, Sale, HOLD};

const TYPENAME: &str = "{ __typename }";

/// Posts a hold of `seats` as `key` with an idempotency key: the status, the `Retry-After`
/// header and the body.
async fn hold_with_key(
    sale: &Sale,
    key: &str,
    seats: &[&str],
    idempotency_key: &str,
) -> (u16, Option<String>, Value) {
    let input =
        json!({ "showtimeId": sale.showtime, "seats": seats, "idempotencyKey": idempotency_key });
    let response = reqwest::Client::new()
        .post(sale.app.url("/graphql"))
        .header("authorization", format!("Bearer {key}"))
        .json(&json!({ "query": HOLD, "variables": { "input": input } }))
        .send()
        .await
        .expect("request the gateway");
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap().to_owned());
    (status, retry_after, response.json().await.expect("JSON"))
}

fn code_of(body: &Value) -> &str {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("an error with a code: {body:#}"))
}

/// A sale of two rows of six on a gateway that runs at most `places` requests at once.
async fn sale_with_places(places: usize) -> Sale {
    let limits = Limits {
        max_in_flight: places,
        ..Limits::default()
    };
    sale_on(TestApp::spawn_with(limits).await, &["SSSSSS"; 2]).await
}

/// A hold of A3 (key `k-first`) sent and paused before its effect: the pause, and the HTTP
/// status it ends with once resumed.
async fn hold_paused_before_its_effect(
    sale: &Sale,
) -> (Arc<boxoffice::store::Pause>, tokio::task::JoinHandle<u16>) {
    let pause = sale
        .app
        .store
        .faults()
        .pause_next_at(PausePoint::BeforeEffect);
    let (url, key, showtime) = (
        sale.app.url("/graphql"),
        sale.maoyan.clone(),
        sale.showtime.clone(),
    );
    let first = tokio::spawn(async move {
        let input = json!({ "showtimeId": showtime, "seats": ["A3"], "idempotencyKey": "k-first" });
        reqwest::Client::new()
            .post(url)
            .header("authorization", format!("Bearer {key}"))
            .json(&json!({ "query": HOLD, "variables": { "input": input } }))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    });
    pause.reached().await;
    (pause, first)
}

/// A hold of A2 (key `k-2`) is refused: 503 UNAVAILABLE saying `why`, `Retry-After: 1`, and
/// not one command sent on the requests' lane.
async fn hold_is_refused_having_sent_nothing(sale: &Sale, why: &str) {
    sale.app.store.commands().start();
    let (status, retry_after, body) = hold_with_key(sale, &sale.maoyan, &["A2"], "k-2").await;
    assert_eq!(status, 503, "{body:#}");
    assert_eq!(retry_after.as_deref(), Some("1"));
    assert_eq!(code_of(&body), "UNAVAILABLE");
    let message = body["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains(why), "{body:#}");
    let sent: Vec<_> = (sale.app.store.commands().take().into_iter())
        .filter(|c| c.lane == Lane::Requests)
        .collect();
    assert!(sent.is_empty(), "the refused hold sent {sent:#?}");
}

#[tokio::test]
async fn fifty_concurrent_requests_with_a_key_this_gateway_does_not_know_cost_one_look_up() {
    let sale = sale().await;
    // A gateway just started: its key cache is empty.
    let cold = sale.app.another_gateway().await;
    cold.store.commands().start();
    let answers = futures::future::join_all(
        (0..50).map(|_| cold.graphql_as(&sale.maoyan, TYPENAME, json!({}))),
    )
    .await;
    for answer in &answers {
        assert_eq!(answer.data()["__typename"], "Query");
    }
    let look_ups = |sent: &[boxoffice::store::SentCommand]| {
        sent.iter()
            .filter(|c| c.collection.as_deref() == Some("channels"))
            .count()
    };
    assert_eq!(look_ups(&cold.store.commands().take()), 1);
    // A wrong key (well formed, no channel has it): one look-up too, and every request refused.
    let wrong = format!("bo_{}", "A".repeat(43));
    let answers =
        futures::future::join_all((0..50).map(|_| cold.graphql_as(&wrong, TYPENAME, json!({}))))
            .await;
    for answer in &answers {
        assert_eq!(answer.error_code(), "UNAUTHENTICATED");
    }
    assert_eq!(look_ups(&cold.store.commands().take()), 1);
}

/// A sale on a gateway whose door makes a newcomer wait at most 20 ms.
async fn sale_with_a_short_wait() -> Sale {
    let options = DatabaseOptions {
        admission_wait: Duration::from_millis(20),
        ..DatabaseOptions::default()
    };
    sale_on(
        TestApp::spawn_on(&mongodb_uri(), &options).await,
        &["SSSSSS"; 2],
    )
    .await
}

#[tokio::test]
async fn a_request_refused_at_the_door_sent_no_command_and_changed_nothing() {
    let sale = sale_with_a_short_wait().await;
    // The key is known (the cache needs no look-up), then every place at the door is taken.
    sale.hold(&sale.maoyan, &["A1"]).await.data();
    let full = sale.app.store.occupy_admission();
    hold_is_refused_having_sent_nothing(&sale, "as busy as this gateway lets it be").await;
    // A read waits at the door like a hold.
    sale.app.store.commands().start();
    let read = sale
        .app
        .graphql_as(
            &sale.maoyan,
            "query ($id: ID!) { node(id: $id) { id } }",
            json!({ "id": sale.showtime }),
        )
        .await;
    assert_eq!(read.error_code(), "UNAVAILABLE");
    let sent: Vec<_> = (sale.app.store.commands().take().into_iter())
        .filter(|c| c.lane == Lane::Requests)
        .collect();
    assert!(sent.is_empty(), "the refused read sent {sent:#?}");
    drop(full);
    // Nothing was done: the seat is free, the key was not taken, and the retry holds it.
    let (status, _, body) = hold_with_key(&sale, &sale.maoyan, &["A2"], "k-2").await;
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(body["data"]["holdSeats"]["seats"][0]["label"], "A2");
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_purchase_in_flight_is_never_refused_at_the_door() {
    let sale = Arc::new(sale_with_a_short_wait().await);
    let hold_of = |seats: &'static [&'static str]| {
        let sale = Arc::clone(&sale);
        async move {
            let held = sale.hold(&sale.maoyan, seats).await;
            held.data()["holdSeats"]["id"].as_str().unwrap().to_owned()
        }
    };
    let (to_confirm, to_release) = (hold_of(&["A1"]).await, hold_of(&["A2"]).await);
    let to_cancel = hold_of(&["A3"]).await;
    let confirm = "mutation ($hold: ID!) { confirmHold(input: { holdId: $hold,
        customer: { name: \"Li Lei\", contact: \"li@example.com\" } }) { id status } }";
    let ordered = sale
        .app
        .graphql_as(&sale.maoyan, confirm, json!({ "hold": to_cancel }))
        .await;
    let order = ordered.data()["confirmHold"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // Every place at the door is taken: a new hold is refused (its turn would come after the
    // door's 20 ms), while a confirmation, a release and a cancellation wait for places.
    let full = sale.app.store.occupy_admission();
    hold_is_refused_having_sent_nothing(&sale, "as busy as this gateway lets it be").await;
    let send = |query: &'static str, variables: Value| {
        let sale = Arc::clone(&sale);
        tokio::spawn(async move { sale.app.graphql_as(&sale.maoyan, query, variables).await })
    };
    let confirmed = send(confirm, json!({ "hold": to_confirm }));
    let released = send(
        "mutation ($hold: ID!) { releaseHold(holdId: $hold) }",
        json!({ "hold": to_release }),
    );
    let cancelled = send(
        "mutation ($order: ID!) { cancelOrder(orderId: $order) { status } }",
        json!({ "order": order }),
    );
    while sale.app.store.admission_waiting() != (3, 0) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // Longer than the door's wait: they are still waiting, not refused.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(sale.app.store.admission_waiting(), (3, 0));
    drop(full);
    let confirmed = confirmed.await.unwrap();
    assert_eq!(confirmed.data()["confirmHold"]["status"], "CONFIRMED");
    assert_eq!(released.await.unwrap().data()["releaseHold"], json!(["A2"]));
    let cancelled = cancelled.await.unwrap();
    assert_eq!(cancelled.data()["cancelOrder"]["status"], "CANCELLED");
    let states = sale.states(&["A1", "A2", "A3"]).await;
    assert_eq!(
        states,
        [SeatState::Sold, SeatState::Available, SeatState::Available]
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn over_the_in_flight_cap_a_request_is_refused_at_once_having_sent_no_command() {
    let sale = sale_with_places(1).await;
    sale.hold(&sale.maoyan, &["A1"]).await.data();
    let (pause, first) = hold_paused_before_its_effect(&sale).await;
    hold_is_refused_having_sent_nothing(&sale, "as many requests as it can (1)").await;
    pause.resume();
    assert_eq!(first.await.unwrap(), 200);
    let (status, _, body) = hold_with_key(&sale, &sale.maoyan, &["A2"], "k-2").await;
    assert_eq!(status, 200, "{body:#}");
    let states = sale.states(&["A1", "A2", "A3"]).await;
    assert_eq!(states, [SeatState::Held; 3]);
}

#[tokio::test]
async fn background_passes_run_on_connections_of_their_own_while_requests_have_taken_every_one() {
    let short = HoldPolicy {
        ttl: Duration::from_millis(300),
        ..BookingArgs::default().hold_policy()
    };
    let sale = sale_with(short).await;
    sale.hold(&sale.maoyan, &["A1", "A2"]).await.data();
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Every request connection is taken (as by requests waiting on a slow database).
    let requests = DatabaseOptions::default().max_pool_size as usize;
    let busy = sale.app.store.occupy_connections(requests);
    sale.app.store.commands().start_with_background();
    let shutdown = Shutdown::default();
    let passes = tokio::spawn(background::run(
        sale.app.store.clone(),
        Intervals {
            sweep: Duration::from_millis(100),
            sales: Duration::from_millis(100),
            offer_policy: boxoffice::config::BookingArgs::default().hold_policy(),
        },
        Membership::new(Arc::default(), Duration::from_millis(100), None),
        Deliverer::new(
            sale.app.store.clone(),
            Sender::new(true),
            Arc::new(test_ticket_secret()),
        ),
        shutdown.clone(),
    ));
    // The sweeper returns the expired hold's seats, read through the background lane too.
    let reader = sale.app.store.background();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let inventory = reader.inventory(sale.showtime_id).await.unwrap().unwrap();
        if inventory.counts.held == 0 {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the sweeper never ran"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    shutdown.trigger();
    passes.await.unwrap();
    let sent = sale.app.store.commands().take();
    assert!(
        sent.iter()
            .any(|c| c.collection.as_deref() == Some("gateways")),
        "the heartbeat ran: {sent:#?}"
    );
    let on_requests: Vec<_> = sent.iter().filter(|c| c.lane == Lane::Requests).collect();
    assert!(on_requests.is_empty(), "{on_requests:#?}");
    assert_eq!(
        sale.app.store.connections_in_use(),
        requests,
        "still all taken"
    );
    assert!(reader.connections_in_use() <= BACKGROUND_POOL as usize);
    drop(busy);
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_hold_of_named_seats_that_are_taken_is_refused_from_one_read_and_one_key_record() {
    let sale = sale().await;
    let held = sale.hold(&sale.maoyan, &["A1", "A2"]).await;
    let held_a1 = held.data()["holdSeats"]["id"].clone();
    sale.app.store.commands().start();
    let refused = sale.hold(&sale.wechat, &["A2", "A3"]).await;
    assert_eq!(refused.error_code(), "SEAT_UNAVAILABLE");
    assert_eq!(refused.errors()[0]["extensions"]["seats"], json!(["A2"]));
    let read = |sent: &[boxoffice::store::SentCommand], collection: &str| {
        sent.iter()
            .filter(|c| c.collection.as_deref() == Some(collection) && c.name == "find")
            .count()
    };
    let sent = sale.app.store.commands().take();
    assert_eq!(read(&sent, "seat_inventory"), 1, "{sent:#?}");
    assert_eq!(read(&sent, "showtimes"), 0, "{sent:#?}");
    // With an idempotency key: the read, and the key recorded with its answer in one insert.
    let (status, _, refused) = hold_with_key(&sale, &sale.wechat, &["A1"], "k-taken").await;
    assert_eq!((status, code_of(&refused)), (200, "SEAT_UNAVAILABLE"));
    let sent: Vec<(String, Option<String>)> = (sale.app.store.commands().take().into_iter())
        .filter(|c| c.lane == Lane::Requests)
        .map(|c| (c.name, c.collection))
        .collect();
    let command = |name: &str, collection: &str| (name.to_owned(), Some(collection.to_owned()));
    assert_eq!(
        sent,
        [
            command("find", "seat_inventory"),
            command("insert", "idempotency_keys")
        ]
    );
    // A retry with the key gets that answer, even once the seat is free.
    let released = sale
        .app
        .graphql_as(
            &sale.maoyan,
            "mutation ($hold: ID!) { releaseHold(holdId: $hold) }",
            json!({ "hold": held_a1 }),
        )
        .await;
    assert_eq!(released.data()["releaseHold"], json!(["A1", "A2"]));
    let (_, _, replayed) = hold_with_key(&sale, &sale.wechat, &["A1"], "k-taken").await;
    assert_eq!(replayed, refused);
    // A new key for the same seat, now free, holds it.
    let (_, _, held) = hold_with_key(&sale, &sale.wechat, &["A1"], "k-free").await;
    assert_eq!(
        held["data"]["holdSeats"]["seats"][0]["label"], "A1",
        "{held:#}"
    );
    // Free seats still need the showtime (its prices, the channels that sell it).
    sale.app.store.commands().take();
    sale.hold(&sale.wechat, &["A3"]).await.data();
    let sent = sale.app.store.commands().take();
    assert_eq!(read(&sent, "showtimes"), 1, "{sent:#?}");
    sale.check_invariants().await;
}
