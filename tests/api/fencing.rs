//! Idempotency keys under faults: an attempt that stalls after claiming its key, on one
//! gateway, while a retry of the same request reaches another gateway. Whatever the timing,
//! one key has one effect and one answer, and no seat is left held by a hold nobody knows.

use std::sync::Arc;
use std::time::{Duration, Instant};

use boxoffice::config::BookingArgs;
use boxoffice::domain::seat::SeatState;
use boxoffice::idempotency::KeyPolicy;
use boxoffice::store::{CrashPoint, PausePoint};
use serde_json::{json, Value};

use crate::helpers::{GqlResponse, TestApp};
use crate::sale::{sale_with_keys, Sale};

/// A short lease, so that a stalled attempt is taken over quickly.
pub(crate) const LEASE: Duration = Duration::from_millis(800);

const HOLD_BEST: &str = "mutation ($id: ID!, $key: String) { holdSeats(input: {
    showtimeId: $id, best: { count: 2 }, idempotencyKey: $key }) { id seats { label } } }";
const CONFIRM: &str = "mutation ($hold: ID!, $key: String) { confirmHold(input: {
    holdId: $hold, customer: { name: \"王五\", contact: \"13700000000\" }, idempotencyKey: $key }) {
    id status seats { label } } }";
const CANCEL: &str = "mutation ($id: ID!, $key: String) {
    cancelOrder(orderId: $id, idempotencyKey: $key) { id status } }";
const RELEASE: &str =
    "mutation ($id: ID!, $key: String) { releaseHold(holdId: $id, idempotencyKey: $key) }";
const ORDER: &str = "query ($id: ID!) { order(id: $id) { id status } }";

/// A sale on two gateways (each its own process state and fault points) with a short lease.
pub(crate) async fn two_gateways() -> (Arc<Sale>, Arc<TestApp>) {
    let keys = KeyPolicy {
        lease: LEASE,
        ..KeyPolicy::default()
    };
    let rows = ["SSSSSSSS"; 3];
    let sale = sale_with_keys(BookingArgs::default().hold_policy(), keys, &rows).await;
    let other = sale.app.another_gateway().await;
    (Arc::new(sale), Arc::new(other))
}

/// Sends `query` as maoyan through `gateway` in a task of its own.
pub(crate) fn send(
    sale: &Arc<Sale>,
    gateway: &Arc<TestApp>,
    query: &'static str,
    variables: Value,
) -> tokio::task::JoinHandle<GqlResponse> {
    let (sale, gateway) = (Arc::clone(sale), Arc::clone(gateway));
    tokio::spawn(async move { gateway.graphql_as(&sale.maoyan, query, variables).await })
}

/// The sale's own gateway, shareable with tasks.
pub(crate) fn first(sale: &Arc<Sale>) -> Arc<TestApp> {
    Arc::new(sale.app.clone())
}

/// Runs `query` with `variables` as a stalled first attempt on the first gateway (paused at
/// `point`) and, meanwhile, as a retry on the other one; resumes the first only after the
/// retry answered. Returns (first answer, retry answer, how long the retry took).
pub(crate) async fn stalled_first_and_retry(
    sale: &Arc<Sale>,
    other: &Arc<TestApp>,
    point: PausePoint,
    query: &'static str,
    variables: Value,
) -> (GqlResponse, GqlResponse, Duration) {
    let pause = sale.app.store.faults().pause_next_at(point);
    let stalled = send(sale, &first(sale), query, variables.clone());
    pause.reached().await;
    let started = Instant::now();
    let retry = other.graphql_as(&sale.maoyan, query, variables).await;
    let waited = started.elapsed();
    pause.resume();
    let late = stalled.await.unwrap();
    (late, retry, waited)
}

#[tokio::test]
async fn a_stalled_first_hold_and_its_retry_make_one_hold_and_one_answer() {
    let (sale, other) = two_gateways().await;
    let variables = json!({ "id": sale.showtime, "key": "cart-1" });
    let (late, retry, waited) =
        stalled_first_and_retry(&sale, &other, PausePoint::AfterClaim, HOLD_BEST, variables).await;
    assert!(
        waited >= LEASE / 2,
        "the retry waited for the lease: {waited:?}"
    );
    assert_eq!(late.data(), retry.data(), "one key, one answer");
    let inventory = sale.inventory().await;
    assert_eq!(inventory.holds.len(), 1, "one hold: {:?}", inventory.holds);
    assert_eq!(
        inventory.counts.held, 2,
        "no seat held by a hold nobody knows"
    );
    assert_eq!(
        inventory.fenced_holds.len(),
        1,
        "the stalled attempt's hold id is fenced off"
    );
    sale.check_invariants().await;

    // Confirming the one hold leaves nothing held: no seat is lost to sale.
    let hold = &retry.data()["holdSeats"]["id"];
    let order = sale
        .app
        .graphql_as(
            &sale.maoyan,
            CONFIRM,
            json!({ "hold": hold, "key": "pay-1" }),
        )
        .await;
    assert_eq!(order.data()["confirmHold"]["status"], "CONFIRMED");
    let inventory = sale.inventory().await;
    assert_eq!((inventory.counts.held, inventory.counts.sold), (0, 2));
    sale.check_orders_agree_with_seats().await;
}

#[tokio::test]
async fn a_slow_attempt_that_is_alive_is_never_taken_over() {
    let (sale, other) = two_gateways().await;
    let pause = sale
        .app
        .store
        .faults()
        .pause_next_at(PausePoint::BeforeEffect);
    let variables = json!({ "id": sale.showtime, "key": "cart-2" });
    let slow = send(&sale, &first(&sale), HOLD_BEST, variables.clone());
    pause.reached().await;
    let retry = send(&sale, &other, HOLD_BEST, variables);
    // Four leases go by: the slow attempt's heartbeat keeps its key, so the retry waits.
    tokio::time::sleep(LEASE * 4).await;
    assert!(
        !retry.is_finished(),
        "the retry waits while the first attempt lives"
    );
    assert_eq!(sale.inventory().await.counts.held, 0, "nothing done yet");
    pause.resume();
    let (slow, retry) = (slow.await.unwrap(), retry.await.unwrap());
    assert_eq!(
        slow.data(),
        retry.data(),
        "the retry gets the first attempt's answer"
    );
    let inventory = sale.inventory().await;
    assert_eq!(inventory.holds.len(), 1);
    assert!(inventory.fenced_holds.is_empty(), "no take-over happened");
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_stalled_first_confirm_and_its_retry_make_one_order() {
    let (sale, other) = two_gateways().await;
    let hold = sale.hold_id(&sale.maoyan, &["B3", "B4"]).await;
    let variables = json!({ "hold": hold, "key": "pay-2" });
    let (late, retry, _) =
        stalled_first_and_retry(&sale, &other, PausePoint::AfterClaim, CONFIRM, variables).await;
    assert_eq!(retry.data()["confirmHold"]["status"], "CONFIRMED");
    assert_eq!(late.data(), retry.data(), "one key, one answer");
    let confirmed = sale.check_orders_agree_with_seats().await;
    assert_eq!(confirmed.len(), 1, "one order");
    assert_eq!(sale.all_orders(&sale.maoyan).await.len(), 1);
    let inventory = sale.inventory().await;
    assert_eq!((inventory.counts.held, inventory.counts.sold), (0, 2));
    sale.check_invariants().await;
}

/// A confirmed order of maoyan for A1 and A2.
async fn confirmed_order(sale: &Sale) -> Value {
    let hold = sale.hold_id(&sale.maoyan, &["A1", "A2"]).await;
    let order = sale
        .app
        .graphql_as(&sale.maoyan, CONFIRM, json!({ "hold": hold, "key": null }))
        .await;
    order.data()["confirmHold"]["id"].clone()
}

#[tokio::test]
async fn a_stalled_first_cancel_and_its_retry_cancel_once_and_answer_alike() {
    let (sale, other) = two_gateways().await;
    let order = confirmed_order(&sale).await;
    let variables = json!({ "id": order, "key": "refund-1" });
    let (late, retry, _) =
        stalled_first_and_retry(&sale, &other, PausePoint::AfterClaim, CANCEL, variables).await;
    assert_eq!(retry.data()["cancelOrder"]["status"], "CANCELLED");
    assert_eq!(
        late.data(),
        retry.data(),
        "the late attempt answers the cancellation, not 'cancelled already'"
    );
    assert_eq!(
        sale.states(&["A1", "A2"]).await,
        [SeatState::Available, SeatState::Available]
    );
    assert!(sale.check_orders_agree_with_seats().await.is_empty());
}

#[tokio::test]
async fn a_cancel_interrupted_at_cancelling_and_retried_answers_the_cancelled_order() {
    let (sale, _other) = two_gateways().await;
    let order = confirmed_order(&sale).await;
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::CancelBeforeFree);
    let variables = json!({ "id": order, "key": "refund-2" });
    let crashed = sale
        .app
        .graphql_as(&sale.maoyan, CANCEL, variables.clone())
        .await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    // Before the retry comes, a read settles the order: the cancellation is finished.
    let read = sale
        .app
        .graphql_as(&sale.maoyan, ORDER, json!({ "id": order }))
        .await;
    assert_eq!(read.data()["order"]["status"], "CANCELLED");

    let retried = sale.app.graphql_as(&sale.maoyan, CANCEL, variables).await;
    assert_eq!(
        retried.data()["cancelOrder"],
        json!({ "id": order, "status": "CANCELLED" }),
        "the retry answers its own cancellation"
    );
    // Another request, with another key, did not cancel it: it is told so.
    let other = sale
        .app
        .graphql_as(
            &sale.maoyan,
            CANCEL,
            json!({ "id": order, "key": "refund-3" }),
        )
        .await;
    assert_eq!(other.error_code(), "BAD_USER_INPUT");
    assert!(sale.check_orders_agree_with_seats().await.is_empty());
}

#[tokio::test]
async fn a_dead_attempt_is_taken_over_within_the_lease() {
    let (sale, other) = two_gateways().await;
    // The first attempt stops right after claiming its key and never goes on: its gateway
    // died there.
    let pause = sale
        .app
        .store
        .faults()
        .pause_next_at(PausePoint::AfterClaim);
    let variables = json!({ "id": sale.showtime, "key": "cart-3" });
    let _dead = send(&sale, &first(&sale), HOLD_BEST, variables.clone());
    pause.reached().await;
    let started = Instant::now();
    let retry = other.graphql_as(&sale.maoyan, HOLD_BEST, variables).await;
    let waited = started.elapsed();
    assert_eq!(
        retry.data()["holdSeats"]["seats"].as_array().unwrap().len(),
        2
    );
    assert!(
        waited >= LEASE / 2 && waited < LEASE + Duration::from_secs(3),
        "taken over once the lease lapsed, not before and not much later: {waited:?}"
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_release_retried_after_a_crash_answers_the_released_seats() {
    let (sale, _other) = two_gateways().await;
    let hold = sale.hold_id(&sale.maoyan, &["C1", "C2"]).await;
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::ReleaseAfterFree);
    let variables = json!({ "id": hold, "key": "drop-1" });
    let crashed = sale
        .app
        .graphql_as(&sale.maoyan, RELEASE, variables.clone())
        .await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    assert_eq!(
        sale.inventory().await.counts.held,
        0,
        "released before the crash"
    );

    let retried = sale
        .app
        .graphql_as(&sale.maoyan, RELEASE, variables.clone())
        .await;
    assert_eq!(retried.data()["releaseHold"], json!(["C1", "C2"]));
    let again = sale.app.graphql_as(&sale.maoyan, RELEASE, variables).await;
    assert_eq!(again.data(), retried.data(), "replayed");
    // Without its key, a second release finds nothing to release.
    let unkeyed = sale
        .app
        .graphql_as(&sale.maoyan, RELEASE, json!({ "id": hold, "key": null }))
        .await;
    assert_eq!(unkeyed.error_code(), "NOT_FOUND");
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_hold_id_is_placed_at_most_once_and_never_once_fenced_off() {
    use boxoffice::inventory::HoldFence;
    use boxoffice::store::documents::HoldDoc;

    let (sale, _other) = two_gateways().await;
    let store = &sale.app.store;
    let now = boxoffice::store::now();
    let hold = |id, seat: &str| HoldDoc {
        id,
        channel: "maoyan".into(),
        seats: vec![seat.into()],
        kinds: vec![boxoffice::domain::seat::SeatKind::Standard],
        ticket_types: vec![boxoffice::domain::pricing::TicketType::adult()],
        amounts: vec![4000],
        created_at: now,
        expires_at: now + chrono::TimeDelta::minutes(10),
        extended_by: None,
        voucher: None,
        items: Vec::new(),
        offer: None,
    };
    let placed = boxoffice::store::new_id();
    assert!(store
        .place_hold(sale.showtime_id, &hold(placed, "A1"))
        .await
        .unwrap());
    assert!(
        !store
            .place_hold(sale.showtime_id, &hold(placed, "A2"))
            .await
            .unwrap(),
        "a second hold with a live hold's id is refused"
    );
    // Fencing off a live hold's id finds that hold instead.
    match store
        .fence_holds(sale.showtime_id, &[placed])
        .await
        .unwrap()
    {
        HoldFence::Live(live) => assert_eq!(live.seats, ["A1"]),
        other => panic!("{other:?}"),
    }
    let fenced = boxoffice::store::new_id();
    assert!(matches!(
        store
            .fence_holds(sale.showtime_id, &[fenced])
            .await
            .unwrap(),
        HoldFence::Fenced
    ));
    assert!(
        !store
            .place_hold(sale.showtime_id, &hold(fenced, "A3"))
            .await
            .unwrap(),
        "a fenced-off id is never placed"
    );
    let inventory = sale.inventory().await;
    assert_eq!((inventory.holds.len(), inventory.counts.held), (1, 1));
    sale.check_invariants().await;
}

#[tokio::test]
async fn requests_sent_twice_at_once_through_two_gateways_get_one_answer_each() {
    let (sale, other) = two_gateways().await;
    let gateway = first(&sale);
    let clients: Vec<_> = (0..12)
        .map(|n| {
            let (sale, gateway, other) =
                (Arc::clone(&sale), Arc::clone(&gateway), Arc::clone(&other));
            tokio::spawn(async move {
                let both = |query: &'static str, variables: Value| {
                    let (sale, gateway, other) = (&sale, &gateway, &other);
                    async move {
                        tokio::join!(
                            gateway.graphql_as(&sale.maoyan, query, variables.clone()),
                            other.graphql_as(&sale.maoyan, query, variables),
                        )
                    }
                };
                let hold = json!({ "id": sale.showtime, "key": format!("cart-{n}") });
                let (held, again) = both(HOLD_BEST, hold).await;
                assert_eq!(held.0, again.0, "one key, one answer");
                let Some(id) = held.0["data"]["holdSeats"]["id"].as_str() else {
                    assert_eq!(held.error_code(), "SEAT_UNAVAILABLE");
                    return 0u32;
                };
                let pay = json!({ "hold": id, "key": format!("pay-{n}") });
                let (confirmed, again) = both(CONFIRM, pay).await;
                assert_eq!(confirmed.0, again.0, "one key, one answer");
                assert_eq!(confirmed.data()["confirmHold"]["status"], "CONFIRMED");
                1
            })
        })
        .collect();
    let mut bought = 0;
    for client in clients {
        bought += client.await.unwrap();
    }
    // 24 seats for 12 pairs (fewer fit once choices leave no single seats): every pair a
    // client bought is sold once, and nothing is left held.
    assert!(bought >= 8, "bought {bought}");
    let inventory = sale.inventory().await;
    assert_eq!(
        (inventory.counts.held, inventory.counts.sold),
        (0, 2 * bought)
    );
    assert_eq!(
        sale.check_orders_agree_with_seats().await.len() as u32,
        bought
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_request_over_its_time_is_stopped_and_its_key_taken_over_at_once() {
    let limits = boxoffice::config::Limits {
        request_timeout_ms: 500,
        ..boxoffice::config::Limits::default()
    };
    let keys = KeyPolicy {
        lease: Duration::from_secs(30),
        ..KeyPolicy::default()
    };
    let app = TestApp::spawn_with_keys(limits, BookingArgs::default().hold_policy(), keys).await;
    let sale = Arc::new(crate::sale::sale_on(app, &["SSSSSSSS"; 2]).await);
    let pause = sale
        .app
        .store
        .faults()
        .pause_next_at(PausePoint::BeforeEffect);
    let variables = json!({ "id": sale.showtime, "key": "slow-1" });
    let started = Instant::now();
    let (status, body) = sale
        .app
        .post_with_authorization(
            &format!("Bearer {}", sale.maoyan),
            &json!({ "query": HOLD_BEST, "variables": variables }),
        )
        .await;
    assert_eq!(status, 504, "{body}");
    assert_eq!(body["errors"][0]["extensions"]["code"], "REQUEST_TIMEOUT");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    drop(pause);
    assert_eq!(
        sale.inventory().await.counts.held,
        0,
        "stopped before it held"
    );
    // The stopped attempt gave its key up: the retry need not wait out the 30 s lease.
    let started = Instant::now();
    let retry = sale
        .app
        .graphql_as(&sale.maoyan, HOLD_BEST, variables)
        .await;
    assert_eq!(
        retry.data()["holdSeats"]["seats"].as_array().unwrap().len(),
        2
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_stalled_first_release_and_its_retry_release_once_and_answer_alike() {
    let (sale, other) = two_gateways().await;
    let hold = sale.hold_id(&sale.maoyan, &["C3", "C4"]).await;
    let variables = json!({ "id": hold, "key": "drop-2" });
    let (late, retry, _) =
        stalled_first_and_retry(&sale, &other, PausePoint::AfterClaim, RELEASE, variables).await;
    assert_eq!(retry.data()["releaseHold"], json!(["C3", "C4"]));
    assert_eq!(late.data(), retry.data(), "one key, one answer");
    let inventory = sale.inventory().await;
    assert_eq!(inventory.counts.held, 0);
    assert!(inventory.released_holds.is_empty(), "the note was dropped");
    sale.check_invariants().await;
}
