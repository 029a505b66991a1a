//! The channels' event logs: every change a channel must hear of is in its log, in order,
//! whoever made it (the channel, a cinema's operator, the door, the expiry of a hold), and
//! nothing of another channel's.

use std::time::Duration;

use serde_json::{json, Value};

use crate::admissions::{admit, codes, door, operator, starting_in};
use crate::cancel_showtime::CANCEL_SHOWTIME;
use crate::helpers::{nodes, TestApp};
use crate::price_revisions::change;
use crate::refunds::CANCEL_SEATS;
use crate::sale::{sale, Sale};

pub const EVENTS: &str = "query ($after: String, $first: Int, $types: [ChannelEventType!]) {
    events(after: $after, first: $first, types: $types) {
    edges { cursor node { id cursor type createdAt subject showtimeId holdId orderId seats
        refund { id amount { amount } } reason door priceRevision } }
    pageInfo { hasNextPage endCursor } } }";
const RELEASE: &str = "mutation ($id: ID!) { releaseHold(holdId: $id) }";
const PRICES: &str = r#"mutation($input: ChangeShowtimePricesInput!) {
    changeShowtimePrices(input: $input) { priceRevision } }"#;

/// Every event of the channel with key `key` after `after`, read page by page.
pub async fn read_log(app: &TestApp, key: &str, after: Option<&str>) -> Vec<Value> {
    let (mut events, mut after) = (Vec::new(), after.map(str::to_owned));
    loop {
        let page = app
            .graphql_as(key, EVENTS, json!({ "after": after, "first": 50 }))
            .await;
        let page = page.data()["events"].clone();
        events.extend(nodes(&page));
        if page["pageInfo"]["hasNextPage"] != true {
            return events;
        }
        after = page["pageInfo"]["endCursor"].as_str().map(str::to_owned);
    }
}

/// The channel's log once it holds `count` events (the relay appends them just after their
/// changes); fails after 10 s.
pub async fn log_of(app: &TestApp, key: &str, count: usize) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let events = read_log(app, key, None).await;
        if events.len() >= count || tokio::time::Instant::now() > deadline {
            assert_eq!(events.len(), count, "{events:#?}");
            return events;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn types_of(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

impl Sale {
    async fn operator_cancels_the_showtime(&self, operator: &str) {
        let input = json!({ "showtimeId": self.showtime, "idempotencyKey": "cancel-1" });
        self.app
            .graphql_as(operator, CANCEL_SHOWTIME, json!({ "input": input }))
            .await
            .data();
    }
}

#[tokio::test]
async fn a_channel_s_log_tells_every_change_of_its_holds_orders_and_showtimes_in_order() {
    let sale = sale().await;
    let wanda = operator(&sale).await;
    // The channel's own changes: a hold released, an order confirmed, one of its seats refunded.
    let released = sale.hold_id(&sale.maoyan, &["B1"]).await;
    let answer = sale
        .app
        .graphql_as(&sale.maoyan, RELEASE, json!({ "id": released }))
        .await;
    answer.data();
    let hold = sale.hold_id(&sale.maoyan, &["A1", "A2"]).await;
    let order = sale.confirm(&sale.maoyan, &hold).await.data()["confirmHold"]["id"].clone();
    let refunded = sale
        .app
        .graphql_as(
            &sale.maoyan,
            CANCEL_SEATS,
            json!({ "id": order, "seats": ["A1"], "key": "refund-1" }),
        )
        .await;
    let refund_id = refunded.data()["cancelOrder"]["refunds"][0]["id"].clone();
    // Another channel's changes are not in this log.
    sale.order(&sale.wechat, &["A5"]).await;
    // The cinema's changes: a price revision, then the showtime cancelled.
    let revised = sale
        .app
        .graphql_as(&wanda, PRICES, change(&sale.showtime, 4200))
        .await;
    assert_eq!(revised.data()["changeShowtimePrices"]["priceRevision"], 1);
    sale.operator_cancels_the_showtime(&wanda).await;

    let events = log_of(&sale.app, &sale.maoyan, 8).await;
    assert_eq!(
        types_of(&events),
        [
            "HOLD_PLACED",
            "HOLD_RELEASED",
            "HOLD_PLACED",
            "ORDER_CONFIRMED",
            "ORDER_REFUNDED",
            "PRICE_REVISED",
            // The mark that closes the sale comes first, then each order is cancelled.
            "SHOWTIME_CANCELLED",
            "ORDER_CANCELLED",
        ]
    );
    let seats = |i: usize| events[i]["seats"].clone();
    assert_eq!(events[0]["holdId"], released);
    assert_eq!(events[0]["subject"], released);
    assert_eq!(seats(1), json!(["B1"]));
    assert_eq!(events[2]["holdId"], hold);
    assert_eq!(
        (events[3]["orderId"].clone(), events[3]["holdId"].clone()),
        (order.clone(), hold.clone())
    );
    assert_eq!(events[3]["subject"], order);
    assert_eq!(seats(3), json!(["A1", "A2"]));
    assert_eq!(seats(4), json!(["A1"]));
    assert_eq!(events[4]["refund"]["id"], refund_id);
    assert_eq!(events[4]["refund"]["amount"]["amount"], 4000);
    assert_eq!(events[4]["reason"], "CUSTOMER_REQUEST");
    assert_eq!(events[5]["priceRevision"], 1);
    assert_eq!(events[5]["subject"], sale.showtime.as_str());
    assert_eq!(events[6]["subject"], sale.showtime.as_str());
    assert_eq!(events[7]["orderId"], order);
    assert_eq!(seats(7), json!(["A2"]));
    assert_eq!(events[7]["reason"], "SHOWTIME_CANCELLED");
    assert_eq!(events[7]["refund"]["amount"]["amount"], 4000);
    for event in &events {
        assert_eq!(event["showtimeId"], sale.showtime.as_str());
    }
    // Ids are unique; each event's cursor is its edge's.
    let ids: std::collections::HashSet<_> = events.iter().map(|e| e["id"].clone()).collect();
    assert_eq!(ids.len(), events.len());

    // wechat's log has its own order and the showtime's changes, nothing of maoyan's. The
    // revision took wechat's price away: it was told of it, and no longer sells the showtime
    // when it is cancelled (its order's cancellation it is told of).
    let theirs = log_of(&sale.app, &sale.wechat, 4).await;
    assert_eq!(
        types_of(&theirs),
        [
            "HOLD_PLACED",
            "ORDER_CONFIRMED",
            "PRICE_REVISED",
            "ORDER_CANCELLED"
        ]
    );
    assert_eq!(theirs[3]["seats"], json!(["A5"]));
}

#[tokio::test]
async fn pages_resume_from_a_cursor_and_filter_by_type_and_admissions_reach_the_order_s_channel() {
    let sale = sale().await;
    starting_in(&sale, 30).await;
    let order = sale.order(&sale.maoyan, &["A1", "A2"]).await;
    let codes = codes(&sale, &order).await;
    let wanda = operator(&sale).await;
    let north = door(&sale, &wanda, "North").await;
    admit(&sale.app, &north.key, &codes[0].1, None).await.data();
    admit(&sale.app, &north.key, &codes[1].1, None).await.data();
    let events = log_of(&sale.app, &sale.maoyan, 4).await;
    assert_eq!(
        types_of(&events),
        [
            "HOLD_PLACED",
            "ORDER_CONFIRMED",
            "TICKET_ADMITTED",
            "TICKET_ADMITTED"
        ]
    );
    assert_eq!(events[2]["door"], "North");
    assert_eq!(events[2]["orderId"], order);
    assert_eq!(events[2]["seats"], json!(["A1"]));
    assert_eq!(events[3]["seats"], json!(["A2"]));

    // Pages of one, each from the last cursor: the same events, none twice.
    let (mut paged, mut after) = (Vec::new(), None::<String>);
    loop {
        let page = sale
            .app
            .graphql_as(&sale.maoyan, EVENTS, json!({ "after": after, "first": 1 }))
            .await;
        let page = page.data()["events"].clone();
        let edges = page["edges"].as_array().unwrap().clone();
        if edges.is_empty() {
            break;
        }
        assert_eq!(edges[0]["cursor"], edges[0]["node"]["cursor"]);
        after = edges[0]["cursor"].as_str().map(str::to_owned);
        paged.push(edges[0]["node"].clone());
    }
    assert_eq!(paged, events);
    // From the second event's cursor: the last two.
    let rest = crate::events::read_log(&sale.app, &sale.maoyan, events[1]["cursor"].as_str()).await;
    assert_eq!(rest, events[2..]);
    // Only admissions.
    let admitted = sale
        .app
        .graphql_as(
            &sale.maoyan,
            EVENTS,
            json!({ "types": ["TICKET_ADMITTED", "HOLD_EXPIRED"] }),
        )
        .await;
    assert_eq!(nodes(&admitted.data()["events"]), events[2..]);
}

#[tokio::test]
async fn bad_cursors_and_callers_are_refused_with_their_codes() {
    let sale = sale().await;
    sale.order(&sale.maoyan, &["A1"]).await;
    let events = log_of(&sale.app, &sale.maoyan, 2).await;
    let refused = |answer: crate::helpers::GqlResponse| answer.error_code().to_owned();
    // Anonymous callers and operators have no log.
    let anonymous = sale.app.graphql(EVENTS, json!({})).await;
    assert_eq!(refused(anonymous), "UNAUTHENTICATED");
    let wanda = operator(&sale).await;
    let as_operator = sale.app.graphql_as(&wanda, EVENTS, json!({})).await;
    assert_eq!(refused(as_operator), "FORBIDDEN");
    // Another list's cursor, garbage, an empty type list, a page too large.
    let orders = sale
        .app
        .graphql_as(
            &sale.maoyan,
            "query { orders(first: 1) { pageInfo { endCursor } } }",
            json!({}),
        )
        .await;
    let orders_cursor = orders.data()["orders"]["pageInfo"]["endCursor"].clone();
    for variables in [
        json!({ "after": orders_cursor }),
        json!({ "after": "not a cursor" }),
        json!({ "types": [] }),
        json!({ "first": -1 }),
    ] {
        let answer = sale
            .app
            .graphql_as(&sale.maoyan, EVENTS, variables.clone())
            .await;
        assert_eq!(refused(answer), "BAD_USER_INPUT", "{variables}");
    }
    // A cursor of the log reads on from it.
    let after = events[0]["cursor"].clone();
    let rest = sale
        .app
        .graphql_as(&sale.maoyan, EVENTS, json!({ "after": after }))
        .await;
    assert_eq!(nodes(&rest.data()["events"]), events[1..]);
}
