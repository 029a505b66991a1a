//! Benchmark: the showtimes page through the gateway, beside a hand-written endpoint making
//! the same MongoDB queries (`floor.rs`), in one run.
//!
//! Two pages of a city's showtimes: reference fields only (copied into each showtime), and
//! the same page with each cinema's location, each movie's plot and each seat map's counts
//! (one batched query per collection). For page sizes 10, 50 and 100, at 1 and 16 clients,
//! it prints requests/s, p50 and p99 latency and the CPU milliseconds each server spent per
//! request. Both servers run on a runtime of their own whose threads' CPU time is read from
//! `/proc/self/task/*/schedstat`, so the client's work is not counted; the database server is
//! another process. Both answers are checked to be the same JSON before timing. Last, the
//! whole seat map of one showtime in the city's smallest and largest hall, as seat objects
//! and in compact form.
//!
//! ```sh
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' \
//!   cargo run --release --example showtimes_page -- [REQUESTS_PER_RUN]
//! ```
//! It loads the small demo catalogue into the database `bench_showtimes_page` first (or uses
//! the database `BENCH_DATABASE` names, as it is, e.g. one holding the national demo).

mod floor;
#[path = "../common/server_cpu.rs"]
mod server_cpu;

use std::time::{Duration, Instant};

use boxoffice::config::{BookingArgs, Limits};
use boxoffice::store::{DatabaseOptions, Store};
use boxoffice::{app, demo, AppState};
use floor::{REFERENCES_ONLY, WITH_LOADED_FIELDS};
use serde_json::{json, Value};
use server_cpu::ThreadCpu;

/// The gateway binary's allocator, so the gateway measured here is the one that runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A request to one of the two servers.
#[derive(Clone)]
enum Target {
    Gateway { url: String, query: &'static str },
    Floor { url: String },
}

impl Target {
    async fn fetch(&self, client: &reqwest::Client, variables: &Value) -> Value {
        let response = match self {
            Target::Gateway { url, query } => client
                .post(url)
                .json(&json!({ "query": query, "variables": variables }))
                .send(),
            Target::Floor { url } => client.get(url).send(),
        };
        let body: Value = response.await.expect("request").json().await.expect("JSON");
        assert!(body.get("errors").is_none(), "{body}");
        body
    }
}

struct Figures {
    per_second: f64,
    p50: Duration,
    p99: Duration,
    cpu_per_request: Duration,
}

/// `requests` requests from `clients` concurrent clients.
async fn measure(
    cpu: &ThreadCpu,
    target: &Target,
    variables: &Value,
    clients: usize,
    requests: usize,
) -> Figures {
    let client = reqwest::Client::new();
    for _ in 0..10 {
        target.fetch(&client, variables).await;
    }
    let per_client = requests.div_ceil(clients);
    let cpu_before = cpu.used();
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (client, target, variables) = (client.clone(), target.clone(), variables.clone());
            tokio::spawn(async move {
                let mut latencies = Vec::with_capacity(per_client);
                for _ in 0..per_client {
                    let started = Instant::now();
                    target.fetch(&client, &variables).await;
                    latencies.push(started.elapsed());
                }
                latencies
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.expect("a client"));
    }
    let elapsed = started.elapsed();
    let cpu = cpu.used() - cpu_before;
    latencies.sort();
    let percentile = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
    Figures {
        per_second: latencies.len() as f64 / elapsed.as_secs_f64(),
        p50: percentile(0.50),
        p99: percentile(0.99),
        cpu_per_request: cpu / latencies.len() as u32,
    }
}

fn main() -> anyhow::Result<()> {
    let requests: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(400);
    let uri = std::env::var("MONGODB_URI")?;
    let database = std::env::var("BENCH_DATABASE").ok();

    // The servers' runtime: two workers, their thread ids recorded for the CPU figures.
    let (servers, server_cpu) = server_cpu::server_runtime(2)?;
    let (store, gateway_url, floor_url) = servers.block_on(async {
        let name = database
            .clone()
            .unwrap_or_else(|| "bench_showtimes_page".into());
        // As `boxoffice serve` connects: no command monitoring (tests turn it on).
        let options = DatabaseOptions {
            monitor_commands: false,
            ..DatabaseOptions::default()
        };
        let store = Store::connect_with(&uri, &name, &options).await?;
        // As `boxoffice serve` does: cold collections opened by concurrent requests can
        // exhaust SecantusDB's memory.
        store
            .with_timeout(Duration::from_secs(600))
            .warm_up()
            .await?;
        if database.is_none() {
            store.drop_database().await?;
            store.ensure_indexes().await?;
            let loaded = demo::load(&store, &demo::DemoPlan::small(), false).await?;
            println!(
                "catalogue: {} showtimes, {} documents",
                loaded.showtimes, loaded.documents
            );
        }
        let state = AppState::new(
            store.clone(),
            Limits::default(),
            BookingArgs::default().hold_policy(),
        );
        let gateway = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let gateway_url = format!("http://{}/graphql", gateway.local_addr()?);
        tokio::spawn(async move { axum::serve(gateway, app(state)).await });
        let client = mongodb::Client::with_uri_str(&uri).await?;
        let floor = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let floor_url = format!("http://{}/page", floor.local_addr()?);
        tokio::spawn(
            async move { axum::serve(floor, floor::router(client.database(&name))).await },
        );
        anyhow::Ok((store, gateway_url, floor_url))
    })?;

    let clients_runtime = tokio::runtime::Runtime::new()?;
    clients_runtime.block_on(async {
        let client = reqwest::Client::new();
        // The city with the most showtimes on the first page of all.
        let city_query = "{ showtimes(first: 100) { edges { node { cinema { city } } } } }";
        let all = Target::Gateway { url: gateway_url.clone(), query: city_query }
            .fetch(&client, &json!({}))
            .await;
        let mut cities: Vec<String> = all["data"]["showtimes"]["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|edge| edge["node"]["cinema"]["city"].as_str().unwrap().to_owned())
            .collect();
        cities.sort();
        let city = cities
            .chunk_by(|a, b| a == b)
            .max_by_key(|run| run.len())
            .map(|run| run[0].clone())
            .expect("a showtime");
        println!("city: {city}; {requests} requests per run\n");
        println!(
            "{:<10} {:>5} {:>7}  {:<7} {:>9} {:>9} {:>9} {:>10} {:>8}",
            "page", "first", "clients", "server", "req/s", "p50 ms", "p99 ms", "CPU ms/req", "× floor"
        );
        for (variant, query) in [("references", REFERENCES_ONLY), ("loaded", WITH_LOADED_FIELDS)] {
            for first in [10, 50, 100] {
                let variables = json!({ "first": first, "city": city });
                let gateway = Target::Gateway { url: gateway_url.clone(), query };
                let floor = Target::Floor {
                    url: format!(
                        "{floor_url}?variant={variant}&first={first}&city={}",
                        urlencode(&city)
                    ),
                };
                let (from_gateway, from_floor) = (
                    gateway.fetch(&client, &variables).await,
                    floor.fetch(&client, &variables).await,
                );
                assert_eq!(from_gateway, from_floor, "the floor answers as the gateway does");
                for clients in [1, 16] {
                    let floor_figures = measure(&server_cpu, &floor, &variables, clients, requests).await;
                    let gateway_figures = measure(&server_cpu, &gateway, &variables, clients, requests).await;
                    for (server, figures) in [("floor", &floor_figures), ("gateway", &gateway_figures)] {
                        let ratio = figures.cpu_per_request.as_secs_f64()
                            / floor_figures.cpu_per_request.as_secs_f64();
                        println!(
                            "{variant:<10} {first:>5} {clients:>7}  {server:<7} {:>9.0} {:>9.2} {:>9.2} {:>10.2} {:>8.2}",
                            figures.per_second,
                            ms(figures.p50),
                            ms(figures.p99),
                            ms(figures.cpu_per_request),
                            ratio
                        );
                    }
                }
            }
        }
        seat_maps(&server_cpu, &gateway_url, &city, requests).await;
        anyhow::Ok(())
    })?;
    if database.is_none() {
        servers.block_on(store.drop_database())?;
    }
    Ok(())
}

/// One showtime's whole seat map, in the smallest and the largest hall of the city's first
/// 100 showtimes: every seat as an object, and the compact rows.
async fn seat_maps(cpu: &ThreadCpu, gateway_url: &str, city: &str, requests: usize) {
    let client = reqwest::Client::new();
    let capacities = "query ($city: String) { showtimes(first: 100, filter: { city: $city }) {
        edges { node { id seatMap { counts { capacity } } } } } }";
    let page = Target::Gateway {
        url: gateway_url.to_owned(),
        query: capacities,
    }
    .fetch(&client, &json!({ "city": city }))
    .await;
    let mut halls: Vec<(i64, String)> = page["data"]["showtimes"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|edge| {
            let node = &edge["node"];
            let capacity = node["seatMap"]["counts"]["capacity"].as_i64().unwrap();
            (capacity, node["id"].as_str().unwrap().to_owned())
        })
        .collect();
    halls.sort();
    let (Some(smallest), Some(largest)) = (halls.first().cloned(), halls.last().cloned()) else {
        return;
    };
    println!("\nwhole seat map of one showtime, 1 client");
    println!(
        "{:<8} {:>6} {:>9} {:>9} {:>10}",
        "form", "seats", "req/s", "p50 ms", "CPU ms/req"
    );
    for (form, query) in [
        (
            "seats",
            "query ($id: ID!) { showtime(id: $id) { seatMap { rows {
            label seats { label number column kind state } } } } }",
        ),
        (
            "compact",
            "query ($id: ID!) { showtime(id: $id) { seatMap { width rows {
            label states kinds } } } }",
        ),
    ] {
        for (seats, id) in [&smallest, &largest] {
            let target = Target::Gateway {
                url: gateway_url.to_owned(),
                query,
            };
            let figures = measure(cpu, &target, &json!({ "id": id }), 1, requests).await;
            println!(
                "{form:<8} {seats:>6} {:>9.0} {:>9.2} {:>10.3}",
                figures.per_second,
                ms(figures.p50),
                ms(figures.cpu_per_request)
            );
        }
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Percent-encodes a query-string value.
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (byte as char).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}
