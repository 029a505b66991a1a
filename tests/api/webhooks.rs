//! Webhooks: a channel's events POSTed to its endpoints, signed, at least once and in order,
//! through a receiver that goes away for 30 s, gateways that stall or share the work, and
//! redeliveries a channel asks for.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use boxoffice::store::{PausePoint, Store};
use boxoffice::webhooks::rules::{verify, WebhookSecret};
use boxoffice::webhooks::{self, Deliverer, Sender};
use serde_json::{json, Value};

use crate::events::{log_of, types_of};
use crate::helpers::{test_ticket_secret, TestApp};
use crate::sale::{sale, Sale};

pub const CREATE: &str = "mutation ($url: String!, $types: [ChannelEventType!]) {
    createWebhookEndpoint(input: { url: $url, types: $types }) {
    secret endpoint { id url types failures } } }";
const DELIVERIES: &str = "query ($id: ID!) { webhookEndpoint(id: $id) { failures nextAttemptAt
    deliveries(first: 100) { edges { node { eventId type status
        attempts { statusCode error redelivery } } } } } }";
const REDELIVER: &str = "mutation ($endpoint: ID!, $event: ID!) {
    redeliverWebhookEvent(endpointId: $endpoint, eventId: $event) }";
const DELETE: &str = "mutation ($id: ID!) { deleteWebhookEndpoint(id: $id) }";

/// One POST a receiver took.
#[derive(Debug, Clone)]
pub struct Received {
    pub body: Value,
    pub raw: Bytes,
    pub signature: String,
    pub event_id: String,
}

/// A webhook receiver on 127.0.0.1 that records what it is sent and answers `answer`; it can
/// be stopped (connections refused) and started again on the same port.
pub struct Receiver {
    pub address: SocketAddr,
    pub got: Arc<Mutex<Vec<Received>>>,
    pub answer: Arc<AtomicU16>,
    /// How long it takes to answer, in milliseconds (it records a POST as it arrives).
    pub delay_ms: Arc<AtomicU64>,
    server: Option<tokio::task::JoinHandle<()>>,
}

impl Receiver {
    pub async fn start() -> Receiver {
        let mut receiver = Receiver {
            address: "127.0.0.1:0".parse().unwrap(),
            got: Arc::default(),
            answer: Arc::new(AtomicU16::new(200)),
            delay_ms: Arc::default(),
            server: None,
        };
        receiver.listen().await;
        receiver
    }

    async fn listen(&mut self) {
        let listener = tokio::net::TcpListener::bind(self.address).await.unwrap();
        self.address = listener.local_addr().unwrap();
        let (got, answer) = (Arc::clone(&self.got), Arc::clone(&self.answer));
        let delay = Arc::clone(&self.delay_ms);
        let route = axum::routing::post(move |headers: HeaderMap, body: Bytes| {
            let (got, answer, delay) = (Arc::clone(&got), Arc::clone(&answer), Arc::clone(&delay));
            async move {
                let header = |name: &str| {
                    (headers.get(name).map(|v| v.to_str().unwrap().to_owned())).unwrap_or_default()
                };
                got.lock().unwrap().push(Received {
                    body: serde_json::from_slice(&body).unwrap(),
                    raw: body.clone(),
                    signature: header("boxoffice-signature"),
                    event_id: header("boxoffice-event-id"),
                });
                let delay = delay.load(Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(delay)).await;
                StatusCode::from_u16(answer.load(Ordering::SeqCst)).unwrap()
            }
        });
        let app = axum::Router::new().route("/hook", route);
        self.server = Some(tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        }));
    }

    /// Stops listening: connections are refused until [`Receiver::restart`].
    pub async fn stop(&mut self) {
        if let Some(server) = self.server.take() {
            server.abort();
            let _ = server.await;
        }
    }

    pub async fn restart(&mut self) {
        self.listen().await;
    }

    pub fn url(&self) -> String {
        format!("http://{}/hook", self.address)
    }

    pub fn received(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }
}

/// Runs a gateway's delivery loop (what `background::run` does) until the test ends.
pub fn deliver_from(store: &Store, lease: Duration) -> Arc<Deliverer> {
    let deliverer = Deliverer::with_lease(
        store.clone(),
        Sender::new(true),
        Arc::new(test_ticket_secret()),
        lease,
    );
    let running = Arc::clone(&deliverer);
    tokio::spawn(async move {
        loop {
            let _ = running.start_due().await;
            tokio::time::sleep(boxoffice::webhooks::POLL).await;
        }
    });
    deliverer
}

/// A gateway that lets webhook endpoints be local (as `--webhooks-allow-private`).
pub async fn local_sale() -> Sale {
    let app = TestApp::spawn_configured(Default::default(), |state| {
        state.with_webhooks_allowing_private(true)
    })
    .await;
    app.store.ensure_indexes().await.unwrap();
    crate::sale::sale_on(app, &["SSSSSS", "SSS_SSS", "CCCC"]).await
}

/// Makes an endpoint for maoyan at `url`: its id and secret.
pub async fn endpoint(sale: &Sale, url: &str) -> (Value, WebhookSecret) {
    let made = sale
        .app
        .graphql_as(&sale.maoyan, CREATE, json!({ "url": url }))
        .await;
    let made = &made.data()["createWebhookEndpoint"];
    let secret = WebhookSecret::from_shown(made["secret"].as_str().unwrap());
    (made["endpoint"]["id"].clone(), secret)
}

/// The received events, deduplicated by id (first copy kept), after checking each signature.
pub fn deduplicated(received: &[Received], secret: &WebhookSecret) -> Vec<Value> {
    let now = chrono::Utc::now().timestamp();
    let mut seen = std::collections::HashSet::new();
    let mut events = Vec::new();
    for post in received {
        verify(
            secret,
            &post.signature,
            &post.raw,
            now,
            Duration::from_secs(600),
        )
        .unwrap_or_else(|error| panic!("{error}: {}", post.signature));
        assert_eq!(post.body["id"].as_str(), Some(post.event_id.as_str()));
        if seen.insert(post.event_id.clone()) {
            events.push(post.body.clone());
        }
    }
    events
}

/// Waits until the receiver holds `count` distinct events (fails after `within`).
/// The channel asks for event `event` to be sent to endpoint `id` again.
async fn ask_redelivery(sale: &Sale, id: &Value, event: &Value) {
    let again = sale
        .app
        .graphql_as(
            &sale.maoyan,
            REDELIVER,
            json!({ "endpoint": id, "event": event }),
        )
        .await;
    assert_eq!(again.data()["redeliverWebhookEvent"], true);
}

/// Waits (10 s at most) until the receiver has had `posts` posts.
async fn redelivered(receiver: &Receiver, posts: usize) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while receiver.received().len() < posts {
        assert!(tokio::time::Instant::now() < deadline, "never redelivered");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub async fn receive(
    receiver: &Receiver,
    secret: &WebhookSecret,
    count: usize,
    within: Duration,
) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let events = deduplicated(&receiver.received(), secret);
        if events.len() >= count || tokio::time::Instant::now() > deadline {
            assert_eq!(events.len(), count, "{events:#?}");
            return events;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The ids of the channel's log, in order.
pub fn ids(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn every_event_reaches_the_endpoint_signed_and_in_order_across_a_30_second_outage() {
    let sale = local_sale().await;
    let mut receiver = Receiver::start().await;
    let (id, secret) = endpoint(&sale, &receiver.url()).await;
    deliver_from(&sale.app.store, Duration::from_secs(30));
    let order = sale.order(&sale.maoyan, &["A1", "A2"]).await;
    let first = receive(&receiver, &secret, 2, Duration::from_secs(10)).await;
    assert_eq!(first[0]["type"], "HOLD_PLACED");
    assert_eq!(first[1]["type"], "ORDER_CONFIRMED");
    assert_eq!(first[1]["subject"], order);
    assert_eq!(first[1]["data"]["seats"], json!(["A1", "A2"]));

    // The receiver goes away for 30 s; bookings go on meanwhile.
    receiver.stop().await;
    for seats in [["A3", "A4"], ["A5", "A6"], ["B1", "B2"]] {
        sale.order(&sale.maoyan, &seats).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let failing = sale
        .app
        .graphql_as(&sale.maoyan, DELIVERIES, json!({ "id": id }))
        .await;
    let failing = failing.data()["webhookEndpoint"].clone();
    assert!(failing["failures"].as_i64().unwrap() >= 1, "{failing:#}");
    assert!(failing["nextAttemptAt"].is_string());
    let pending = &crate::helpers::nodes(&failing["deliveries"])[0];
    assert_eq!(pending["status"], "PENDING");
    assert!(pending["attempts"][0]["error"]
        .as_str()
        .unwrap()
        .contains("connect"));
    tokio::time::sleep(Duration::from_secs(27)).await;
    receiver.restart().await;

    let log = log_of(&sale.app, &sale.maoyan, 8).await;
    let received = receive(&receiver, &secret, 8, Duration::from_secs(60)).await;
    assert_eq!(
        ids(&received),
        ids(&log),
        "every event once, in the log's order"
    );
    assert_eq!(
        types_of(&received[2..4]),
        ["HOLD_PLACED", "ORDER_CONFIRMED"]
    );
    let delivered = sale
        .app
        .graphql_as(&sale.maoyan, DELIVERIES, json!({ "id": id }))
        .await;
    let delivered = delivered.data()["webhookEndpoint"].clone();
    assert_eq!(delivered["failures"], 0);
    let deliveries = crate::helpers::nodes(&delivered["deliveries"]);
    assert_eq!(deliveries.len(), 8);
    assert!(deliveries.iter().all(|d| d["status"] == "DELIVERED"));
    // The first event held back by the outage was tried, refused, and tried again.
    let retried = &deliveries[5];
    assert!(
        retried["attempts"].as_array().unwrap().len() >= 2,
        "{retried:#}"
    );

    // A redelivery the channel asks for comes again, with the same id.
    let before = receiver.received().len();
    ask_redelivery(&sale, &id, &log[1]["id"]).await;
    redelivered(&receiver, before + 1).await;
    let last = receiver.received().pop().unwrap();
    assert_eq!(last.event_id, log[1]["id"].as_str().unwrap());
    // Deleted, it is sent nothing more.
    let deleted = sale
        .app
        .graphql_as(&sale.maoyan, DELETE, json!({ "id": id }))
        .await;
    assert_eq!(deleted.data()["deleteWebhookEndpoint"], true);
    let count = receiver.received().len();
    sale.order(&sale.maoyan, &["B3"]).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(receiver.received().len(), count);
}

/// A redelivery asked as a delivery ends (it found nothing more to send and has not given
/// its lease up) is sent: the endpoint was already due, so marking it due again left its
/// `dueAt` as it was, and the release took that for "nothing asked meanwhile" (a flaky
/// "never redelivered" above, on a busy machine).
#[tokio::test]
async fn a_redelivery_asked_as_a_delivery_ends_is_sent() {
    let sale = local_sale().await;
    let receiver = Receiver::start().await;
    let (id, secret) = endpoint(&sale, &receiver.url()).await;
    let ending = sale
        .app
        .store
        .faults()
        .pause_next_at(PausePoint::WebhookBeforeRelease);
    deliver_from(&sale.app.store, Duration::from_secs(30));
    sale.hold(&sale.maoyan, &["A1"]).await.data();
    receive(&receiver, &secret, 1, Duration::from_secs(10)).await;
    ending.reached().await;
    let log = log_of(&sale.app, &sale.maoyan, 1).await;
    ask_redelivery(&sale, &id, &log[0]["id"]).await;
    ending.resume();
    redelivered(&receiver, 2).await;
    let posts = receiver.received();
    assert_eq!(posts.len(), 2);
    assert_eq!(posts[1].event_id, log[0]["id"].as_str().unwrap());
}

#[tokio::test]
async fn two_gateways_share_an_endpoint_and_a_stalled_one_sends_nothing_after_its_lease() {
    let sale = local_sale().await;
    let receiver = Receiver::start().await;
    let (_, secret) = endpoint(&sale, &receiver.url()).await;
    let other = sale.app.another_gateway().await;
    // The first gateway takes the endpoint and stalls before it sends.
    let stalled = sale
        .app
        .store
        .faults()
        .pause_next_at(PausePoint::WebhookBeforeSend);
    deliver_from(&sale.app.store, Duration::from_secs(3));
    sale.hold(&sale.maoyan, &["A1"]).await.data();
    stalled.reached().await;
    // The other gateway takes over once the lease has lapsed, and delivers.
    deliver_from(&other.store, Duration::from_secs(3));
    let got = receive(&receiver, &secret, 1, Duration::from_secs(10)).await;
    assert_eq!(got[0]["type"], "HOLD_PLACED");
    // Both deliver what follows, together.
    for seat in ["A2", "A3", "A4", "A5", "A6", "B1"] {
        sale.hold(&sale.maoyan, &[seat]).await.data();
    }
    stalled.resume();
    let log = log_of(&sale.app, &sale.maoyan, 7).await;
    let got = receive(&receiver, &secret, 7, Duration::from_secs(20)).await;
    assert_eq!(ids(&got), ids(&log));
    tokio::time::sleep(Duration::from_secs(2)).await;
    // The stalled gateway woke after losing its lease: it sent nothing, so nothing came twice.
    let posts = receiver.received();
    assert_eq!(
        posts.len(),
        7,
        "{:#?}",
        posts.iter().map(|p| &p.event_id).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn a_gateway_killed_mid_delivery_leaves_the_event_to_another_and_nothing_is_lost() {
    let sale = local_sale().await;
    let receiver = Receiver::start().await;
    let (_, secret) = endpoint(&sale, &receiver.url()).await;
    let mut process = crate::processes::GatewayProcess::start(
        &crate::helpers::mongodb_uri(),
        sale.app.store.database_name(),
        &["--webhooks-allow-private"],
    );
    // The receiver takes its time: the process is mid-POST when it is killed. The POST
    // outlasts the default lease (5 s): the process renews it while the POST is in flight.
    // A 7 s POST and a 5 s lease: before, an endpoint could only be kept through a POST by a
    // lease longer than it (30 s), which a dead gateway then held on to.
    receiver.delay_ms.store(7_000, Ordering::SeqCst);
    sale.hold(&sale.maoyan, &["A1"]).await.data();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while receiver.received().is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the process never delivered"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A live gateway keeps its endpoint through a POST longer than the lease: nobody else
    // takes it meanwhile (a deliverer here polls from the start; the lease would have lapsed
    // 2 s into the POST without renewals).
    deliver_from(&sale.app.store, Duration::from_secs(5));
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert_eq!(receiver.received().len(), 1, "one POST in flight, not two");
    process.kill();
    let killed = tokio::time::Instant::now();
    receiver.delay_ms.store(0, Ordering::SeqCst);
    for seat in ["A2", "A3"] {
        sale.hold(&sale.maoyan, &[seat]).await.data();
    }
    // The other gateway takes the endpoint once the dead one's lease lapsed: seconds, not
    // the 30 of the old lease.
    let log = log_of(&sale.app, &sale.maoyan, 3).await;
    let got = receive(&receiver, &secret, 3, Duration::from_secs(20)).await;
    let moved = killed.elapsed();
    assert!(moved < Duration::from_secs(15), "took {moved:?}");
    eprintln!("a dead gateway's endpoint moved in {moved:?}");
    assert_eq!(ids(&got), ids(&log));
    // The first event came twice (its first POST was never answered), the others once.
    let posts: Vec<String> = receiver
        .received()
        .into_iter()
        .map(|p| p.event_id)
        .collect();
    assert_eq!(posts.len(), 4, "{posts:?}");
    assert_eq!(posts[0], posts[1]);
}

#[tokio::test]
async fn endpoints_must_be_public_https_and_belong_to_their_channel() {
    let sale = sale().await;
    let refused = |answer: crate::helpers::GqlResponse| answer.error_code().to_owned();
    for url in [
        "http://hooks.example.com/x",
        "https://127.0.0.1/hook",
        "https://localhost/hook",
        "https://10.1.2.3/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "ftp://hooks.example.com/x",
        "not a url",
    ] {
        let answer = sale
            .app
            .graphql_as(&sale.maoyan, CREATE, json!({ "url": url }))
            .await;
        assert_eq!(refused(answer), "BAD_USER_INPUT", "{url}");
    }
    assert!(webhooks::webhook_endpoints(&sale.app.store, "maoyan")
        .await
        .unwrap()
        .is_empty());
    // A public https endpoint is made; the secret is shown once and stored nowhere.
    let made = sale
        .app
        .graphql_as(
            &sale.maoyan,
            CREATE,
            json!({ "url": "https://hooks.example.com/boxoffice", "types": ["ORDER_CANCELLED"] }),
        )
        .await;
    let made = made.data()["createWebhookEndpoint"].clone();
    let secret = made["secret"].as_str().unwrap();
    assert!(secret.starts_with("whsec_"));
    assert_eq!(made["endpoint"]["types"], json!(["ORDER_CANCELLED"]));
    let stored = format!(
        "{:?}",
        webhooks::webhook_endpoints(&sale.app.store, "maoyan")
            .await
            .unwrap()
    );
    assert!(!stored.contains(&secret[6..]), "the secret is stored");
    let id = made["endpoint"]["id"].clone();
    // Another channel, an operator, an anonymous caller cannot see or touch it.
    let theirs = sale
        .app
        .graphql_as(&sale.wechat, DELIVERIES, json!({ "id": id }))
        .await;
    assert_eq!(refused(theirs), "NOT_FOUND");
    let theirs = sale
        .app
        .graphql_as(&sale.wechat, DELETE, json!({ "id": id }))
        .await;
    assert_eq!(refused(theirs), "NOT_FOUND");
    let anonymous = sale.app.graphql(DELETE, json!({ "id": id })).await;
    assert_eq!(refused(anonymous), "UNAUTHENTICATED");
    let wanda = crate::admissions::operator(&sale).await;
    let operator = sale
        .app
        .graphql_as(
            &wanda,
            CREATE,
            json!({ "url": "https://hooks.example.com/x" }),
        )
        .await;
    assert_eq!(refused(operator), "FORBIDDEN");
    let unknown_event = sale
        .app
        .graphql_as(
            &sale.maoyan,
            REDELIVER,
            json!({ "endpoint": id, "event": "nope" }),
        )
        .await;
    assert_eq!(refused(unknown_event), "NOT_FOUND");
    // At most 20 endpoints a channel.
    for n in 1..20 {
        let url = format!("https://hooks.example.com/{n}");
        let answer = sale
            .app
            .graphql_as(&sale.maoyan, CREATE, json!({ "url": url }))
            .await;
        answer.data();
    }
    let over = sale
        .app
        .graphql_as(
            &sale.maoyan,
            CREATE,
            json!({ "url": "https://hooks.example.com/21" }),
        )
        .await;
    assert_eq!(refused(over), "BAD_USER_INPUT");
    assert_eq!(endpoint_count(&sale).await, 20);
}

#[tokio::test]
async fn forty_racing_creates_on_two_gateways_make_at_most_twenty_endpoints() {
    let sale = std::sync::Arc::new(local_sale().await);
    let other = std::sync::Arc::new(sale.app.another_gateway().await);
    let creates: Vec<_> = (0..40)
        .map(|n| {
            let (sale, other) = (sale.clone(), other.clone());
            tokio::spawn(async move {
                let gateway = if n % 2 == 0 { &sale.app } else { &*other };
                let url = format!("https://hooks.example.com/{n}");
                gateway
                    .graphql_as(&sale.maoyan, CREATE, json!({ "url": url }))
                    .await
            })
        })
        .collect();
    let mut made = Vec::new();
    for create in creates {
        let answer = create.await.unwrap();
        match answer.0.get("errors") {
            None => made.push(answer.data()["createWebhookEndpoint"]["endpoint"]["id"].clone()),
            Some(_) => assert_eq!(answer.error_code(), "BAD_USER_INPUT"),
        }
    }
    assert_eq!(
        made.len(),
        20,
        "the cap, and no fewer: a refused create had room"
    );
    assert_eq!(endpoint_count(&sale).await, 20);
    // A deleted endpoint's slot is free again.
    let deleted = sale
        .app
        .graphql_as(&sale.maoyan, DELETE, json!({ "id": made[7] }))
        .await;
    deleted.data();
    let again = sale
        .app
        .graphql_as(
            &sale.maoyan,
            CREATE,
            json!({ "url": "https://hooks.example.com/again" }),
        )
        .await;
    again.data();
    assert_eq!(endpoint_count(&sale).await, 20);
}

/// How many endpoints maoyan has.
async fn endpoint_count(sale: &Sale) -> usize {
    let endpoints = webhooks::webhook_endpoints(&sale.app.store, "maoyan").await;
    endpoints.unwrap().len()
}

/// Runs `boxoffice channel webhook add` over `sale`'s database with `args`: its exit status
/// and standard output and error.
fn webhook_add(sale: &Sale, args: &[&str]) -> (bool, String) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_boxoffice"))
        .env("MONGODB_URI", crate::helpers::mongodb_uri())
        .env("BOXOFFICE_DATABASE", sale.app.store.database_name())
        .env(
            "BOXOFFICE_TICKET_SECRET",
            crate::helpers::TEST_TICKET_SECRET,
        )
        .args(["channel", "webhook", "add"])
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

#[tokio::test]
async fn the_command_line_makes_an_endpoint_whose_secret_every_gateway_derives() {
    let sale = sale().await;
    let url = "https://hooks.example.com/cli";
    let (made, text) = webhook_add(
        &sale,
        &[
            "--channel",
            "maoyan",
            "--url",
            url,
            "--types",
            "ORDER_CONFIRMED,TICKET_ADMITTED",
        ],
    );
    assert!(made, "{text}");
    let endpoints = webhooks::webhook_endpoints(&sale.app.store, "maoyan")
        .await
        .unwrap();
    assert_eq!(endpoints.len(), 1);
    assert_eq!(endpoints[0].url, url);
    assert_eq!(endpoints[0].types.len(), 2);
    // The secret printed is the one the gateways sign with.
    let secret = WebhookSecret::of(&test_ticket_secret(), endpoints[0].id);
    assert!(text.contains(secret.as_str()), "{text}");
    // An unknown channel, an unknown type, an internal URL: refused, nothing made.
    for args in [
        [
            "--channel",
            "nobody",
            "--url",
            url,
            "--types",
            "ORDER_CONFIRMED",
        ],
        [
            "--channel",
            "maoyan",
            "--url",
            url,
            "--types",
            "ORDER_SHIPPED",
        ],
        [
            "--channel",
            "maoyan",
            "--url",
            "https://10.0.0.1/x",
            "--types",
            "ORDER_CONFIRMED",
        ],
    ] {
        let (made, text) = webhook_add(&sale, &args);
        assert!(!made, "{args:?}: {text}");
    }
    assert_eq!(endpoint_count(&sale).await, 1);
}
