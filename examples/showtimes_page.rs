//! Benchmark: latency of the showtimes page query through the gateway, over HTTP.
//!
//! A page of 50 showtimes asking for extended-reference fields only, and the same page also
//! asking for each cinema's location, each movie's details and each seat map (one batched query
//! per collection). Prints percentiles, throughput and MongoDB commands per request.
//!
//! ```sh
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' \
//!   cargo run --release --example showtimes_page -- [REQUESTS] [CONCURRENCY]
//! ```
//! It loads the small demo catalogue into the database `bench_showtimes_page` first.

use std::time::{Duration, Instant};

use boxoffice::config::{Limits, SalesArgs};
use boxoffice::store::Store;
use boxoffice::{app, demo, AppState};
use serde_json::json;

const REFERENCES_ONLY: &str = "{ showtimes(first: 50) { edges { node {
    id startsAt price(channel: \"maoyan\") { amount }
    cinema { name city } movie { title runtimeMinutes } hall { name format } } } } }";

const WITH_LOADED_FIELDS: &str = "{ showtimes(first: 50) { edges { node {
    id startsAt cinema { name location { latitude longitude } }
    movie { title details { plot } } hall { name }
    seatMap { counts { available sold } } } } } }";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let requests: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(500);
    let concurrency: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(16);
    let uri = std::env::var("MONGODB_URI")?;

    let store = Store::connect(&uri, "bench_showtimes_page").await?;
    store.drop_database().await?;
    store.ensure_indexes().await?;
    let loaded = demo::load(&store, &demo::DemoPlan::small(), false).await?;
    println!(
        "catalogue: {} showtimes, {} documents",
        loaded.showtimes, loaded.documents
    );

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/graphql", listener.local_addr()?);
    let router = app(AppState::new(
        store.clone(),
        Limits::default(),
        SalesArgs::default().hold_policy(),
    ));
    tokio::spawn(async move { axum::serve(listener, router).await });
    let client = reqwest::Client::new();

    for (name, query) in [
        ("references only", REFERENCES_ONLY),
        ("with loaded fields", WITH_LOADED_FIELDS),
    ] {
        let run = move |client: reqwest::Client, url: String| async move {
            let started = Instant::now();
            let body: serde_json::Value = client
                .post(&url)
                .json(&json!({ "query": query }))
                .send()
                .await
                .expect("request")
                .json()
                .await
                .expect("JSON");
            assert!(body.get("errors").is_none(), "{body}");
            started.elapsed()
        };
        for _ in 0..20 {
            run(client.clone(), url.clone()).await;
        }
        store.commands().start();
        run(client.clone(), url.clone()).await;
        let commands = store.commands().take().len();

        let mut latencies = Vec::with_capacity(requests);
        for _ in 0..requests {
            latencies.push(run(client.clone(), url.clone()).await);
        }
        latencies.sort();
        let percentile = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize];
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "{name}: {commands} MongoDB commands/request; sequential {requests} requests: \
             p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms",
            ms(percentile(0.50)),
            ms(percentile(0.95)),
            ms(percentile(0.99)),
        );

        let started = Instant::now();
        let per_task = requests / concurrency;
        let tasks: Vec<_> = (0..concurrency)
            .map(|_| {
                let (client, url) = (client.clone(), url.clone());
                tokio::spawn(async move {
                    for _ in 0..per_task {
                        run(client.clone(), url.clone()).await;
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await?;
        }
        let total = per_task * concurrency;
        println!(
            "{name}: {concurrency} concurrent clients: {:.0} requests/s ({total} requests)",
            total as f64 / started.elapsed().as_secs_f64()
        );
    }
    store.drop_database().await?;
    Ok(())
}
