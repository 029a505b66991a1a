//! Benchmark: `findSeats` on the national demo catalogue (5,000 cinemas, about 240,000
//! showtimes in a day), through the gateway.
//!
//! For the centres of 北京, 上海 and 深圳 at 5 km, over the two hours from 19:00 China time,
//! parties of 2 and of 6, with and without a movie (the movie of the best option found
//! without one), it prints p50 and p99 latency from one client, the gateway's CPU per
//! search, the options found, and, from one monitored search of each, the MongoDB commands
//! it sent and the bytes their replies held.
//!
//! ```sh
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' \
//!   cargo run --release --example find_seats [-- SEARCHES_PER_SCENARIO]
//! ```
//! It loads the national demo for the day of the window into `bench_find_seats_YYYYMMDD`
//! when that database has no cinemas (about 90 s and 2.3 GiB on SecantusDB), and reuses it
//! otherwise.

#[path = "common/server_cpu.rs"]
mod server_cpu;

use std::time::{Duration, Instant};

use boxoffice::config::{BookingArgs, Limits};
use boxoffice::store::{DatabaseOptions, Store};
use boxoffice::{app, demo, AppState};
use chrono::{DateTime, Days, NaiveDate, Utc};
use serde_json::{json, Value};

/// The gateway binary's allocator, so the gateway measured here is the one that runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// City centres of the demo (`demo::places::CITIES`).
const CENTRES: [(&str, f64, f64); 3] = [
    ("北京", 39.9042, 116.4074),
    ("上海", 31.2304, 121.4737),
    ("深圳", 22.5431, 114.0579),
];

const FIND_SEATS: &str = "query ($input: FindSeatsInput!) { findSeats(input: $input, first: 10) {
    edges { node { showtime { id startsAt cinema { name } movie { id title } }
    distanceMeters seats totalPrice { amount } score } } } }";

fn main() -> anyhow::Result<()> {
    let uri = std::env::var("MONGODB_URI")?;
    let searches: usize = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 100,
    };
    let (day, from) = window_start(Utc::now());
    let before = from + chrono::Duration::hours(2);
    let database = format!("bench_find_seats_{}", day.format("%Y%m%d"));
    let (servers, server_cpu) = server_cpu::server_runtime(2)?;
    let clients = tokio::runtime::Runtime::new()?;
    // The example is built with the `test-hooks` feature (a dev-dependency), whose default
    // monitors commands: the driver then copies every reply into a `Document`, half the
    // gateway's CPU on these replies.
    let plain = DatabaseOptions {
        monitor_commands: false,
        ..DatabaseOptions::default()
    };
    let monitored = DatabaseOptions {
        monitor_commands: true,
        ..DatabaseOptions::default()
    };
    let store = servers.block_on(Store::connect_with(&uri, &database, &plain))?;
    let watched = servers.block_on(Store::connect_with(&uri, &database, &monitored))?;
    servers.block_on(load_if_empty(&store, day))?;
    let _entered = servers.enter();
    let url = serve(&servers, store)?;
    let watched_url = serve(&servers, watched.clone())?;
    let client = reqwest::Client::new();
    println!(
        "findSeats on {database}, 19:00 to 21:00 China time, 5 km, channel maoyan, \
         {searches} searches each"
    );
    println!(
        "{:<6} {:>5} {:<7} {:>8} {:>8} {:>11} {:>7} {:>9} {:>10}",
        "city",
        "party",
        "movie",
        "p50 ms",
        "p99 ms",
        "CPU ms/req",
        "options",
        "commands",
        "bytes read"
    );
    for (city, latitude, longitude) in CENTRES {
        servers.block_on(explain(&watched, latitude, longitude, from, before))?;
        for party in [2, 6] {
            let mut input = json!({
                "near": { "latitude": latitude, "longitude": longitude, "radiusMeters": 5000 },
                "startsFrom": from, "startsBefore": before,
                "partySize": party, "channel": "maoyan",
            });
            let first = clients.block_on(search(&client, &url, &input))?;
            let movie = first
                .first()
                .map(|option| option["showtime"]["movie"]["id"].clone());
            for with_movie in [false, true] {
                if with_movie {
                    let Some(movie) = &movie else { continue };
                    input["movieId"] = movie.clone();
                }
                watched.commands().start();
                clients.block_on(search(&client, &watched_url, &input))?;
                let commands = watched.commands().take();
                let bytes: usize = commands.iter().filter_map(|c| c.reply_bytes).sum();
                let cpu_before = server_cpu.used();
                let mut latencies = Vec::with_capacity(searches);
                let mut found = 0;
                for _ in 0..searches {
                    let started = Instant::now();
                    found = clients.block_on(search(&client, &url, &input))?.len();
                    latencies.push(started.elapsed());
                }
                let cpu = server_cpu.used() - cpu_before;
                latencies.sort();
                let at = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q) as usize];
                println!(
                    "{city:<6} {party:>5} {:<7} {:>8.1} {:>8.1} {:>11.2} {found:>7} {:>9} {:>10}",
                    if with_movie { "yes" } else { "no" },
                    ms(at(0.5)),
                    ms(at(0.99)),
                    ms(cpu) / searches as f64,
                    commands.len(),
                    bytes,
                );
            }
        }
    }
    Ok(())
}

/// The day of the window (China time) and its start: 19:00 China time today, or tomorrow
/// once that has passed.
fn window_start(now: DateTime<Utc>) -> (NaiveDate, DateTime<Utc>) {
    let china = now + chrono::Duration::hours(8);
    let at_seven = |day: NaiveDate| {
        day.and_hms_opt(19, 0, 0).expect("a time").and_utc() - chrono::Duration::hours(8)
    };
    let today = china.date_naive();
    if at_seven(today) > now {
        (today, at_seven(today))
    } else {
        let tomorrow = today.checked_add_days(Days::new(1)).expect("a day");
        (tomorrow, at_seven(tomorrow))
    }
}

/// How the database plans the showtimes read of a search at the point: the indexes and the
/// keys and documents it examined.
async fn explain(
    store: &Store,
    latitude: f64,
    longitude: f64,
    from: DateTime<Utc>,
    before: DateTime<Utc>,
) -> anyhow::Result<()> {
    use boxoffice::domain::geo::GeoPoint;
    use boxoffice::seat_search::rules::{SearchWindow, SEARCH_CINEMAS, SEARCH_SHOWTIMES};
    use boxoffice::seat_search::store::{cinemas_near, explain_showtimes, SearchedShowtimes};
    let point = GeoPoint::new(latitude, longitude)?;
    let near = cinemas_near(store, point, 5000.0, SEARCH_CINEMAS).await?;
    let cinemas: Vec<_> = near.iter().map(|cinema| cinema.id).collect();
    let search = SearchedShowtimes {
        cinemas: &cinemas,
        movie: None,
        window: SearchWindow::new(Some(from), Some(before), Utc::now())?,
    };
    let explained = explain_showtimes(store, &search, SEARCH_SHOWTIMES).await?;
    let plan = explained
        .get_document("queryPlanner")
        .and_then(|planner| planner.get_document("winningPlan"))
        .map(|plan| plan.to_string())
        .unwrap_or_default();
    let indexes: std::collections::BTreeSet<&str> = [
        "cinema_starts",
        "cinema_movie_hall",
        "starts",
        "channel_starts",
    ]
    .into_iter()
    .filter(|name| plan.contains(&format!("\"{name}\"")))
    .collect();
    let stats = explained.get_document("executionStats").ok();
    let figure = |name: &str| {
        stats
            .and_then(|s| s.get(name))
            .map(|v| v.to_string())
            .unwrap_or_default()
    };
    println!(
        "  {} cinemas within 5 km; showtimes read through {indexes:?}: {} keys, {} documents examined",
        cinemas.len(),
        figure("totalKeysExamined"),
        figure("totalDocsExamined"),
    );
    Ok(())
}

async fn load_if_empty(store: &Store, day: NaiveDate) -> anyhow::Result<()> {
    if store.size().await?.objects > 0 {
        return Ok(());
    }
    println!("loading the national demo for {day} (about 90 s)");
    store.ensure_indexes().await?;
    let plan = demo::DemoPlan {
        cinemas: 5_000,
        days: 1,
        start_day: day,
        ..demo::DemoPlan::small()
    };
    let loaded = demo::load(store, &plan, true).await?;
    println!(
        "loaded {} cinemas, {} showtimes",
        loaded.cinemas, loaded.showtimes
    );
    Ok(())
}

/// Serves the gateway over `store` on a port of its own; returns its GraphQL URL.
fn serve(servers: &tokio::runtime::Runtime, store: Store) -> anyhow::Result<String> {
    let listener = servers.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let url = format!("http://{}/graphql", listener.local_addr()?);
    let state = AppState::new(
        store,
        Limits::default(),
        BookingArgs::default().hold_policy(),
    );
    servers.spawn(async move { axum::serve(listener, app(state)).await });
    Ok(url)
}

async fn search(client: &reqwest::Client, url: &str, input: &Value) -> anyhow::Result<Vec<Value>> {
    let answer: Value = client
        .post(url)
        .json(&json!({ "query": FIND_SEATS, "variables": { "input": input } }))
        .send()
        .await?
        .json()
        .await?;
    anyhow::ensure!(answer.get("errors").is_none(), "{answer}");
    let edges = answer["data"]["findSeats"]["edges"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    Ok(edges.into_iter().map(|edge| edge["node"].clone()).collect())
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
