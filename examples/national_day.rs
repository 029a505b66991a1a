//! Figure: scheduling a national day (5,000 cinemas × 8 halls × 6 showtimes = 240,000
//! showtimes) through the API, one `scheduleShowtime` per showtime from concurrent clients
//! with the demo platform operator's key, beside the bulk demo load of the same day.
//!
//! 1. Loads the demo's cinemas and halls without showtimes (`days: 0`) into a fresh database.
//! 2. Starts a gateway in-process on port 0 (operators share the channel rate-limit buckets:
//!    the limit is raised so it does not count) and schedules tomorrow's demo showtimes of
//!    those halls (the generator's, so the same ones the bulk load writes) over HTTP.
//! 3. Loads the same cinemas with their day of showtimes in bulk (`demo::load`, which
//!    schedules through the same store function, a transaction per 8 halls) into a second
//!    fresh database.
//!
//! It prints each time and showtimes/s, and drops both databases.
//!
//! ```sh
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' \
//!   cargo run --release --example national_day -- [CINEMAS=5000] [CLIENTS=32]
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use boxoffice::config::{BookingArgs, Limits};
use boxoffice::demo::{self, DemoPlan, Generator};
use boxoffice::domain::global_id::GlobalId;
use boxoffice::store::documents::ShowtimeDoc;
use boxoffice::store::Store;
use boxoffice::{app, AppState};
use chrono::{Days, Utc};
use serde_json::{json, Value};

const SCHEDULE: &str =
    "mutation($input: ScheduleShowtimeInput!) { scheduleShowtime(input: $input) { id } }";

fn arg(index: usize, default: usize) -> usize {
    std::env::args()
        .nth(index)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

async fn fresh(uri: &str, name: &str) -> anyhow::Result<Store> {
    let store = Store::connect(uri, name)
        .await?
        .with_timeout(Duration::from_secs(600));
    store.drop_database().await?;
    store.ensure_indexes().await?;
    Ok(store)
}

fn variables(showtime: &ShowtimeDoc) -> Value {
    json!({ "input": {
        "hallId": GlobalId::Hall(showtime.theater.id).encode(),
        "movieId": GlobalId::Movie(showtime.movie.id).encode(),
        "startsAt": showtime.starts_at.to_rfc3339(),
        "language": showtime.language,
        "prices": showtime.prices.iter()
            .map(|p| json!({ "channel": p.channel, "amount": p.amount }))
            .collect::<Vec<_>>(),
    } })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let uri = std::env::var("MONGODB_URI").unwrap_or_else(|_| "mongodb://127.0.0.1:27017".into());
    let (cinemas, clients) = (arg(1, 5_000), arg(2, 32));
    // Tomorrow in China: every showtime of the day is in the future.
    let tomorrow = (Utc::now() + chrono::TimeDelta::hours(8))
        .date_naive()
        .checked_add_days(Days::new(1))
        .expect("a date");
    let plan = DemoPlan {
        cinemas,
        days: 1,
        seed: 2015,
        start_day: tomorrow,
    };

    // 1. Cinemas and halls, no showtimes.
    let api_db = format!("natday_api_{}", std::process::id());
    let store = fresh(&uri, &api_db).await?;
    let started = Instant::now();
    let loaded = demo::load(
        &store,
        &DemoPlan {
            days: 0,
            ..plan.clone()
        },
        false,
    )
    .await?;
    let catalogue_only = started.elapsed();
    let (_, key) = loaded.operator_key.clone().expect("the demo's operator");
    println!(
        "catalogue without showtimes: {} cinemas, {} halls in {:.1} s",
        loaded.cinemas,
        loaded.halls,
        catalogue_only.as_secs_f64()
    );

    // The day's showtimes as the generator makes them (the same halls: ids come from the seed).
    let (generator, _) = Generator::new(&plan);
    let mut docs: Vec<ShowtimeDoc> = Vec::new();
    for range in generator.chunks(100) {
        docs.extend(generator.cinemas(range).showtimes);
    }
    // As operators across the country would: at any moment, different halls. (A hall's six
    // showtimes sent at once by six clients would mostly lose the hall's version to each other
    // and read again: that contention is the invariant at work, not the national figure.)
    // Sent from the end of the list: latest start first, one hall after another.
    docs.sort_by_key(|s| (s.starts_at, s.theater.id.0));
    let showtimes: Vec<Value> = docs.iter().map(variables).collect();
    let total = showtimes.len();

    // 2. Through the API.
    let limits = Limits {
        channel_requests_per_second: 1_000_000,
        channel_burst: 1_000_000,
        ..Limits::default()
    };
    let api_store = Store::connect(&uri, &api_db).await?;
    let state = AppState::new(api_store, limits, BookingArgs::default().hold_policy());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/graphql", listener.local_addr()?);
    let server = tokio::spawn(async move { axum::serve(listener, app(state)).await });
    let queue = Arc::new(Mutex::new(showtimes));
    let (done, failures) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(Mutex::new(Vec::new())),
    );
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let (queue, done, failures) = (queue.clone(), done.clone(), failures.clone());
            let (url, auth, client) =
                (url.clone(), format!("Bearer {key}"), reqwest::Client::new());
            tokio::spawn(async move {
                loop {
                    let Some(variables) = queue.lock().unwrap().pop() else {
                        break;
                    };
                    let body = json!({ "query": SCHEDULE, "variables": variables });
                    let answer: Value = match client
                        .post(&url)
                        .header("Authorization", &auth)
                        .json(&body)
                        .send()
                        .await
                    {
                        Ok(response) => response.json().await.unwrap_or(Value::Null),
                        Err(error) => json!({ "errors": [{ "message": error.to_string() }] }),
                    };
                    match answer.get("errors") {
                        None => {
                            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                            if n % 20_000 == 0 {
                                eprintln!("{n} scheduled");
                            }
                        }
                        Some(errors) => failures.lock().unwrap().push(errors.to_string()),
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await?;
    }
    let api = started.elapsed();
    server.abort();
    let failures = failures.lock().unwrap().clone();
    let scheduled = done.load(Ordering::Relaxed);
    println!(
        "through the API ({clients} clients, scheduleShowtime each): {scheduled} of {total} showtimes in {:.1} s, {:.0} showtimes/s; {} refused{}",
        api.as_secs_f64(),
        scheduled as f64 / api.as_secs_f64(),
        failures.len(),
        failures.first().map(|f| format!(" (first: {f})")).unwrap_or_default()
    );
    store.drop_database().await?;

    // 3. In bulk: the same cinemas with their day of showtimes.
    let bulk_db = format!("natday_bulk_{}", std::process::id());
    let bulk = fresh(&uri, &bulk_db).await?;
    let started = Instant::now();
    let loaded = demo::load(&bulk, &plan, false).await?;
    let whole = started.elapsed();
    println!(
        "bulk demo load of the same day: {} showtimes with cinemas and halls in {:.1} s; the showtimes' share ≈ {:.1} s ({:.0} showtimes/s)",
        loaded.showtimes,
        whole.as_secs_f64(),
        (whole - catalogue_only.min(whole)).as_secs_f64(),
        loaded.showtimes as f64 / (whole - catalogue_only.min(whole)).as_secs_f64()
    );
    bulk.drop_database().await?;
    Ok(())
}
