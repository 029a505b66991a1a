//! Admission under races and faults: scanners racing on two gateways, cancellations racing
//! admissions, a stalled first attempt taken over, a crash after the write, a killed gateway
//! process, a frozen database. A ticket is admitted at most once, an admitted seat is never
//! given back, and every refund and figure stays exact.

use std::sync::Arc;
use std::time::{Duration, Instant};

use boxoffice::domain::seat::SeatState;
use boxoffice::store::{CrashPoint, PausePoint};
use futures::future::join_all;
use serde_json::{json, Value};

use crate::admissions::{admit, codes, door, operator, starting_in, Door, ADMIT};
use crate::fencing::{two_gateways, LEASE};
use crate::helpers::{mongodb_uri, GqlResponse, TestApp};
use crate::processes::GatewayProcess;
use crate::refunds::PAIRS;
use crate::sale::Sale;

/// Two gateways over a sale starting in 30 minutes, two doors of its cinema.
async fn doors_on_two_gateways() -> (Arc<Sale>, Arc<TestApp>, Door, Door) {
    let (sale, other) = two_gateways().await;
    starting_in(&sale, 30).await;
    let operator = operator(&sale).await;
    let north = door(&sale, &operator, "North").await;
    let south = door(&sale, &operator, "South").await;
    (sale, other, north, south)
}

/// The answer's code: "ADMITTED" for a ticket let in.
fn outcome(response: &GqlResponse) -> String {
    match response.0.get("errors") {
        None => "ADMITTED".to_owned(),
        Some(_) => response.error_code().to_owned(),
    }
}

#[tokio::test]
async fn scanners_racing_on_two_gateways_admit_each_ticket_once() {
    let (sale, other, north, south) = doors_on_two_gateways().await;
    let gateways = [Arc::new(sale.app.clone()), other];
    let order = sale.order(&sale.maoyan, &["A1", "A2", "A3"]).await;
    let tickets = codes(&sale, &order).await;
    for (round, (_, code)) in tickets.iter().enumerate() {
        let scans = (0..16).map(|i| {
            let gateway = Arc::clone(&gateways[i % 2]);
            let key = if i % 4 < 2 { &north.key } else { &south.key }.clone();
            let code = code.clone();
            // Half the scans carry a key of their own (a retrying scanner would reuse it).
            let idempotency = (i % 3 == 0).then(|| format!("scan-{round}-{i}"));
            async move { admit(&gateway, &key, &code, idempotency.as_deref()).await }
        });
        let answers: Vec<GqlResponse> = join_all(scans).await;
        let outcomes: Vec<String> = answers.iter().map(outcome).collect();
        let admitted = outcomes.iter().filter(|o| *o == "ADMITTED").count();
        let already = outcomes.iter().filter(|o| *o == "ALREADY_ADMITTED").count();
        assert_eq!((admitted, already), (1, 15), "{outcomes:?}");
        // Every refusal names the one admission.
        let winner = answers.iter().find(|a| outcome(a) == "ADMITTED").unwrap();
        let winner = &winner.data()["admitTicket"];
        for refused in answers.iter().filter(|a| outcome(a) != "ADMITTED") {
            let extensions = &refused.errors()[0]["extensions"];
            assert_eq!(extensions["admittedAt"], winner["admittedAt"]);
            assert_eq!(extensions["door"], winner["door"]);
        }
        assert_eq!(sale.inventory().await.admitted, round as i32 + 1);
    }
    sale.check_invariants().await;
}

#[tokio::test]
async fn cancellations_racing_admissions_never_give_back_an_admitted_seat() {
    let (sale, other, north, _) = doors_on_two_gateways().await;
    let mut orders = Vec::new();
    for pair in PAIRS {
        let order = sale.order(&sale.maoyan, &pair).await;
        let tickets = codes(&sale, &order).await;
        orders.push((order, tickets));
    }
    let other = &other;
    let races = orders.iter().enumerate().map(|(i, (order, tickets))| {
        let (sale, north) = (&sale, &north);
        async move {
            // The first seat is scanned and cancelled at once; the second cancelled, or the
            // whole order, on alternate orders.
            let seats: Option<&[&str]> = if i % 2 == 0 {
                Some(&[PAIRS[i][0]])
            } else {
                None
            };
            let (scan, cancel) = tokio::join!(
                admit(other, &north.key, &tickets[0].1, None),
                sale.cancel_seats(order, seats)
            );
            (outcome(&scan), cancel)
        }
    });
    let results = join_all(races).await;
    for (i, (scan, cancel)) in results.iter().enumerate() {
        let seat = PAIRS[i][0];
        let state = sale.states(&[seat]).await[0];
        let admitted = sale
            .inventory()
            .await
            .seat(seat)
            .unwrap()
            .admitted
            .is_some();
        match scan.as_str() {
            "ADMITTED" => {
                assert_eq!(cancel.error_code(), "REFUND_NOT_ALLOWED", "order {i}");
                assert_eq!((state, admitted), (SeatState::Sold, true), "order {i}");
            }
            "TICKET_CANCELLED" => {
                assert!(
                    cancel.0.get("errors").is_none(),
                    "order {i}: {:?}",
                    cancel.0
                );
                assert_eq!(
                    (state, admitted),
                    (SeatState::Available, false),
                    "order {i}"
                );
            }
            other => panic!("order {i}: {other}"),
        }
    }
    sale.check_invariants().await;
    sale.check_orders_agree_with_seats().await;
    let (movie, cinema) = sale.projected_sales().await;
    assert_eq!(movie, cinema);
    assert_eq!(
        movie,
        sale.orders_figures().await,
        "the figures agree with the orders"
    );
}

#[tokio::test]
async fn an_admission_overtaking_a_slow_cancellation_takes_its_refund_back() {
    let (sale, other, north, _) = doors_on_two_gateways().await;
    let order = sale.order(&sale.maoyan, &["B1", "B2"]).await;
    let tickets = codes(&sale, &order).await;
    let pause = sale
        .app
        .store
        .faults()
        .pause_next_at(PausePoint::RefundAfterRecord);
    let cancelling = {
        let (sale, order) = (Arc::clone(&sale), order.clone());
        tokio::spawn(async move { sale.cancel_seats(&order, None).await })
    };
    pause.reached().await;
    // The refund is recorded, the seats are still sold: the ticket admits.
    let scan = admit(&other, &north.key, &tickets[1].1, None).await;
    assert_eq!(scan.data()["admitTicket"]["seat"], "B2");
    pause.resume();
    let cancel = cancelling.await.unwrap();
    assert_eq!(cancel.error_code(), "REFUND_NOT_ALLOWED");
    let read = sale
        .app
        .graphql_as(
            &sale.maoyan,
            "query ($id: ID!) { order(id: $id) { status refunded { amount } refunds { id }
                seats { label status } } }",
            json!({ "id": order }),
        )
        .await;
    assert_eq!(
        read.data()["order"],
        json!({ "status": "CONFIRMED", "refunded": { "amount": 0 }, "refunds": [],
                "seats": [{ "label": "B1", "status": "SOLD" }, { "label": "B2", "status": "SOLD" }] })
    );
    assert_eq!(
        sale.states(&["B1", "B2"]).await,
        [SeatState::Sold, SeatState::Sold]
    );
    sale.check_invariants().await;
    sale.check_orders_agree_with_seats().await;
    let (movie, _) = sale.projected_sales().await;
    assert_eq!(movie, sale.orders_figures().await);
    // The seat not admitted can still be cancelled.
    sale.cancel_seats(&order, Some(&["B1"])).await.data();
}

#[tokio::test]
async fn a_stalled_first_scan_and_its_retry_on_another_gateway_admit_once_and_answer_alike() {
    let (sale, other, north, _) = doors_on_two_gateways().await;
    let order = sale.order(&sale.maoyan, &["C1"]).await;
    let code = codes(&sale, &order).await.remove(0).1;
    let variables = json!({ "code": code, "key": "door-scan-1" });
    let pause = sale
        .app
        .store
        .faults()
        .pause_next_at(PausePoint::AfterClaim);
    let stalled = {
        let (app, key, variables) = (sale.app.clone(), north.key.clone(), variables.clone());
        tokio::spawn(async move { app.graphql_as(&key, ADMIT, variables).await })
    };
    pause.reached().await;
    let started = Instant::now();
    let retry = other.graphql_as(&north.key, ADMIT, variables).await;
    assert!(
        started.elapsed() >= LEASE / 2,
        "the retry waited for the lease"
    );
    pause.resume();
    let late = stalled.await.unwrap();
    assert_eq!(late.data(), retry.data(), "one key, one answer");
    assert_eq!(sale.inventory().await.admitted, 1, "admitted once");
}

#[tokio::test]
async fn a_scan_retried_after_a_crash_answers_the_admission_that_was_made() {
    let (sale, _other, north, _) = doors_on_two_gateways().await;
    let order = sale.order(&sale.maoyan, &["C2"]).await;
    let code = codes(&sale, &order).await.remove(0).1;
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::AdmitAfterWrite);
    let crashed = admit(&sale.app, &north.key, &code, Some("door-scan-2")).await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    let admitted = sale.inventory().await.seat("C2").unwrap().admitted.clone();
    let admitted = admitted.expect("written before the crash");
    let retried = admit(&sale.app, &north.key, &code, Some("door-scan-2")).await;
    let retried = &retried.data()["admitTicket"];
    assert_eq!(retried["door"], "North");
    assert_eq!(
        crate::hold_extension::time(&retried["admittedAt"]),
        admitted.at,
        "the admission that was made, not a second one"
    );
    // Without the key it is another scan.
    let unkeyed = admit(&sale.app, &north.key, &code, None).await;
    assert_eq!(unkeyed.error_code(), "ALREADY_ADMITTED");
    assert_eq!(sale.inventory().await.admitted, 1);
}

#[tokio::test]
async fn a_scan_whose_gateway_was_killed_after_the_write_is_answered_by_another() {
    let (sale, _other, north, _) = doors_on_two_gateways().await;
    let order = sale.order(&sale.maoyan, &["C3"]).await;
    let code = codes(&sale, &order).await.remove(0).1;
    let mut process = GatewayProcess::start_with_env(
        &mongodb_uri(),
        sale.app.store.database_name(),
        &["--key-lease-ms", "800"],
        &[("BOXOFFICE_TEST_DELAY_AFTER_ADMIT_MS", "60000")],
    );
    let variables = json!({ "code": code, "key": "door-scan-3" });
    let request = process.post_in_background(&north.key, ADMIT, variables.clone());
    let started = Instant::now();
    while sale.inventory().await.admitted == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never admitted"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    process.kill();
    assert!(
        request.await.unwrap().is_err(),
        "the killed gateway never answered"
    );
    let retried = sale.app.graphql_as(&north.key, ADMIT, variables).await;
    assert_eq!(retried.data()["admitTicket"]["seat"], "C3");
    assert_eq!(sale.inventory().await.admitted, 1, "admitted once");
}

/// Sends `variables` to `ADMIT` as door `key` until it answers without UNAVAILABLE.
pub async fn admit_until_up(app: &TestApp, key: &str, variables: &Value) -> GqlResponse {
    for _ in 0..100 {
        let answer = app.graphql_as(key, ADMIT, variables.clone()).await;
        if answer.0.get("errors").is_none() || answer.error_code() != "UNAVAILABLE" {
            return answer;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the database never came back");
}
