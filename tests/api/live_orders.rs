//! `orderChanged`: a channel's app learns of its orders as they are confirmed and cancelled,
//! and of no other channel's.

use serde_json::json;

use crate::live_client::LiveClient;
use crate::orders::CANCEL;
use crate::sale::sale;

const ORDER_CHANGED: &str = "subscription { orderChanged {
    status order { id status channel seats { label } total { amount } } } }";

#[tokio::test]
async fn a_channel_sees_its_own_orders_confirmed_then_cancelled_and_no_other_channel_s() {
    let sale = sale().await;
    let mut maoyan = LiveClient::connect(&sale.app, Some(&sale.maoyan)).await;
    maoyan.subscribe("orders", ORDER_CHANGED, json!({})).await;
    // A seat map's snapshot is read only once the change feed is open: every later change
    // reaches this gateway.
    maoyan.watch_seat_map("map", &sale.showtime).await;

    let theirs = sale.hold_id(&sale.wechat, &["A1"]).await;
    sale.confirm(&sale.wechat, &theirs).await.data();
    let hold = sale.hold_id(&sale.maoyan, &["A2", "A3"]).await;
    let order = sale.confirm(&sale.maoyan, &hold).await.data()["confirmHold"]["id"].clone();
    sale.app
        .graphql_as(&sale.maoyan, CANCEL, json!({ "id": order }))
        .await
        .data();

    let confirmed = maoyan.event_of("orders").await["orderChanged"].clone();
    assert_eq!(confirmed["status"], "CONFIRMED");
    assert_eq!(confirmed["order"]["id"], order);
    assert_eq!(confirmed["order"]["channel"], "maoyan");
    assert_eq!(
        confirmed["order"]["seats"],
        json!([{ "label": "A2" }, { "label": "A3" }])
    );
    assert_eq!(confirmed["order"]["total"]["amount"], 8000);
    let cancelled = maoyan.event_of("orders").await["orderChanged"].clone();
    assert_eq!(cancelled["status"], "CANCELLED");
    assert_eq!(cancelled["order"]["id"], order);
    assert_eq!(cancelled["order"]["status"], "CANCELLED");
}

#[tokio::test]
async fn a_subscription_waits_for_its_first_event_longer_than_the_request_timeout() {
    // The request timeout bounds queries and mutations; an order may be confirmed an hour
    // after its channel subscribed.
    let limits = boxoffice::config::Limits {
        request_timeout_ms: 2_000,
        ..boxoffice::config::Limits::default()
    };
    let app = crate::helpers::TestApp::spawn_with(limits).await;
    let sale = crate::sale::sale_on(app, &["SSSSSS", "SSS_SSS", "CCCC"]).await;
    let mut maoyan = LiveClient::connect(&sale.app, Some(&sale.maoyan)).await;
    maoyan.subscribe("orders", ORDER_CHANGED, json!({})).await;
    maoyan.watch_seat_map("map", &sale.showtime).await;
    tokio::time::sleep(std::time::Duration::from_millis(2_500)).await;
    let hold = sale.hold_id(&sale.maoyan, &["A1"]).await;
    let order = sale.confirm(&sale.maoyan, &hold).await.data()["confirmHold"]["id"].clone();
    let confirmed = maoyan.event_of("orders").await["orderChanged"].clone();
    assert_eq!(confirmed["status"], "CONFIRMED");
    assert_eq!(confirmed["order"]["id"], order);
}
