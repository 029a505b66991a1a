//! Invariant 6 across crashes: a gateway that dies between an order's two writes leaves an
//! order the inventory settles. Each test stops a booking at one crash point (a test hook),
//! then recovers the way production does: a retry, a read, or the reconciler.

use std::time::Duration;

use boxoffice::domain::seat::SeatState;
use boxoffice::orders;
use boxoffice::store::CrashPoint;
use serde_json::{json, Value};

use crate::orders::{CANCEL, CONFIRM};
use crate::sale::{sale, Sale};

const CONFIRM_WITH_KEY: &str = "mutation ($hold: ID!, $key: String) { confirmHold(input: {
    holdId: $hold, customer: { name: \"张三\", contact: \"13800000000\" }, idempotencyKey: $key }) {
    id status seats { label } } }";
const ORDER: &str = "query ($id: ID!) { order(id: $id) { id status } }";

impl Sale {
    /// Arms `point`, then confirms a fresh hold of B5 and B6 with idempotency key `key`; the
    /// confirmation must stop there.
    async fn confirm_crashing_at(&self, point: CrashPoint, key: &str) -> Value {
        let hold = self.hold_id(&self.maoyan, &["B5", "B6"]).await;
        self.app.store.faults().crash_next_at(point);
        let crashed = self
            .app
            .graphql_as(
                &self.maoyan,
                CONFIRM_WITH_KEY,
                json!({ "hold": hold, "key": key }),
            )
            .await;
        assert_eq!(crashed.error_code(), "INTERNAL");
        hold
    }

    /// The reconciler's pass, with no grace period.
    async fn reconcile(&self) -> usize {
        orders::settle_orders(&self.app.store, Duration::ZERO)
            .await
            .unwrap()
    }
}

#[tokio::test]
async fn a_crash_before_the_seats_are_sold_leaves_the_hold_live_and_no_order() {
    let sale = sale().await;
    let hold = sale
        .confirm_crashing_at(CrashPoint::ConfirmBeforeSell, "k1")
        .await;
    assert_eq!(
        sale.states(&["B5", "B6"]).await,
        [SeatState::Held, SeatState::Held]
    );
    assert!(sale.check_orders_agree_with_seats().await.is_empty());
    // The reconciler leaves the PENDING order alone while its hold is live: a retry may
    // still complete it.
    assert_eq!(sale.reconcile().await, 1);
    assert_eq!(sale.reconcile().await, 1, "still there");
    // The failed attempt gave its key up (its lease ended), so a retry need not wait for it.
    let record = sale
        .app
        .store
        .key_state::<Value>("maoyan:k1")
        .await
        .unwrap()
        .unwrap();
    assert!(
        record.lease_until.timestamp_millis() == 0 && record.outcome.is_none(),
        "{record:?}"
    );

    // The retry with the same key takes the key over at once and completes that order.
    let retried = sale
        .app
        .graphql_as(
            &sale.maoyan,
            CONFIRM_WITH_KEY,
            json!({ "hold": hold, "key": "k1" }),
        )
        .await;
    let order = &retried.data()["confirmHold"];
    assert_eq!(order["status"], "CONFIRMED");
    let confirmed = sale.check_orders_agree_with_seats().await;
    assert_eq!(confirmed.len(), 1);
    assert!(confirmed.contains_key(order["id"].as_str().unwrap()));
    assert_eq!(sale.reconcile().await, 0, "nothing left to settle");
}

#[tokio::test]
async fn a_pending_order_whose_hold_is_gone_is_discarded() {
    let sale = sale().await;
    let hold = sale
        .confirm_crashing_at(CrashPoint::ConfirmBeforeSell, "k1")
        .await;
    // The customer gives up: the hold is released, so the sale can never happen.
    let released = sale
        .app
        .graphql_as(
            &sale.maoyan,
            "mutation ($id: ID!) { releaseHold(holdId: $id) }",
            json!({ "id": hold }),
        )
        .await;
    assert_eq!(released.data()["releaseHold"], json!(["B5", "B6"]));
    assert_eq!(sale.reconcile().await, 1);
    assert_eq!(sale.reconcile().await, 0, "discarded");
    assert!(sale.all_orders(&sale.maoyan).await.is_empty());
    assert_eq!(
        sale.states(&["B5", "B6"]).await,
        [SeatState::Available, SeatState::Available]
    );
}

#[tokio::test]
async fn a_crash_after_the_seats_are_sold_is_settled_into_a_confirmed_order() {
    let sale = sale().await;
    sale.confirm_crashing_at(CrashPoint::ConfirmAfterSell, "k1")
        .await;
    // The seats are sold; the order is not shown until it is settled.
    assert_eq!(
        sale.states(&["B5", "B6"]).await,
        [SeatState::Sold, SeatState::Sold]
    );
    assert!(sale.all_orders(&sale.maoyan).await.is_empty());
    assert_eq!(sale.reconcile().await, 1);
    let confirmed = sale.check_orders_agree_with_seats().await;
    assert_eq!(confirmed.len(), 1, "the reconciler confirmed it");
    assert_eq!(sale.reconcile().await, 0);
}

#[tokio::test]
async fn a_retry_after_a_crash_after_the_sale_returns_the_order_that_was_made() {
    let sale = sale().await;
    let hold = sale
        .confirm_crashing_at(CrashPoint::ConfirmAfterSell, "k1")
        .await;
    let retried = sale
        .app
        .graphql_as(
            &sale.maoyan,
            CONFIRM_WITH_KEY,
            json!({ "hold": hold, "key": "k1" }),
        )
        .await;
    let order = &retried.data()["confirmHold"];
    assert_eq!(order["status"], "CONFIRMED");
    assert_eq!(
        order["seats"],
        json!([{ "label": "B5" }, { "label": "B6" }])
    );
    let confirmed = sale.check_orders_agree_with_seats().await;
    assert_eq!(
        confirmed.keys().collect::<Vec<_>>(),
        [order["id"].as_str().unwrap()]
    );
    // A retry without the key finds no live hold: the seats were sold once.
    let again = sale.confirm(&sale.maoyan, &hold).await;
    assert_eq!(again.error_code(), "NOT_FOUND");
}

/// Arms `point`, then cancels `order`; the cancellation must stop there.
async fn cancel_crashing_at(sale: &Sale, point: CrashPoint, order: &Value) {
    sale.app.store.faults().crash_next_at(point);
    let crashed = sale
        .app
        .graphql_as(&sale.maoyan, CANCEL, json!({ "id": order }))
        .await;
    assert_eq!(crashed.error_code(), "INTERNAL");
}

async fn confirmed_order(sale: &Sale) -> Value {
    let hold = sale.hold_id(&sale.maoyan, &["A1", "A2"]).await;
    let order = sale
        .app
        .graphql_as(&sale.maoyan, CONFIRM, json!({ "hold": hold }))
        .await;
    order.data()["confirmHold"]["id"].clone()
}

#[tokio::test]
async fn a_crash_mid_cancel_is_finished_by_the_next_read() {
    let sale = sale().await;
    let order = confirmed_order(&sale).await;
    cancel_crashing_at(&sale, CrashPoint::CancelBeforeFree, &order).await;
    assert_eq!(
        sale.states(&["A1", "A2"]).await,
        [SeatState::Sold, SeatState::Sold],
        "the cancellation was accepted, the seats not given back yet"
    );
    let read = sale
        .app
        .graphql_as(&sale.maoyan, ORDER, json!({ "id": order }))
        .await;
    assert_eq!(read.data()["order"]["status"], "CANCELLED");
    assert_eq!(
        sale.states(&["A1", "A2"]).await,
        [SeatState::Available, SeatState::Available]
    );
    assert!(sale.check_orders_agree_with_seats().await.is_empty());
}

#[tokio::test]
async fn a_crash_after_the_seats_are_given_back_is_finished_by_a_retry_or_the_reconciler() {
    let sale = sale().await;
    for retry in [true, false] {
        let order = confirmed_order(&sale).await;
        cancel_crashing_at(&sale, CrashPoint::CancelAfterFree, &order).await;
        assert_eq!(
            sale.states(&["A1", "A2"]).await,
            [SeatState::Available, SeatState::Available]
        );
        if retry {
            let retried = sale
                .app
                .graphql_as(&sale.maoyan, CANCEL, json!({ "id": order }))
                .await;
            assert_eq!(retried.data()["cancelOrder"]["status"], "CANCELLED");
        } else {
            assert_eq!(sale.reconcile().await, 1);
        }
        assert_eq!(sale.reconcile().await, 0, "nothing left to settle");
        let orders = sale.all_orders(&sale.maoyan).await;
        assert!(
            orders.iter().all(|o| o["status"] == "CANCELLED"),
            "{orders:?}"
        );
        assert!(sale.check_orders_agree_with_seats().await.is_empty());
    }
}
