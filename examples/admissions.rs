//! Benchmark: tickets admitted per second at the door, from many scanners on one showtime.
//!
//! One showtime of 400 seats (20 × 20) starting in 30 minutes is sold out through the
//! gateway (holds of 5 and confirms), then `SCANNERS` door scanners (32 by default) admit its
//! 400 tickets through the gateway as fast as they answer, each scan one `admitTicket`; then
//! every ticket is scanned a second time (each answer ALREADY_ADMITTED: the update that
//! misses and the read that says why). It prints the rate, the latency percentiles and the
//! gateway's CPU per scan, and checks that every ticket was admitted exactly once.
//!
//! ```sh
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' \
//!   cargo run --release --example admissions [-- SCANNERS]
//! ```
//! It runs in a fresh database `bench_admissions`, dropped at the start.

#[path = "common/server_cpu.rs"]
mod server_cpu;

#[path = "common/bench_catalogue.rs"]
mod bench_catalogue;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use boxoffice::config::{BookingArgs, Limits};
use boxoffice::domain::api_key::ApiKey;
use boxoffice::domain::global_id::GlobalId;
use boxoffice::domain::layout::row_label;
use boxoffice::store::documents::DoorDoc;
use boxoffice::store::{DatabaseOptions, Store};
use boxoffice::{app, AppState};
use serde_json::{json, Value};

/// The gateway binary's allocator, so the gateway measured here is the one that runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const DATABASE: &str = "bench_admissions";
const SIDE: usize = 20;
const ADMIT: &str = "mutation ($code: String!) { admitTicket(input: { code: $code }) { seat } }";

fn main() -> anyhow::Result<()> {
    let uri = std::env::var("MONGODB_URI")?;
    let scanners: usize = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 32,
    };
    let (servers, server_cpu) = server_cpu::server_runtime(2)?;
    let clients = tokio::runtime::Runtime::new()?;
    let options = DatabaseOptions {
        monitor_commands: false,
        ..DatabaseOptions::default()
    };
    let store = servers.block_on(Store::connect_with(&uri, DATABASE, &options))?;
    let (showtime, channel_key, door_key) = servers.block_on(prepare(&store, &uri))?;
    let listener = servers.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let url = format!("http://{}/graphql", listener.local_addr()?);
    // On the server runtime, which runs its event relay.
    let _entered = servers.enter();
    let state = AppState::new(
        store.clone(),
        Limits::default(),
        BookingArgs::default().hold_policy(),
    );
    let server = servers.spawn(async move { axum::serve(listener, app(state)).await });
    let client = reqwest::Client::new();
    let codes = clients.block_on(sell_out(&client, &url, &channel_key, showtime))?;
    anyhow::ensure!(codes.len() == SIDE * SIDE, "sold {} tickets", codes.len());
    let codes = Arc::new(codes);
    println!(
        "{} tickets of one showtime, {scanners} scanners, through the gateway",
        codes.len()
    );
    println!(
        "{:<18} {:>8} {:>9} {:>9} {:>11}  outcomes",
        "pass", "scans/s", "p50 ms", "p99 ms", "CPU ms/scan"
    );
    for pass in ["first scans", "second scans"] {
        let before = server_cpu.used();
        let started = Instant::now();
        let (mut latencies, outcomes) = clients.block_on(scan_all(
            &client,
            &url,
            &door_key,
            Arc::clone(&codes),
            scanners,
        ));
        let elapsed = started.elapsed();
        let cpu = server_cpu.used() - before;
        latencies.sort();
        let at = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q) as usize];
        println!(
            "{pass:<18} {:>8.0} {:>9.1} {:>9.1} {:>11.3}  {outcomes:?}",
            codes.len() as f64 / elapsed.as_secs_f64(),
            at(0.5).as_secs_f64() * 1000.0,
            at(0.99).as_secs_f64() * 1000.0,
            cpu.as_secs_f64() * 1000.0 / codes.len() as f64,
        );
    }
    let inventory = servers
        .block_on(store.inventory(showtime))?
        .expect("the inventory");
    anyhow::ensure!(
        inventory.admitted as usize == codes.len(),
        "admitted {} times for {} tickets",
        inventory.admitted,
        codes.len()
    );
    println!("checked: {} admissions, one per ticket", inventory.admitted);
    server.abort();
    Ok(())
}

/// A fresh database with the showtime (starting in 30 minutes), a channel and a door key.
async fn prepare(
    store: &Store,
    uri: &str,
) -> anyhow::Result<(boxoffice::domain::ids::ShowtimeId, ApiKey, ApiKey)> {
    store.drop_database().await?;
    store.ensure_indexes().await?;
    let (showtimes, channel_key) = bench_catalogue::insert(store, 1, SIDE).await?;
    let showtime = showtimes[0];
    let db = mongodb::Client::with_uri_str(uri).await?.database(DATABASE);
    let starts = bson::DateTime::from_chrono(chrono::Utc::now() + chrono::Duration::minutes(30));
    for collection in ["showtimes", "seat_inventory"] {
        db.collection::<bson::Document>(collection)
            .update_one(
                bson::doc! { "_id": bson::oid::ObjectId::from_bytes(showtime.0) },
                bson::doc! { "$set": { "startsAt": starts } },
            )
            .await?;
    }
    let cinema = store.showtimes_by_ids(&[showtime]).await?[0].cinema.id;
    let door_key = ApiKey::generate_operator(&mut rand::rng());
    let door = DoorDoc {
        cinema_id: cinema,
        name: "North".into(),
        created_by: "bench".into(),
        created_at: None,
    };
    store
        .create_door_key("door-bench", door_key.hash(), door)
        .await?;
    Ok((showtime, channel_key, door_key))
}

async fn post(
    client: &reqwest::Client,
    url: &str,
    key: &str,
    query: &str,
    variables: Value,
) -> Value {
    client
        .post(url)
        .bearer_auth(key)
        .json(&json!({ "query": query, "variables": variables }))
        .send()
        .await
        .expect("the gateway answers")
        .json()
        .await
        .expect("JSON")
}

/// Sells every seat in holds of five (a row in four holds) and returns the tickets' codes.
async fn sell_out(
    client: &reqwest::Client,
    url: &str,
    key: &ApiKey,
    showtime: boxoffice::domain::ids::ShowtimeId,
) -> anyhow::Result<Vec<String>> {
    let id = GlobalId::Showtime(showtime).encode();
    let mut codes = Vec::new();
    for row in 0..SIDE {
        for part in 0..SIDE / 5 {
            let seats: Vec<String> = (1..=5)
                .map(|n| format!("{}{}", row_label(row), part * 5 + n))
                .collect();
            let hold = post(client, url, key.as_str(),
                "mutation ($id: ID!, $seats: [String!]) { holdSeats(input: { showtimeId: $id, seats: $seats }) { id } }",
                json!({ "id": id, "seats": seats })).await;
            let hold = hold["data"]["holdSeats"]["id"]
                .as_str()
                .ok_or_else(|| anyhow::anyhow!("hold refused: {hold}"))?
                .to_owned();
            let order = post(client, url, key.as_str(),
                "mutation ($id: ID!) { confirmHold(input: { holdId: $id, customer: { name: \"n\", contact: \"c\" } }) { tickets { code } } }",
                json!({ "id": hold })).await;
            let tickets = order["data"]["confirmHold"]["tickets"]
                .as_array()
                .ok_or_else(|| anyhow::anyhow!("confirm refused: {order}"))?;
            codes.extend(
                tickets
                    .iter()
                    .map(|t| t["code"].as_str().unwrap().to_owned()),
            );
        }
    }
    Ok(codes)
}

/// Every code scanned once by `scanners` scanners taking the next from a shared queue: the
/// latency of each scan and how many answers each outcome had.
async fn scan_all(
    client: &reqwest::Client,
    url: &str,
    key: &ApiKey,
    codes: Arc<Vec<String>>,
    scanners: usize,
) -> (Vec<Duration>, std::collections::BTreeMap<String, usize>) {
    let next = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..scanners)
        .map(|_| {
            let (client, url, key) = (client.clone(), url.to_owned(), key.as_str().to_owned());
            let (codes, next) = (Arc::clone(&codes), Arc::clone(&next));
            tokio::spawn(async move {
                let mut seen = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(code) = codes.get(i) else {
                        return seen;
                    };
                    let started = Instant::now();
                    let answer = post(&client, &url, &key, ADMIT, json!({ "code": code })).await;
                    let outcome = match answer["errors"][0]["extensions"]["code"].as_str() {
                        None => "ADMITTED".to_owned(),
                        Some(code) => code.to_owned(),
                    };
                    seen.push((started.elapsed(), outcome));
                }
            })
        })
        .collect();
    let mut latencies = Vec::new();
    let mut outcomes = std::collections::BTreeMap::new();
    for task in tasks {
        for (latency, outcome) in task.await.expect("a scanner") {
            latencies.push(latency);
            *outcomes.entry(outcome).or_insert(0) += 1;
        }
    }
    (latencies, outcomes)
}
