//! Benchmark: what the channel event log costs a booking, and how fast webhooks deliver.
//!
//! 1. Holds + confirms of a pair through the gateway (HTTP + GraphQL) at `CLIENTS` clients,
//!    each on a showtime of its own, first on a gateway whose changes leave no events
//!    (`Store::without_event_log`), then on one with the event log and its relay, in one run
//!    over one database: pairs per second, and the gateway's CPU per seat-changing operation
//!    (the server runtime's threads, the relay included), and the commands per pair.
//! 2. Webhook delivery: `EVENTS` events of one channel delivered by one gateway to 1 endpoint,
//!    then to 100 endpoints (local receivers answering 200): events per second per endpoint,
//!    and POSTs per second in all.
//!
//! ```sh
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' \
//!   cargo run --release --example event_log
//! ```

#[path = "common/server_cpu.rs"]
mod server_cpu;

#[path = "common/bench_catalogue.rs"]
mod bench_catalogue;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use boxoffice::config::{BookingArgs, Limits};
use boxoffice::domain::global_id::GlobalId;
use boxoffice::domain::ids::ShowtimeId;
use boxoffice::domain::ticket_codes::TicketSecret;
use boxoffice::store::documents::SCHEMA_VERSION;
use boxoffice::store::Store;
use boxoffice::webhooks::store::documents::WebhookEndpointDoc;
use boxoffice::webhooks::{Deliverer, Sender};
use boxoffice::{app, AppState};
use serde_json::{json, Value};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const DATABASE: &str = "bench_event_log";
const CLIENTS: usize = 16;
const PAIRS_PER_CLIENT: usize = 40;
const EVENTS: usize = 400;

fn main() -> anyhow::Result<()> {
    let uri = std::env::var("MONGODB_URI")?;
    let (server, cpu) = server_cpu::server_runtime(2)?;
    let clients = tokio::runtime::Runtime::new()?;
    let store = server.block_on(async {
        let store = Store::connect(&uri, DATABASE).await?;
        store.drop_database().await?;
        store.ensure_indexes().await?;
        anyhow::Ok(store)
    })?;
    let (showtimes, key) = server.block_on(bench_catalogue::insert(&store, 2 * CLIENTS, 30))?;
    let auth = format!("Bearer {}", key.as_str());

    println!("bookings: {CLIENTS} clients, {PAIRS_PER_CLIENT} pairs each, one showtime each");
    println!(
        "{:<22} {:>9} {:>12} {:>14}",
        "", "pairs/s", "CPU/op (ms)", "commands/pair"
    );
    for (name, store, range) in [
        (
            "without the event log",
            store.without_event_log(),
            0..CLIENTS,
        ),
        ("with the event log", store.clone(), CLIENTS..2 * CLIENTS),
    ] {
        let address = serve(&server, store.clone());
        let url = format!("http://{address}/graphql");
        let before = cpu.used();
        store.commands().start();
        let started = Instant::now();
        let made = clients.block_on(book(&url, &auth, &showtimes[range]));
        let elapsed = started.elapsed();
        // The relay's last appends are part of the bookings' cost.
        clients.block_on(async { tokio::time::sleep(Duration::from_millis(500)).await });
        let commands = store.commands().take().len();
        let used = cpu.used() - before;
        println!(
            "{name:<22} {:>9.0} {:>12.3} {:>14.1}",
            made as f64 / elapsed.as_secs_f64(),
            used.as_secs_f64() * 1000.0 / (2 * made) as f64,
            commands as f64 / made as f64,
        );
    }
    let appended = server.block_on(boxoffice::channel_events::last_sequence(&store, "bench"))?;
    println!("events in the log: {appended} (a hold and a confirmation per pair)");

    println!("\nwebhooks: {EVENTS} events of one channel, one gateway delivering");
    println!(
        "{:<14} {:>16} {:>12} {:>10}",
        "endpoints", "events/s each", "POSTs/s", "CPU/POST (ms)"
    );
    for endpoints in [1, 100] {
        let (rate, posts, cpu_per_post) = server.block_on(deliver(&uri, endpoints, &cpu))?;
        println!(
            "{endpoints:<14} {rate:>16.0} {posts:>12.0} {:>10.3}",
            cpu_per_post.as_secs_f64() * 1000.0
        );
    }
    server.block_on(store.drop_database())?;
    Ok(())
}

/// Serves a gateway over `store` on the server runtime; its address.
fn serve(server: &tokio::runtime::Runtime, store: Store) -> std::net::SocketAddr {
    server.block_on(async move {
        let state = AppState::new(
            store,
            Limits::default(),
            BookingArgs::default().hold_policy(),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(boxoffice::serve(
            listener,
            app(state),
            std::future::pending(),
        ));
        address
    })
}

/// Each client holds and confirms pairs on its showtime; the pairs made.
async fn book(url: &str, auth: &str, showtimes: &[ShowtimeId]) -> usize {
    let made = Arc::new(AtomicUsize::new(0));
    let client = reqwest::Client::new();
    let tasks: Vec<_> = (showtimes.iter().copied())
        .map(|showtime| {
            let (client, url, auth, made) = (
                client.clone(),
                url.to_owned(),
                auth.to_owned(),
                Arc::clone(&made),
            );
            tokio::spawn(async move {
                for _ in 0..PAIRS_PER_CLIENT {
                    if pair(&client, &url, &auth, showtime).await {
                        made.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    made.load(Ordering::Relaxed)
}

async fn pair(client: &reqwest::Client, url: &str, auth: &str, showtime: ShowtimeId) -> bool {
    let id = GlobalId::Showtime(showtime).encode();
    let hold: Value = client.post(url).header("authorization", auth)
        .json(&json!({ "query": "mutation ($id: ID!) { holdSeats(input: { showtimeId: $id, best: { count: 2 } }) { id } }", "variables": { "id": id } }))
        .send().await.unwrap().json().await.unwrap();
    let Some(hold) = hold["data"]["holdSeats"]["id"].as_str() else {
        return false;
    };
    let order: Value = client.post(url).header("authorization", auth)
        .json(&json!({ "query": "mutation ($id: ID!) { confirmHold(input: { holdId: $id, customer: { name: \"n\", contact: \"c\" } }) { id } }", "variables": { "id": hold } }))
        .send().await.unwrap().json().await.unwrap();
    order["data"]["confirmHold"]["id"].is_string()
}

/// Appends `EVENTS` events to a fresh channel's log, makes `endpoints` endpoints (each a
/// receiver of its own), and times one gateway delivering them all: events per second per
/// endpoint, POSTs per second, CPU per POST.
async fn deliver(
    uri: &str,
    endpoints: usize,
    cpu: &server_cpu::ThreadCpu,
) -> anyhow::Result<(f64, f64, Duration)> {
    let database = format!("{DATABASE}_webhooks_{endpoints}");
    let store = Store::connect(uri, &database).await?;
    store.drop_database().await?;
    store.ensure_indexes().await?;
    let secret = TicketSecret::random();
    let received = Arc::new(AtomicUsize::new(0));
    // Written with the driver: a channel may make 20 endpoints through the API.
    let written = mongodb::Client::with_uri_str(uri)
        .await?
        .database(&database)
        .collection::<WebhookEndpointDoc>("webhook_endpoints");
    for _ in 0..endpoints {
        let endpoint = WebhookEndpointDoc {
            id: boxoffice::store::new_id(),
            schema_version: SCHEMA_VERSION,
            channel: "bench".into(),
            url: receiver(Arc::clone(&received)).await,
            types: Vec::new(),
            created_at: boxoffice::store::now(),
            delivered: 0,
            due_at: None,
            lease: None,
            failures: 0,
            asked: 0,
            redeliver: Vec::new(),
            cap_slot: None,
        };
        written.insert_one(&endpoint).await?;
    }
    // The channel's events, appended by the relay as bookings would leave them.
    let (showtimes, _) = bench_catalogue::insert(&store, EVENTS.div_ceil(400), 30).await?;
    let relay = boxoffice::assembly::event_relay(&store);
    tokio::spawn(Arc::clone(&relay).run());
    let policy = BookingArgs::default().hold_policy();
    let locks = Arc::default();
    for i in 0..EVENTS {
        let request = boxoffice::holds::HoldRequest {
            showtime: showtimes[i / 400],
            choice: boxoffice::holds::SeatChoice::Best {
                count: 1,
                kind: boxoffice::domain::seat::SeatKind::Standard,
            },
            ticket_types: Vec::new(),
            carriage: None,
            offer: None,
        };
        let attempt = boxoffice::idempotency::Attempt::unkeyed();
        boxoffice::holds::hold_seats(
            &store,
            &boxoffice::assembly::hold_endings(),
            &locks,
            "bench",
            &request,
            &policy,
            attempt,
            None,
        )
        .await?;
    }
    while boxoffice::channel_events::last_sequence(&store, "bench").await? < EVENTS as i64 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let deliverer = Deliverer::new(store.clone(), Sender::new(true), Arc::new(secret));
    let before = cpu.used();
    let started = Instant::now();
    while received.load(Ordering::Relaxed) < EVENTS * endpoints {
        deliverer.start_due().await?;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let used = cpu.used() - before;
    store.drop_database().await?;
    let posts = (EVENTS * endpoints) as f64;
    Ok((
        EVENTS as f64 / elapsed,
        posts / elapsed,
        used / (posts as u32),
    ))
}

/// A receiver on the server runtime answering 200 to every POST, counting them; its URL.
async fn receiver(received: Arc<AtomicUsize>) -> String {
    let route = axum::routing::post(move || {
        let received = Arc::clone(&received);
        async move {
            received.fetch_add(1, Ordering::Relaxed);
            axum::http::StatusCode::OK
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, axum::Router::new().route("/hook", route))
            .await
            .unwrap();
    });
    format!("http://{address}/hook")
}
