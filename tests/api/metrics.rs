//! `GET /metrics` of a real gateway process (the metrics recorder is process-global, so the
//! figures of one test must come from a process of its own): after a booking, an error, a
//! rate-limit refusal, a cancellation, an expired hold and a live subscription, each figure
//! moved by exactly what was done.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::mongodb_uri;
use crate::live_client::LiveClient;
use crate::processes::GatewayProcess;
use crate::sale::sale;
use crate::scrape::{present, sum, value};

const HOLD: &str =
    "mutation HoldSeats($input: HoldSeatsInput!) { holdSeats(input: $input) { id } }";
const CONFIRM: &str = "mutation ConfirmHold($hold: ID!) { confirmHold(input: { holdId: $hold,
    customer: { name: \"Test Buyer\", contact: \"000\" } }) { id status } }";
const CANCEL: &str = "mutation CancelOrder($id: ID!) { cancelOrder(orderId: $id) { status } }";

/// Posts an operation to `gateway`, as the channel with `key` when given.
pub(crate) async fn post(gateway: &GatewayProcess, key: Option<&str>, body: Value) -> (u16, Value) {
    let mut request = reqwest::Client::new().post(gateway.url()).json(&body);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.expect("the gateway answers");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

/// The gateway's exposition.
pub(crate) async fn scrape(gateway: &GatewayProcess) -> String {
    let response = reqwest::get(format!("http://{}/metrics", gateway.address))
        .await
        .expect("the gateway answers");
    assert_eq!(response.status(), 200);
    let media = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(media.starts_with("text/plain; version=0.0.4"), "{media}");
    response.text().await.unwrap()
}

#[tokio::test]
async fn metrics_follow_a_booking() {
    let sale = sale().await;
    let database = sale.app.store.database_name().to_owned();
    let gateway = GatewayProcess::start(
        &mongodb_uri(),
        &database,
        &[
            "--hold-ttl-seconds",
            "3",
            "--sweep-interval-seconds",
            "1",
            "--sales-interval-ms",
            "200",
            "--anonymous-requests-per-second",
            "1",
            "--anonymous-burst",
            "1",
        ],
    );
    let key = Some(sale.maoyan.as_str());
    let hold = |seats: &[&str]| {
        json!({ "query": HOLD, "variables": { "input": {
        "showtimeId": sale.showtime, "seats": seats } } })
    };

    let (_, held) = post(&gateway, key, hold(&["A1", "A2"])).await;
    let hold_id = held["data"]["holdSeats"]["id"].clone();
    assert!(hold_id.is_string(), "{held}");
    let (_, taken) = post(&gateway, key, hold(&["A1"])).await;
    assert_eq!(taken["errors"][0]["extensions"]["code"], "SEAT_UNAVAILABLE");
    let confirm = json!({ "query": CONFIRM, "operationName": "ConfirmHold",
        "variables": { "hold": hold_id } });
    let (_, confirmed) = post(&gateway, key, confirm).await;
    let order = &confirmed["data"]["confirmHold"];
    assert_eq!(order["status"], "CONFIRMED", "{confirmed}");
    let cancel = json!({ "query": CANCEL, "variables": { "id": order["id"] } });
    let (_, cancelled) = post(&gateway, key, cancel).await;
    assert_eq!(cancelled["data"]["cancelOrder"]["status"], "CANCELLED");
    // Left to expire: the sweeper returns it within a second of its 3 s.
    let (_, left) = post(&gateway, key, hold(&["B1"])).await;
    assert!(left["data"]["holdSeats"]["id"].is_string(), "{left}");
    // Anonymous: a burst of 1, so the second is refused.
    let (status, _) = post(&gateway, None, json!({ "query": "{ __typename }" })).await;
    assert_eq!(status, 200);
    let (status, refused) = post(&gateway, None, json!({ "query": "{ __typename }" })).await;
    assert_eq!(status, 429, "{refused}");

    let deadline = Instant::now() + Duration::from_secs(20);
    let text = loop {
        let text = scrape(&gateway).await;
        if value(&text, "boxoffice_holds_expired_total", &[("by", "sweeper")]) >= 1.0 {
            break text;
        }
        assert!(Instant::now() < deadline, "the hold was not swept:\n{text}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let requests = "boxoffice_graphql_requests_total";
    let errors = "boxoffice_graphql_errors_total";
    assert_eq!(value(&text, requests, &[("operation", "HoldSeats")]), 3.0);
    assert_eq!(value(&text, requests, &[("operation", "ConfirmHold")]), 1.0);
    assert_eq!(value(&text, requests, &[("operation", "CancelOrder")]), 1.0);
    assert_eq!(value(&text, requests, &[("operation", "anonymous")]), 1.0);
    assert_eq!(value(&text, requests, &[("operation", "none")]), 1.0);
    let seat_unavailable = [("operation", "HoldSeats"), ("code", "SEAT_UNAVAILABLE")];
    assert_eq!(value(&text, errors, &seat_unavailable), 1.0);
    let rate_limited = [("operation", "none"), ("code", "RATE_LIMITED")];
    assert_eq!(value(&text, errors, &rate_limited), 1.0);
    assert_eq!(sum(&text, errors, &[]), 2.0, "no other error:\n{text}");
    let latency = "boxoffice_graphql_request_duration_seconds_count";
    assert_eq!(value(&text, latency, &[("operation", "ConfirmHold")]), 1.0);
    assert!(present(
        &text,
        "boxoffice_graphql_request_duration_seconds_bucket"
    ));
    assert_eq!(value(&text, "boxoffice_holds_placed_total", &[]), 2.0);
    assert_eq!(value(&text, "boxoffice_orders_confirmed_total", &[]), 1.0);
    assert_eq!(value(&text, "boxoffice_orders_cancelled_total", &[]), 1.0);
    assert_eq!(
        value(&text, "boxoffice_holds_expired_total", &[("by", "sweeper")]),
        1.0
    );
    let limited = "boxoffice_rate_limited_total";
    assert_eq!(value(&text, limited, &[("kind", "anonymous")]), 1.0);
    assert_eq!(value(&text, limited, &[("kind", "channel")]), 0.0);
    let commands = "boxoffice_mongodb_commands_total";
    // Each hold and confirm wrote the inventory; the confirm and cancel wrote orders.
    assert!(
        sum(&text, commands, &[("collection", "seat_inventory")]) >= 5.0,
        "{text}"
    );
    assert!(
        sum(&text, commands, &[("collection", "orders")]) >= 3.0,
        "{text}"
    );
    let command_latency = "boxoffice_mongodb_command_duration_seconds_count";
    assert!(sum(&text, command_latency, &[("collection", "orders")]) >= 3.0);
    for lag in [
        "boxoffice_sweeper_lag_seconds",
        "boxoffice_reconciler_lag_seconds",
        "boxoffice_sales_projection_lag_seconds",
    ] {
        let seconds = value(&text, lag, &[]);
        assert!(
            present(&text, lag) && seconds < 5.0,
            "{lag} {seconds}:\n{text}"
        );
    }
    // The door, alone on its database: the whole probe, a limit within the pool, and the
    // latency it compares with, in seconds (under a second on any machine that ran the above).
    assert_eq!(value(&text, "boxoffice_admission_probe_limit", &[]), 2.0);
    let limit = value(&text, "boxoffice_admission_limit", &[]);
    assert!((2.0..=16.0).contains(&limit), "{limit}:\n{text}");
    let baseline = value(&text, "boxoffice_admission_baseline_seconds", &[]);
    assert!(
        present(&text, "boxoffice_admission_baseline_seconds") && (0.0..1.0).contains(&baseline),
        "{baseline}:\n{text}"
    );
    assert_eq!(value(&text, "boxoffice_live_connections", &[]), 0.0);

    let mut live = LiveClient::connect_url(&gateway.url(), None).await;
    live.watch_seat_map("1", &sale.showtime).await;
    let text = scrape(&gateway).await;
    assert_eq!(value(&text, "boxoffice_live_connections", &[]), 1.0);
    assert_eq!(value(&text, "boxoffice_live_subscriptions", &[]), 1.0);
    // Two more (a channel's, within its rate limit) sharing one execution count as two.
    let mut more = LiveClient::connect_url(&gateway.url(), Some(&sale.maoyan)).await;
    more.watch_seat_map("2", &sale.showtime).await;
    more.watch_seat_map("3", &sale.showtime).await;
    let text = scrape(&gateway).await;
    assert_eq!(value(&text, "boxoffice_live_connections", &[]), 2.0);
    assert_eq!(value(&text, "boxoffice_live_subscriptions", &[]), 3.0);
}
