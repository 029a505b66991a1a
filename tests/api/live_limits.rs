//! Bad input and limits on the WebSocket transport: each refusal says why, with the protocol's
//! close code for the connection or an error code on the one operation, and changes nothing
//! else.

use std::time::Duration;

use boxoffice::config::Limits;
use serde_json::{json, Value};

use crate::fixtures::global_id;
use crate::helpers::TestApp;
use crate::live_client::{LiveClient, SEAT_MAP};
use crate::sale::{sale, sale_on};

/// Watches the caller's orders.
const ORDER_STATUS: &str = "subscription { orderChanged { status } }";

/// The `error` message of operation `id`: its one error's code.
async fn error_code(client: &mut LiveClient, id: &str) -> String {
    let message = client.recv().await;
    assert_eq!(
        (message["type"].as_str(), message["id"].as_str()),
        (Some("error"), Some(id)),
        "{message}"
    );
    message["payload"][0]["extensions"]["code"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_bad_or_unknown_showtime_fails_that_subscription_alone_with_a_code() {
    let sale = sale().await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    client
        .subscribe("bad", SEAT_MAP, json!({ "id": "not an id" }))
        .await;
    assert_eq!(error_code(&mut client, "bad").await, "BAD_USER_INPUT");
    let nowhere = global_id("Showtime", bson::oid::ObjectId::new());
    client
        .subscribe("gone", SEAT_MAP, json!({ "id": nowhere }))
        .await;
    assert_eq!(error_code(&mut client, "gone").await, "NOT_FOUND");
    let cinema = global_id("Cinema", bson::oid::ObjectId::new());
    client
        .subscribe("cinema", SEAT_MAP, json!({ "id": cinema }))
        .await;
    assert_eq!(error_code(&mut client, "cinema").await, "BAD_USER_INPUT");
    // The connection goes on.
    let snapshot = client.watch_seat_map("good", &sale.showtime).await;
    assert_eq!(snapshot["counts"]["available"], 16);
}

#[tokio::test]
async fn a_wrong_key_in_connection_init_closes_the_connection_with_4403() {
    let sale = sale().await;
    for payload in [
        json!({ "Authorization": "Bearer bo_not_a_real_key_at_all_000000000000000000" }),
        json!({ "Authorization": "Basic abc" }),
        json!({ "Authorization": 42 }),
    ] {
        let mut client = LiveClient::open(&sale.app, Some("graphql-transport-ws")).await;
        client
            .send(json!({ "type": "connection_init", "payload": payload }))
            .await;
        let (code, reason) = client.closed().await;
        assert_eq!(code, 4403, "{payload}: {reason}");
    }
    // The right key is acknowledged, and makes the connection the channel's.
    let mut client = LiveClient::connect(&sale.app, Some(&sale.maoyan)).await;
    client.subscribe("orders", ORDER_STATUS, json!({})).await;
    assert_eq!(
        client.recv_within(Duration::from_millis(300)).await,
        None,
        "orderChanged is accepted"
    );
}

#[tokio::test]
async fn watching_orders_needs_a_channel_key() {
    let sale = sale().await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    client.subscribe("orders", ORDER_STATUS, json!({})).await;
    assert_eq!(error_code(&mut client, "orders").await, "UNAUTHENTICATED");
}

/// The close code after `client` sends `message`.
async fn closes_with(mut client: LiveClient, message: Value) -> u16 {
    client.send(message).await;
    client.closed().await.0
}

#[tokio::test]
async fn the_protocol_s_own_refusals_close_with_its_codes() {
    let sale = sale().await;
    let app = &sale.app;
    let mut no_protocol = LiveClient::open(app, None).await;
    assert_eq!(no_protocol.closed().await.0, 4406);

    let subscribe = json!({ "type": "subscribe", "id": "1",
        "payload": { "query": SEAT_MAP, "variables": { "id": sale.showtime } } });
    let early = LiveClient::open(app, Some("graphql-transport-ws")).await;
    assert_eq!(closes_with(early, subscribe.clone()).await, 4401);

    let twice = LiveClient::connect(app, None).await;
    let init = json!({ "type": "connection_init" });
    assert_eq!(closes_with(twice, init).await, 4429);

    let mut duplicate = LiveClient::connect(app, None).await;
    duplicate.watch_seat_map("1", &sale.showtime).await;
    assert_eq!(closes_with(duplicate, subscribe).await, 4409);

    let garbage = LiveClient::connect(app, None).await;
    let unknown = json!({ "type": "launch_missiles" });
    assert_eq!(closes_with(garbage, unknown).await, 4400);

    let mut pinger = LiveClient::connect(app, None).await;
    pinger.send(json!({ "type": "ping" })).await;
    assert_eq!(pinger.recv().await, json!({ "type": "pong" }));
}

#[tokio::test]
async fn a_key_sent_as_a_header_on_the_upgrade_must_be_right() {
    let sale = sale().await;
    let refused = LiveClient::try_open(
        &sale.app,
        Some("graphql-transport-ws"),
        Some("Bearer bo_wrong_key_wrong_key_wrong_key_wrong_key_00"),
    )
    .await;
    assert_eq!(refused.err(), Some(401));
    let bearer = format!("Bearer {}", sale.maoyan);
    let accepted =
        LiveClient::try_open(&sale.app, Some("graphql-transport-ws"), Some(&bearer)).await;
    assert!(accepted.is_ok());
}

fn tight() -> Limits {
    Limits {
        live_init_timeout_ms: 300,
        live_idle_timeout_ms: 400,
        max_subscriptions_per_connection: 2,
        max_live_connections: 3,
        max_complexity: 200,
        ..Limits::default()
    }
}

#[tokio::test]
async fn connections_that_never_initialise_or_sit_idle_are_closed() {
    let sale = sale_on(TestApp::spawn_with(tight()).await, &["SSSS"]).await;
    let mut silent = LiveClient::open(&sale.app, Some("graphql-transport-ws")).await;
    assert_eq!(
        silent.closed().await,
        (4408, "Connection initialisation timeout".into())
    );

    let mut idle = LiveClient::connect(&sale.app, None).await;
    assert_eq!(idle.closed().await, (1000, "idle".into()));

    // Pings keep nothing running: a connection that only pings is idle too.
    let mut pinger = LiveClient::connect(&sale.app, None).await;
    let closed = loop {
        pinger.send(json!({ "type": "ping" })).await;
        match pinger.recv_frame_within(Duration::from_millis(100)).await {
            Some(Ok(pong)) => assert_eq!(pong["type"], "pong"),
            Some(Err(close)) => break close,
            None => {}
        }
    };
    assert_eq!(closed, (1000, "idle".into()));

    // A connection with a subscription is not idle, however quiet.
    let mut watching = LiveClient::connect(&sale.app, None).await;
    watching.watch_seat_map("1", &sale.showtime).await;
    assert_eq!(watching.recv_within(Duration::from_millis(900)).await, None);
    sale.hold_id(&sale.maoyan, &["A1"]).await;
    assert_eq!(watching.event("1").await["kind"], "CHANGES");
}

#[tokio::test]
async fn a_connection_runs_a_bounded_number_of_subscriptions() {
    let sale = sale_on(TestApp::spawn_with(tight()).await, &["SSSS"]).await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    client.watch_seat_map("1", &sale.showtime).await;
    client.watch_seat_map("2", &sale.showtime).await;
    client
        .subscribe("3", SEAT_MAP, json!({ "id": sale.showtime }))
        .await;
    assert_eq!(error_code(&mut client, "3").await, "SUBSCRIPTION_LIMIT");
    // Completing one frees its place.
    client.send(json!({ "type": "complete", "id": "1" })).await;
    client.watch_seat_map("3", &sale.showtime).await;
}

#[tokio::test]
async fn a_gateway_keeps_a_bounded_number_of_connections_open() {
    let sale = sale_on(TestApp::spawn_with(tight()).await, &["SSSS"]).await;
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(LiveClient::connect(&sale.app, None).await);
    }
    let refused = LiveClient::try_open(&sale.app, Some("graphql-transport-ws"), None).await;
    assert_eq!(refused.err(), Some(503));
    drop(open.pop());
    // The freed place is taken again once the server has seen the close.
    let mut reopened = None;
    for _ in 0..50 {
        if let Ok(client) =
            LiveClient::try_open(&sale.app, Some("graphql-transport-ws"), None).await
        {
            reopened = Some(client);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        reopened.is_some(),
        "a closed connection gives its place back"
    );
}

#[tokio::test]
async fn subscriptions_meet_the_same_depth_and_complexity_limits_as_queries() {
    let sale = sale_on(TestApp::spawn_with(tight()).await, &["SSSS"]).await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    let costly = "subscription ($id: ID!) { seatMapChanged(showtimeId: $id) {
        seatMap { rows { seats { label state kind } } } } }";
    client
        .subscribe("1", costly, json!({ "id": sale.showtime }))
        .await;
    assert_eq!(error_code(&mut client, "1").await, "QUERY_TOO_COMPLEX");
    let deep = format!(
        "subscription {{ seatMapChanged(showtimeId: \"x\") {{ {} }} }}",
        "a { ".repeat(40) + &"} ".repeat(40)
    );
    client.subscribe("2", &deep, json!({})).await;
    assert_eq!(error_code(&mut client, "2").await, "QUERY_TOO_COMPLEX");
    client
        .subscribe(
            "3",
            "subscription { seatMapChanged(showtimeId: 1) { nope } }",
            json!({}),
        )
        .await;
    let message = client.recv().await;
    assert_eq!(message["type"], "error", "{message}");
    assert!(
        message["payload"][0]["extensions"]["code"].is_string(),
        "{message}"
    );
}

#[tokio::test]
async fn a_subscription_sent_over_http_is_refused_with_a_code() {
    let sale = sale().await;
    let query = format!(
        "subscription {{ seatMapChanged(showtimeId: \"{}\") {{ version }} }}",
        sale.showtime
    );
    let response = sale.app.graphql(&query, Value::Null).await;
    assert!(
        response.errors()[0]["extensions"]["code"].is_string(),
        "{:#}",
        response.0
    );
}

#[tokio::test]
async fn each_subscribe_costs_one_operation_of_the_caller_s_rate_limit() {
    let limits = Limits {
        anonymous_requests_per_second: 1,
        anonymous_burst: 2,
        ..Limits::default()
    };
    let sale = sale_on(TestApp::spawn_with(limits).await, &["SSSS"]).await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    client.watch_seat_map("1", &sale.showtime).await;
    client.watch_seat_map("2", &sale.showtime).await;
    client
        .subscribe("3", SEAT_MAP, json!({ "id": sale.showtime }))
        .await;
    let message = client.recv().await;
    assert_eq!(message["type"], "error", "{message}");
    let error = &message["payload"][0];
    assert_eq!(error["extensions"]["code"], "RATE_LIMITED");
    assert!(error["extensions"]["retryAfterMs"].as_u64().unwrap() > 0);
}
