//! Traces and log lines of a real gateway process: spans exported over OTLP/HTTP (JSON) to a
//! tiny receiver, the request id on the log lines and in the answer, and the customer's
//! personal data in neither the logs nor the spans, even with every level logged.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::helpers::mongodb_uri;
use crate::processes::GatewayProcess;
use crate::sale::sale;

const HOLD: &str =
    "mutation HoldSeats($input: HoldSeatsInput!) { holdSeats(input: $input) { id } }";
const CONFIRM: &str = "mutation ConfirmHold($input: ConfirmHoldInput!) {
    confirmHold(input: $input) { id status } }";
/// A customer no log line or span may name.
const NAME: &str = "Quixotella Vantablack";
const CONTACT: &str = "qv-5550199-private";

/// An OTLP/HTTP receiver: keeps every JSON body posted to `/v1/traces`.
async fn receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
    let bodies = Arc::new(Mutex::new(Vec::new()));
    async fn accept(
        State(bodies): State<Arc<Mutex<Vec<Value>>>>,
        body: Json<Value>,
    ) -> Json<Value> {
        bodies.lock().unwrap().push(body.0);
        Json(json!({}))
    }
    let router = Router::new()
        .route("/v1/traces", post(accept))
        .with_state(Arc::clone(&bodies));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (format!("http://{address}"), bodies)
}

/// Every span received, across bodies.
fn spans(bodies: &[Value]) -> Vec<Value> {
    let mut spans = Vec::new();
    for body in bodies {
        for resource in body["resourceSpans"].as_array().into_iter().flatten() {
            for scope in resource["scopeSpans"].as_array().into_iter().flatten() {
                spans.extend(scope["spans"].as_array().into_iter().flatten().cloned());
            }
        }
    }
    spans
}

/// Posts an operation as the channel with `key`, with request id `id`; returns the answer and
/// the `x-request-id` it carried.
async fn post_as(url: &str, key: &str, id: &str, body: Value) -> (Value, String) {
    let response = reqwest::Client::new()
        .post(url)
        .bearer_auth(key)
        .header("x-request-id", id)
        .json(&body)
        .send()
        .await
        .expect("the gateway answers");
    let echoed = response.headers()["x-request-id"]
        .to_str()
        .unwrap()
        .to_owned();
    (response.json().await.unwrap(), echoed)
}

// Multi-threaded: the receiver must answer while this test waits for the gateway to exit
// (the gateway flushes its last spans to it on the way out).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_are_exported_and_no_log_or_span_names_the_customer() {
    let sale = sale().await;
    let (endpoint, bodies) = receiver().await;
    let database = sale.app.store.database_name().to_owned();
    let env = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("RUST_LOG", "trace"),
        // Exported only when the gateway stops: the test sees the flush at exit.
        ("OTEL_BSP_SCHEDULE_DELAY", "60000"),
    ];
    let (mut gateway, output) =
        GatewayProcess::start_captured(&mongodb_uri(), &database, &env, &["--log-format", "json"]);
    let input = json!({ "showtimeId": sale.showtime, "seats": ["A1", "A2"] });
    let hold = json!({ "query": HOLD, "variables": { "input": input } });
    let (held, echoed) = post_as(&gateway.url(), &sale.maoyan, "ops-hold-1", hold).await;
    assert_eq!(echoed, "ops-hold-1");
    let hold_id = held["data"]["holdSeats"]["id"].clone();
    assert!(hold_id.is_string(), "{held}");
    let input = json!({ "holdId": hold_id, "customer": { "name": NAME, "contact": CONTACT } });
    let confirm = json!({ "query": CONFIRM, "variables": { "input": input } });
    let (confirmed, echoed) = post_as(&gateway.url(), &sale.maoyan, "ops-confirm-1", confirm).await;
    assert_eq!(echoed, "ops-confirm-1");
    assert_eq!(
        confirmed["data"]["confirmHold"]["status"], "CONFIRMED",
        "{confirmed}"
    );
    // A graceful stop flushes the spans not yet exported.
    tokio::task::block_in_place(|| gateway.stop());

    let deadline = Instant::now() + Duration::from_secs(10);
    let received = loop {
        let received = spans(&bodies.lock().unwrap());
        let names: Vec<&str> = received.iter().filter_map(|s| s["name"].as_str()).collect();
        if names.contains(&"hold_seats") && names.contains(&"confirm_hold") {
            break received;
        }
        assert!(Instant::now() < deadline, "spans received: {names:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let exported = serde_json::to_string(&*bodies.lock().unwrap()).unwrap();
    assert!(
        exported.contains("\"boxoffice\""),
        "the service name: {exported}"
    );
    // The request's root span carries its id; the booking spans are in its trace.
    let root = received
        .iter()
        .find(|span| span["name"] == "request" && span.to_string().contains("ops-confirm-1"))
        .unwrap_or_else(|| panic!("no request span with the id: {exported}"));
    let confirm_span = received
        .iter()
        .find(|span| span["name"] == "confirm_hold")
        .unwrap();
    assert_eq!(confirm_span["traceId"], root["traceId"]);
    assert!(
        !exported.contains(NAME) && !exported.contains(CONTACT),
        "{exported}"
    );

    let logs = output.lock().unwrap().clone();
    assert!(!logs.contains(NAME), "the customer's name is logged");
    assert!(!logs.contains(CONTACT), "the customer's contact is logged");
    let secret = crate::helpers::TEST_TICKET_SECRET;
    assert!(
        !logs.contains(secret) && !exported.contains(secret),
        "the ticket secret is logged"
    );
    let with_id: Vec<Value> = logs
        .lines()
        .filter(|line| line.contains("ops-confirm-1"))
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    assert!(
        with_id.len() >= 2,
        "the request's lines carry its id: {with_id:?}"
    );
    assert!(
        with_id
            .iter()
            .any(|line| line["span"]["request_id"] == "ops-confirm-1"),
        "{with_id:?}"
    );
}
