//! Partial cancellations under faults: a crash between the refund's writes, a stalled first
//! attempt taken over on a second gateway, a killed gateway process, a showtime cancelled at
//! the same moment. One refund per effect, each seat given back once, nothing lost.

use std::sync::Arc;
use std::time::{Duration, Instant};

use boxoffice::domain::seat::SeatState;
use boxoffice::orders;
use boxoffice::store::{CrashPoint, PausePoint};
use serde_json::{json, Value};

use crate::cancel_showtime::CANCEL_SHOWTIME;
use crate::fencing::{stalled_first_and_retry, two_gateways, LEASE};
use crate::helpers::mongodb_uri;
use crate::processes::GatewayProcess;
use crate::refunds::CANCEL_SEATS;
use crate::sale::{sale, Sale};

const ORDER: &str = "query ($id: ID!) { order(id: $id) { status refunded { amount }
    seats { label status } refunds { id seats { label } amount { amount } } } }";

impl Sale {
    async fn read_order(&self, order: &Value) -> Value {
        let read = self
            .app
            .graphql_as(&self.maoyan, ORDER, json!({ "id": order }))
            .await;
        read.data()["order"].clone()
    }

    /// The refunds of `order` as stored, without settling it.
    async fn stored_refunds(&self, order: &Value) -> (usize, bool) {
        let id = boxoffice::domain::global_id::order_id(order.as_str().unwrap()).unwrap();
        let stored = self
            .app
            .store
            .orders_by_ids(&[id])
            .await
            .unwrap()
            .pop()
            .unwrap();
        (stored.refunds.len(), stored.refunding.is_some())
    }
}

fn refunds(order: &Value) -> usize {
    order["refunds"].as_array().unwrap().len()
}

#[tokio::test]
async fn a_crash_before_the_seats_are_back_is_finished_by_the_next_read_and_the_retry() {
    let sale = sale().await;
    let order = sale.order(&sale.maoyan, &["A1", "A2"]).await;
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::CancelBeforeFree);
    let variables = json!({ "id": order, "seats": ["A2"], "key": "part-1" });
    let crashed = sale
        .app
        .graphql_as(&sale.maoyan, CANCEL_SEATS, variables.clone())
        .await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    assert_eq!(
        sale.stored_refunds(&order).await,
        (1, true),
        "recorded, under way"
    );
    assert_eq!(
        sale.states(&["A2"]).await,
        [SeatState::Sold],
        "not given back yet"
    );

    // Whoever reads the order next finishes the refund.
    let read = sale.read_order(&order).await;
    assert_eq!(read["status"], "CONFIRMED");
    assert_eq!(sale.states(&["A2"]).await, [SeatState::Available]);
    assert_eq!(sale.stored_refunds(&order).await, (1, false));

    let retried = sale
        .app
        .graphql_as(&sale.maoyan, CANCEL_SEATS, variables.clone())
        .await;
    let retried = &retried.data()["cancelOrder"];
    assert_eq!(
        refunds(retried),
        1,
        "the retry answers with the refund that was made"
    );
    assert_eq!(retried["refunded"]["amount"], 4000);
    let again = sale
        .app
        .graphql_as(&sale.maoyan, CANCEL_SEATS, variables)
        .await;
    assert_eq!(&again.data()["cancelOrder"], retried, "replayed");
    sale.check_invariants().await;
    sale.check_orders_agree_with_seats().await;
}

#[tokio::test]
async fn a_crash_after_the_seats_are_back_is_finished_by_the_reconciler() {
    let sale = sale().await;
    let order = sale.order(&sale.maoyan, &["A3", "A4", "A5"]).await;
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::CancelAfterFree);
    let variables = json!({ "id": order, "seats": ["A3", "A5"], "key": "part-2" });
    let crashed = sale
        .app
        .graphql_as(&sale.maoyan, CANCEL_SEATS, variables)
        .await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    assert_eq!(
        sale.states(&["A3", "A4", "A5"]).await,
        [SeatState::Available, SeatState::Sold, SeatState::Available]
    );
    assert_eq!(sale.stored_refunds(&order).await, (1, true));
    let settled = orders::settle_orders(&sale.app.store, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(settled, 1);
    assert_eq!(sale.stored_refunds(&order).await, (1, false));
    let read = sale.read_order(&order).await;
    assert_eq!(read["refunded"]["amount"], 8000);
    let (movie, _) = sale.projected_sales().await;
    assert_eq!(movie, (1, 1, 4000), "the figures count the one seat left");
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_stalled_first_cancellation_and_its_retry_record_one_refund() {
    let (sale, other) = two_gateways().await;
    let order = sale.order(&sale.maoyan, &["B1", "B2", "B3"]).await;
    let variables = json!({ "id": order, "seats": ["B2"], "key": "part-3" });
    let (late, retry, waited) = stalled_first_and_retry(
        &sale,
        &other,
        PausePoint::AfterClaim,
        CANCEL_SEATS,
        variables,
    )
    .await;
    assert!(
        waited >= LEASE / 2,
        "the retry waited for the lease: {waited:?}"
    );
    assert_eq!(late.data(), retry.data(), "one key, one answer");
    assert_eq!(refunds(&retry.data()["cancelOrder"]), 1);
    assert_eq!(sale.stored_refunds(&order).await, (1, false));
    sale.check_invariants().await;
    sale.check_orders_agree_with_seats().await;
}

#[tokio::test]
async fn a_cancellation_whose_gateway_was_killed_after_the_refund_is_finished_by_another() {
    let (sale, _other) = two_gateways().await;
    let order = sale.order(&sale.maoyan, &["C1", "C2", "C3", "C4"]).await;
    let mut process = GatewayProcess::start_with_env(
        &mongodb_uri(),
        sale.app.store.database_name(),
        &["--key-lease-ms", "800"],
        &[("BOXOFFICE_TEST_DELAY_AFTER_REFUND_RECORDED_MS", "60000")],
    );
    let variables = json!({ "id": order, "seats": ["C1", "C2"], "key": "part-4" });
    let request = process.post_in_background(&sale.maoyan, CANCEL_SEATS, variables.clone());
    let started = Instant::now();
    while sale.stored_refunds(&order).await != (1, true) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never recorded"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    process.kill();
    assert!(
        request.await.unwrap().is_err(),
        "the killed gateway never answered"
    );
    assert_eq!(
        sale.states(&["C1", "C2"]).await,
        [SeatState::Sold, SeatState::Sold]
    );

    // The killed process may also have died inside its sales projection's transaction, which
    // had written this order (the refund marked it `salesStale`): the order's writes then wait
    // until the server ends that transaction (5 s here), and a retry meanwhile is answered
    // UNAVAILABLE. A client retries that, with the same key, as this one does.
    let started = Instant::now();
    let retried = loop {
        let answer = sale
            .app
            .graphql_as(&sale.maoyan, CANCEL_SEATS, variables.clone())
            .await;
        if answer.0.get("errors").is_none() || answer.error_code() != "UNAVAILABLE" {
            break answer;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "still UNAVAILABLE: {answer:?}"
        );
    };
    let retried = &retried.data()["cancelOrder"];
    assert_eq!(refunds(retried), 1);
    assert_eq!(retried["refunded"]["amount"], 8000);
    assert_eq!(
        sale.states(&["C1", "C2", "C3", "C4"]).await,
        [
            SeatState::Available,
            SeatState::Available,
            SeatState::Sold,
            SeatState::Sold
        ]
    );
    sale.check_invariants().await;
    sale.check_orders_agree_with_seats().await;
}

#[tokio::test]
async fn partial_cancellations_racing_a_showtime_cancellation_refund_every_seat_once() {
    let sale = Arc::new(sale().await);
    let other = Arc::new(sale.app.another_gateway().await);
    let operator = sale.app.operator_key("ops", None).await;
    let mut orders = Vec::new();
    for seats in crate::refunds::PAIRS {
        orders.push((sale.order(&sale.maoyan, &seats).await, seats[0]));
    }
    let cancel_showtime = {
        let (sale, other) = (Arc::clone(&sale), Arc::clone(&other));
        tokio::spawn(async move {
            let input = json!({ "showtimeId": sale.showtime });
            let answer = other
                .graphql_as(&operator, CANCEL_SHOWTIME, json!({ "input": input }))
                .await;
            answer.data()["cancelShowtime"]["ordersCancelled"]
                .as_i64()
                .unwrap()
        })
    };
    let partials: Vec<_> = orders
        .iter()
        .map(|(order, seat)| {
            let (sale, variables) = (Arc::clone(&sale), json!({ "id": order, "seats": [seat] }));
            tokio::spawn(async move {
                sale.app
                    .graphql_as(&sale.maoyan, CANCEL_SEATS, variables)
                    .await
            })
        })
        .collect();
    let mut partial_refunds = 0;
    for partial in partials {
        let answer = partial.await.unwrap();
        match answer.0.get("errors") {
            None => partial_refunds += 1,
            Some(_) => assert_eq!(answer.error_code(), "BAD_USER_INPUT"),
        }
    }
    let cancelled = cancel_showtime.await.unwrap();
    assert_eq!(
        cancelled, 5,
        "the showtime cancels every order that still had seats"
    );
    let mut refund_count = 0;
    for (order, _) in &orders {
        let read = sale.read_order(order).await;
        assert_eq!(read["status"], "CANCELLED");
        assert_eq!(read["refunded"]["amount"], 8000, "refunded in full, once");
        refund_count += refunds(&read);
    }
    assert_eq!(refund_count, 5 + partial_refunds);
    assert_eq!(sale.inventory().await.counts.sold, 0);
    sale.check_invariants().await;
    assert_eq!(sale.projected_sales().await, ((0, 0, 0), (0, 0, 0)));
}
