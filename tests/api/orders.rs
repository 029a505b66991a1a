//! Confirming holds into orders, cancelling them, and invariant 6 across a crash.

use std::sync::Arc;
use std::time::Duration;

use boxoffice::domain::seat::SeatState;
use boxoffice::holds::rules::HoldPolicy;
use serde_json::{json, Value};

use crate::sale::{sale, sale_with, Sale};

pub const CONFIRM: &str = "mutation ($hold: ID!) { confirmHold(input: {
    holdId: $hold, customer: { name: \"张三\", contact: \"13800000000\" } }) {
    id status channel total { amount } seats { label price { amount } }
    showtime { movieTitle cinemaName hallName } customer { name contact } } }";
pub const CANCEL: &str =
    "mutation ($id: ID!) { cancelOrder(orderId: $id) { id status cancelledAt } }";
const ORDERS: &str = "query ($after: String) { orders(first: 2, after: $after) {
    edges { node { id status } } pageInfo { hasNextPage endCursor } } }";

impl Sale {
    pub async fn hold_id(&self, key: &str, seats: &[&str]) -> Value {
        self.hold(key, seats).await.data()["holdSeats"]["id"].clone()
    }

    pub async fn confirm(&self, key: &str, hold: &Value) -> crate::helpers::GqlResponse {
        self.app
            .graphql_as(key, CONFIRM, json!({ "hold": hold }))
            .await
    }
}

#[tokio::test]
async fn a_confirmed_hold_becomes_an_order_with_a_snapshot() {
    let sale = sale().await;
    let hold = sale.hold_id(&sale.maoyan, &["A1", "A2"]).await;
    let response = sale.confirm(&sale.maoyan, &hold).await;
    let order = &response.data()["confirmHold"];
    assert_eq!(order["status"], "CONFIRMED");
    assert_eq!(order["total"]["amount"], 8000);
    assert_eq!(
        order["seats"][1],
        json!({ "label": "A2", "price": { "amount": 4000 } })
    );
    assert_eq!(
        order["showtime"],
        json!({ "movieTitle": "电影", "cinemaName": "影城", "hallName": "1号厅" })
    );
    assert_eq!(order["customer"]["name"], "张三");
    assert_eq!(
        sale.states(&["A1", "A2"]).await,
        [SeatState::Sold, SeatState::Sold]
    );
    let inventory = sale.inventory().await;
    assert_eq!((inventory.counts.held, inventory.counts.sold), (0, 2));
    assert!(inventory.holds.is_empty());

    // Confirming again finds no live hold.
    let again = sale.confirm(&sale.maoyan, &hold).await;
    assert_eq!(again.error_code(), "NOT_FOUND");
}

#[tokio::test]
async fn channels_see_and_change_only_their_own_holds_and_orders() {
    let sale = sale().await;
    let hold = sale.hold_id(&sale.maoyan, &["B1"]).await;
    let by_other = sale.confirm(&sale.wechat, &hold).await;
    assert_eq!(by_other.error_code(), "NOT_FOUND");
    assert_eq!(sale.states(&["B1"]).await, [SeatState::Held]);
    let anonymous = sale.app.graphql(CONFIRM, json!({ "hold": hold })).await;
    assert_eq!(anonymous.error_code(), "UNAUTHENTICATED");

    let order = sale.confirm(&sale.maoyan, &hold).await.data()["confirmHold"]["id"].clone();
    let read = "query ($id: ID!) { order(id: $id) { id } }";
    let theirs = sale
        .app
        .graphql_as(&sale.wechat, read, json!({ "id": order }))
        .await;
    assert_eq!(theirs.error_code(), "NOT_FOUND");
    let cancel = sale
        .app
        .graphql_as(&sale.wechat, CANCEL, json!({ "id": order }))
        .await;
    assert_eq!(cancel.error_code(), "NOT_FOUND");
    let wechat_orders = sale.app.graphql_as(&sale.wechat, ORDERS, json!({})).await;
    assert!(wechat_orders.data()["orders"]["edges"]
        .as_array()
        .unwrap()
        .is_empty());
    let mine = sale
        .app
        .graphql_as(&sale.maoyan, read, json!({ "id": order }))
        .await;
    assert_eq!(mine.data()["order"]["id"], order);
}

#[tokio::test]
async fn cancelling_gives_the_seats_back_once() {
    let sale = sale().await;
    let hold = sale.hold_id(&sale.maoyan, &["C1", "C2"]).await;
    let order = sale.confirm(&sale.maoyan, &hold).await.data()["confirmHold"]["id"].clone();
    let cancelled = sale
        .app
        .graphql_as(&sale.maoyan, CANCEL, json!({ "id": order }))
        .await;
    let cancelled = &cancelled.data()["cancelOrder"];
    assert_eq!(cancelled["status"], "CANCELLED");
    assert!(cancelled["cancelledAt"].is_string());
    assert_eq!(
        sale.states(&["C1", "C2"]).await,
        [SeatState::Available, SeatState::Available]
    );
    assert_eq!(sale.inventory().await.counts.sold, 0);
    let again = sale
        .app
        .graphql_as(&sale.maoyan, CANCEL, json!({ "id": order }))
        .await;
    assert_eq!(again.error_code(), "BAD_USER_INPUT");
    assert!(again.error_message().contains("cancelled already"));
    // The seats sell again.
    let hold = sale.hold_id(&sale.wechat, &["C1", "C2"]).await;
    sale.confirm(&sale.wechat, &hold).await.data();
}

#[tokio::test]
async fn a_channel_lists_its_orders_newest_first() {
    let sale = sale().await;
    let mut ids = Vec::new();
    for seat in ["A1", "A2", "A3"] {
        let hold = sale.hold_id(&sale.maoyan, &[seat]).await;
        ids.push(sale.confirm(&sale.maoyan, &hold).await.data()["confirmHold"]["id"].clone());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let first = sale.app.graphql_as(&sale.maoyan, ORDERS, json!({})).await;
    let first = &first.data()["orders"];
    let rest = sale
        .app
        .graphql_as(
            &sale.maoyan,
            ORDERS,
            json!({ "after": first["pageInfo"]["endCursor"] }),
        )
        .await;
    let listed: Vec<Value> = [first, &rest.data()["orders"]]
        .iter()
        .flat_map(|c| {
            c["edges"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["node"]["id"].clone())
        })
        .collect();
    ids.reverse();
    assert_eq!(listed, ids);
    let anonymous = sale.app.graphql(ORDERS, json!({})).await;
    assert_eq!(anonymous.error_code(), "UNAUTHENTICATED");
}

#[tokio::test]
async fn an_expired_hold_can_never_be_confirmed() {
    let sale = sale_with(HoldPolicy {
        max_seats: 6,
        ttl: Duration::from_secs(1),
        extension: Duration::from_secs(300),
    })
    .await;
    let hold = sale.hold_id(&sale.maoyan, &["A1"]).await;
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let late = sale.confirm(&sale.maoyan, &hold).await;
    assert_eq!(late.error_code(), "HOLD_EXPIRED");
    // Another channel takes the seat over; the old hold stays unconfirmable.
    let other = sale.hold_id(&sale.wechat, &["A1"]).await;
    assert_eq!(
        sale.confirm(&sale.maoyan, &hold).await.error_code(),
        "HOLD_EXPIRED"
    );
    sale.confirm(&sale.wechat, &other).await.data();
    assert_eq!(sale.states(&["A1"]).await, [SeatState::Sold]);
}

#[tokio::test]
async fn confirms_racing_the_expiry_either_sell_before_it_or_fail_after_it() {
    let sale = Arc::new(
        sale_with(HoldPolicy {
            max_seats: 6,
            ttl: Duration::from_millis(800),
            extension: Duration::from_secs(300),
        })
        .await,
    );
    let seats = ["A1", "A2", "A3", "A4", "A5", "A6", "B1", "B2", "B3", "B5"];
    let mut holds = Vec::new();
    for seat in seats {
        holds.push((seat, sale.hold_id(&sale.maoyan, &[seat]).await));
    }
    // Confirms spread around the expiry instant, racing holds of another channel that take the
    // seats over as soon as they are free.
    let tasks: Vec<_> = holds
        .into_iter()
        .enumerate()
        .map(|(i, (seat, hold))| {
            let sale = Arc::clone(&sale);
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(600 + 40 * i as u64)).await;
                let wanted = [seat];
                let (confirm, rival) = tokio::join!(
                    sale.confirm(&sale.maoyan, &hold),
                    sale.hold(&sale.wechat, &wanted)
                );
                let confirmed = confirm.0.get("errors").is_none();
                if !confirmed {
                    assert_eq!(confirm.error_code(), "HOLD_EXPIRED", "{seat}");
                }
                let rival_won = rival.0.get("errors").is_none();
                assert!(
                    !(confirmed && rival_won),
                    "{seat} was both sold and held again"
                );
                (seat, confirmed, rival_won)
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(task.await.unwrap());
    }
    let seats_now = sale.check_invariants().await;
    for (seat, confirmed, rival_won) in outcomes {
        let state = seats_now.iter().find(|(label, _)| label == seat).unwrap().1;
        match (confirmed, rival_won) {
            (true, false) => assert_eq!(state, SeatState::Sold, "{seat}"),
            (false, true) => assert_eq!(state, SeatState::Held, "{seat}"),
            (false, false) => assert_ne!(state, SeatState::Sold, "{seat}"),
            (true, true) => unreachable!(),
        }
    }
}
