//! Cancelling some seats of an order, or all of them: the seats go back to sale, a refund is
//! recorded once (on the order and in the audit log) under the cinema's refund policy, and the
//! order's total, refunds and the sales figures agree, also after races.

use std::sync::Arc;

use boxoffice::domain::seat::SeatState;
use boxoffice::sales;
use serde_json::{json, Value};

use crate::helpers::{nodes, GqlResponse};
use crate::sale::{sale, Sale};

pub const CANCEL_SEATS: &str = "mutation ($id: ID!, $seats: [String!], $key: String) {
    cancelOrder(orderId: $id, seats: $seats, idempotencyKey: $key) {
    id status total { amount } refunded { amount } net { amount }
    seats { label status price { amount } }
    refunds { id seats { label amount { amount } } amount { amount } fee { amount }
              reason by idempotencyKey } } }";
/// Five pairs of seats of the sale's hall, for five two-seat orders.
pub const PAIRS: [[&str; 2]; 5] = [
    ["A1", "A2"],
    ["A3", "A4"],
    ["A5", "A6"],
    ["B1", "B2"],
    ["B5", "B6"],
];
const ORDER: &str = "query ($id: ID!) { order(id: $id) { status refunded { amount }
    seats { label status } refunds { id seats { label } amount { amount } } } }";
const MOVIE_SALES: &str = "query ($id: ID!) { showtime(id: $id) {
    movie { sales { ticketsSold orders revenue { amount } } }
    cinema { hourlySales { edges { node { sales { ticketsSold orders revenue { amount } } } } } } } }";
const UPDATE_CINEMA: &str = "mutation ($input: UpdateCinemaInput!) {
    updateCinema(input: $input) { refundPolicy { cutoffMinutes feePerSeat { amount } } } }";
const AUDIT: &str = "query ($operator: String) { auditLog(operator: $operator, first: 50) {
    edges { node { operator operation subject after } } } }";

impl Sale {
    pub async fn cancel_seats(&self, order: &Value, seats: Option<&[&str]>) -> GqlResponse {
        self.app
            .graphql_as(
                &self.maoyan,
                CANCEL_SEATS,
                json!({ "id": order, "seats": seats, "key": null }),
            )
            .await
    }

    /// The movie's figures and the sum of the cinema's buckets, after a projection:
    /// (tickets, orders, revenue) twice.
    pub async fn projected_sales(&self) -> ((i64, i64, i64), (i64, i64, i64)) {
        sales::project_sales(&self.app.store).await.unwrap();
        let read = self
            .app
            .graphql(MOVIE_SALES, json!({ "id": self.showtime }))
            .await;
        let figure = |sales: &Value| {
            (
                sales["ticketsSold"].as_i64().unwrap(),
                sales["orders"].as_i64().unwrap(),
                sales["revenue"]["amount"].as_i64().unwrap(),
            )
        };
        let showtime = &read.data()["showtime"];
        let movie = figure(&showtime["movie"]["sales"]);
        let buckets = nodes(&showtime["cinema"]["hourlySales"])
            .iter()
            .map(|bucket| figure(&bucket["sales"]))
            .fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
        (movie, buckets)
    }

    /// Every order's (live seats, net) summed, from the orders themselves.
    pub async fn orders_figures(&self) -> (i64, i64, i64) {
        let mut sum = (0, 0, 0);
        for key in [&self.maoyan, &self.wechat] {
            for order in self.all_orders(key).await {
                let read = self
                    .app
                    .graphql_as(key, ORDER_FIGURES, json!({ "id": order["id"] }))
                    .await;
                let order = &read.data()["order"];
                let live = order["status"] == "CONFIRMED";
                let seats = order["seats"].as_array().unwrap();
                sum.0 += seats.iter().filter(|s| s["status"] == "SOLD").count() as i64;
                sum.1 += i64::from(live);
                sum.2 += order["net"]["amount"].as_i64().unwrap();
            }
        }
        sum
    }

    async fn set_refund_policy(&self, operator: &str, cutoff: i64, fee: i64) -> GqlResponse {
        let input = json!({ "cinemaId": self.cinema,
            "refundPolicy": { "cutoffMinutes": cutoff, "feePerSeat": fee } });
        self.app
            .graphql_as(operator, UPDATE_CINEMA, json!({ "input": input }))
            .await
    }
}

const ORDER_FIGURES: &str = "query ($id: ID!) { order(id: $id) {
    status net { amount } seats { status } } }";

fn statuses(order: &Value) -> Vec<(String, String)> {
    order["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| {
            (
                seat["label"].as_str().unwrap().to_owned(),
                seat["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[tokio::test]
async fn a_partial_cancellation_gives_seats_back_and_records_one_refund() {
    let sale = sale().await;
    let order = sale.order(&sale.maoyan, &["A1", "A2", "A3"]).await;
    assert_eq!(sale.projected_sales().await.0, (3, 1, 12000));

    sale.app.store.commands().start();
    let cancelled = sale.cancel_seats(&order, Some(&["A2"])).await;
    let sent = crate::round_trips::names(&sale.app.store.commands().take());
    assert_eq!(
        sent,
        [
            "find cinemas",
            "find orders",
            "findAndModify seat_inventory",
            "insert audit_log",
            "update orders",
            "update orders",
        ],
        "the order and its cinema read, one update of the order, one of the seats, the \
         audit entry, the refund marked done"
    );
    let cancelled = &cancelled.data()["cancelOrder"];
    assert_eq!(cancelled["status"], "CONFIRMED", "it keeps its other seats");
    assert_eq!(
        statuses(cancelled),
        pairs(&[("A1", "SOLD"), ("A2", "CANCELLED"), ("A3", "SOLD")])
    );
    assert_eq!(
        (
            &cancelled["total"]["amount"],
            &cancelled["refunded"]["amount"],
            &cancelled["net"]["amount"]
        ),
        (&json!(12000), &json!(4000), &json!(8000))
    );
    let refund = &cancelled["refunds"][0];
    assert_eq!(
        refund["seats"],
        json!([{ "label": "A2", "amount": { "amount": 4000 } }])
    );
    assert_eq!(
        (
            &refund["amount"]["amount"],
            &refund["fee"]["amount"],
            &refund["reason"],
            &refund["by"]
        ),
        (
            &json!(4000),
            &json!(0),
            &json!("CUSTOMER_REQUEST"),
            &json!("channel:maoyan")
        )
    );
    assert_eq!(
        sale.states(&["A1", "A2", "A3"]).await,
        [SeatState::Sold, SeatState::Available, SeatState::Sold]
    );
    let figures = sale.projected_sales().await;
    assert_eq!(figures, ((2, 1, 8000), (2, 1, 8000)), "the figures follow");

    // The rest: the order is cancelled with its last seats.
    let rest = sale.cancel_seats(&order, None).await;
    let rest = &rest.data()["cancelOrder"];
    assert_eq!(rest["status"], "CANCELLED");
    assert_eq!(rest["refunded"]["amount"], 12000);
    assert_eq!(rest["refunds"].as_array().unwrap().len(), 2);
    assert_eq!(rest["refunds"][1]["seats"].as_array().unwrap().len(), 2);
    assert_eq!(sale.projected_sales().await, ((0, 0, 0), (0, 0, 0)));
    sale.check_invariants().await;

    // Both refunds are in the audit log, under the channel.
    let operator = sale.app.operator_key("platform", None).await;
    let log = sale
        .app
        .graphql_as(&operator, AUDIT, json!({ "operator": "channel:maoyan" }))
        .await;
    let entries = nodes(&log.data()["auditLog"]);
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert!(entries
        .iter()
        .all(|e| e["operation"] == "refund" && e["subject"] == order));
    let amounts: Vec<i64> = entries
        .iter()
        .map(|e| {
            serde_json::from_str::<Value>(e["after"].as_str().unwrap()).unwrap()["amount"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert_eq!(amounts.iter().sum::<i64>(), 12000);
}

#[tokio::test]
async fn bad_cancellations_get_a_code_and_change_nothing() {
    let sale = sale().await;
    let order = sale.order(&sale.maoyan, &["B1", "B2"]).await;
    sale.cancel_seats(&order, Some(&["B1"])).await.data();
    let before = sale.inventory().await;
    for (seats, says) in [
        (json!([]), "at least one seat"),
        (json!(["B1"]), "cancelled already"),
        (json!(["B2", "B2"]), "named twice"),
        (json!(["C1"]), "not a seat of this order"),
        (json!(["nonsense"]), "not a seat of this order"),
        (json!(vec!["A1"; 11]), "at most 10 seats"),
    ] {
        let refused = sale
            .app
            .graphql_as(
                &sale.maoyan,
                CANCEL_SEATS,
                json!({ "id": order, "seats": seats }),
            )
            .await;
        assert_eq!(refused.error_code(), "BAD_USER_INPUT", "{seats}");
        assert!(
            refused.error_message().contains(says),
            "{seats}: {}",
            refused.error_message()
        );
    }
    let other = sale
        .app
        .graphql_as(
            &sale.wechat,
            CANCEL_SEATS,
            json!({ "id": order, "seats": ["B2"] }),
        )
        .await;
    assert_eq!(other.error_code(), "NOT_FOUND");
    let after = sale.inventory().await;
    assert_eq!(
        (after.counts, after.version),
        (before.counts, before.version)
    );
    let read = sale
        .app
        .graphql_as(&sale.maoyan, ORDER, json!({ "id": order }))
        .await;
    assert_eq!(read.data()["order"]["refunds"].as_array().unwrap().len(), 1);
    assert_eq!(read.data()["order"]["refunded"]["amount"], 4000);
}

#[tokio::test]
async fn the_cinemas_refund_policy_keeps_its_fee_and_refuses_late_cancellations() {
    let sale = sale().await;
    let operator = sale
        .app
        .operator_key("chain", Some(std::slice::from_ref(&sale.cinema)))
        .await;
    let set = sale.set_refund_policy(&operator, 30, 500).await;
    assert_eq!(
        set.data()["updateCinema"]["refundPolicy"],
        json!({ "cutoffMinutes": 30, "feePerSeat": { "amount": 500 } })
    );
    for (cutoff, fee) in [(-1, 0), (10081, 0), (0, -1), (0, 100_001)] {
        let refused = sale.set_refund_policy(&operator, cutoff, fee).await;
        assert_eq!(refused.error_code(), "BAD_USER_INPUT", "{cutoff} {fee}");
    }

    let order = sale.order(&sale.maoyan, &["A4", "A5"]).await;
    let cancelled = sale.cancel_seats(&order, Some(&["A5"])).await;
    let refund = &cancelled.data()["cancelOrder"]["refunds"][0];
    assert_eq!(
        (&refund["amount"]["amount"], &refund["fee"]["amount"]),
        (&json!(3500), &json!(500))
    );
    assert_eq!(
        sale.projected_sales().await.0,
        (1, 1, 4500),
        "the fee stays in the revenue"
    );

    // The showtime starts in two hours: a three-hour cut-off refuses, and changes nothing.
    sale.set_refund_policy(&operator, 180, 500).await.data();
    let before = sale.inventory().await;
    let late = sale.cancel_seats(&order, None).await;
    assert_eq!(late.error_code(), "REFUND_NOT_ALLOWED");
    assert!(
        late.error_message().contains("within 180 minutes"),
        "{}",
        late.error_message()
    );
    assert_eq!(sale.inventory().await.counts, before.counts);
    let read = sale
        .app
        .graphql_as(&sale.maoyan, ORDER, json!({ "id": order }))
        .await;
    assert_eq!(read.data()["order"]["status"], "CONFIRMED");
    sale.check_invariants().await;
}

#[tokio::test]
async fn partial_and_whole_cancellations_racing_on_two_gateways_give_each_seat_back_once() {
    let sale = Arc::new(sale().await);
    let other = Arc::new(sale.app.another_gateway().await);
    let mut orders = Vec::new();
    for seats in [
        ["A1", "A2", "A3"],
        ["A4", "A5", "A6"],
        ["B1", "B2", "B3"],
        ["B5", "B6", "B7"],
    ] {
        orders.push((sale.order(&sale.maoyan, &seats).await, seats));
    }
    let mut tasks = Vec::new();
    for (order, seats) in &orders {
        // One seat, another seat, and the whole order, at once, on two gateways.
        for (n, asked) in [Some(vec![seats[0]]), Some(vec![seats[1]]), None]
            .into_iter()
            .enumerate()
        {
            let (sale, other, order) = (Arc::clone(&sale), Arc::clone(&other), order.clone());
            tasks.push(tokio::spawn(async move {
                let gateway = if n % 2 == 0 { &sale.app } else { &*other };
                let variables = json!({ "id": order, "seats": asked });
                let answer = gateway
                    .graphql_as(&sale.maoyan, CANCEL_SEATS, variables)
                    .await;
                match answer.0.get("errors") {
                    None => Ok(()),
                    Some(_) => Err(answer.error_code().to_owned()),
                }
            }));
        }
    }
    for task in tasks {
        if let Err(code) = task.await.unwrap() {
            assert_eq!(
                code, "BAD_USER_INPUT",
                "only a seat cancelled already is refused"
            );
        }
    }
    for (order, seats) in &orders {
        let read = sale
            .app
            .graphql_as(&sale.maoyan, ORDER, json!({ "id": order }))
            .await;
        let read = &read.data()["order"];
        assert_eq!(
            read["status"], "CANCELLED",
            "the whole cancellation always happens"
        );
        assert_eq!(read["refunded"]["amount"], 12000, "each seat refunded once");
        let mut refunded: Vec<String> = read["refunds"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|refund| refund["seats"].as_array().unwrap().clone())
            .map(|seat| seat["label"].as_str().unwrap().to_owned())
            .collect();
        refunded.sort();
        assert_eq!(refunded, seats.to_vec(), "every seat in exactly one refund");
    }
    let inventory = sale.inventory().await;
    assert_eq!(inventory.counts.sold, 0);
    sale.check_invariants().await;
    sale.check_orders_agree_with_seats().await;
    let (movie, buckets) = sale.projected_sales().await;
    assert_eq!((movie, buckets), ((0, 0, 0), (0, 0, 0)));
}

#[tokio::test]
async fn sales_figures_agree_with_the_orders_after_racing_partial_cancellations() {
    let sale = Arc::new(sale().await);
    let other = Arc::new(sale.app.another_gateway().await);
    let mut orders = Vec::new();
    for seats in PAIRS {
        orders.push((sale.order(&sale.maoyan, &seats).await, seats));
    }
    // Projections run while the cancellations race.
    let projector = {
        let sale = Arc::clone(&sale);
        tokio::spawn(async move {
            for _ in 0..20 {
                sales::project_sales(&sale.app.store).await.unwrap();
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
        })
    };
    let mut tasks = Vec::new();
    for (i, (order, seats)) in orders.iter().enumerate() {
        let (sale, other, order, seat) = (
            Arc::clone(&sale),
            Arc::clone(&other),
            order.clone(),
            seats[i % 2],
        );
        tasks.push(tokio::spawn(async move {
            let gateway = if i % 2 == 0 { &sale.app } else { &*other };
            let variables = json!({ "id": order, "seats": [seat] });
            gateway
                .graphql_as(&sale.maoyan, CANCEL_SEATS, variables)
                .await
                .data()
                .clone()
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    projector.await.unwrap();
    let (movie, buckets) = sale.projected_sales().await;
    let from_orders = sale.orders_figures().await;
    assert_eq!(from_orders, (5, 5, 20000));
    assert_eq!(
        movie, from_orders,
        "the movie's figures agree with the orders"
    );
    assert_eq!(
        buckets, from_orders,
        "the hourly buckets agree with the orders"
    );
    sale.check_invariants().await;
    sale.check_orders_agree_with_seats().await;
}

/// Eight cancellations of one seat under eight keys, at once on two gateways: one refunds it;
/// the others are answered as one sent after them is, BAD_USER_INPUT "cancelled already"
/// (a request under another key is not a retry of the one that won). One refund is recorded.
#[tokio::test]
async fn cancellations_of_one_seat_racing_under_their_own_keys_answer_as_a_late_one_does() {
    let sale = Arc::new(sale().await);
    let other = Arc::new(sale.app.another_gateway().await);
    let order = sale.order(&sale.maoyan, &["A1", "A2"]).await;
    let cancel = |n: usize| {
        let (sale, other, order) = (Arc::clone(&sale), Arc::clone(&other), order.clone());
        async move {
            let gateway = if n.is_multiple_of(2) {
                &sale.app
            } else {
                &*other
            };
            let key = format!("cancel-a1-{n}");
            let variables = json!({ "id": order, "seats": ["A1"], "key": key });
            let answer = gateway
                .graphql_as(&sale.maoyan, CANCEL_SEATS, variables)
                .await;
            match answer.0.get("errors") {
                None => Ok(answer.data()["cancelOrder"]["refunds"].clone()),
                Some(_) => Err((answer.error_code().to_owned(), answer.0.to_string())),
            }
        }
    };
    let tasks: Vec<_> = (0..8).map(|n| tokio::spawn(cancel(n))).collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.unwrap());
    }
    let late = cancel(8).await;
    let won: Vec<_> = answers
        .iter()
        .filter_map(|answer| answer.as_ref().ok())
        .collect();
    assert_eq!(won.len(), 1, "one refunds the seat: {answers:?}");
    assert_eq!(won[0].as_array().unwrap().len(), 1);
    for refused in answers
        .iter()
        .filter_map(|answer| answer.as_ref().err())
        .chain(late.as_ref().err())
    {
        assert_eq!(refused.0, "BAD_USER_INPUT");
        assert!(refused.1.contains("cancelled already"), "{}", refused.1);
    }
    assert!(late.is_err(), "the late one is refused too");
    let read = (sale.app)
        .graphql_as(&sale.maoyan, ORDER, json!({ "id": order }))
        .await;
    assert_eq!(read.data()["order"]["refunds"].as_array().unwrap().len(), 1);
    sale.check_invariants().await;
}
