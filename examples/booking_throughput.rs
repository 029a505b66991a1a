//! Benchmark: holds + confirms per second, through the gateway (HTTP + GraphQL) and through the
//! store layer alone (the same driver calls, no HTTP or GraphQL), at 1 and 64 concurrent
//! clients, on one hot showtime and spread over 64 showtimes.
//!
//! ```sh
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' \
//!   cargo run --release --example booking_throughput [-- CLIENTS SHOWTIMES]
//! ```
//! Each run uses a fresh database `bench_booking` and drops it at the end.

use std::sync::Arc;
use std::time::Instant;

use boxoffice::booking::{self, Customer, ResourceId, SeatChoice};
use boxoffice::config::{Limits, SalesArgs};
use boxoffice::domain::api_key::ApiKey;
use boxoffice::domain::global_id::GlobalId;
use boxoffice::domain::ids::{HoldId, ShowtimeId};
use boxoffice::domain::layout::{row_label, HallLayout, LayoutRow};
use boxoffice::domain::seat::SeatKind;
use boxoffice::store::documents::*;
use boxoffice::store::{CatalogueBatch, Store};
use boxoffice::{app, AppState};
use bson::oid::ObjectId;
use bson::DateTime;
use serde_json::json;

/// Seats per hall: 30 × 30, so one showtime holds 450 pairs.
const SIDE: usize = 30;
const PAIRS_PER_CLIENT: usize = 40;

async fn catalogue(store: &Store, showtimes: usize) -> anyhow::Result<(Vec<ShowtimeId>, ApiKey)> {
    let key = ApiKey::generate(&mut rand::rng());
    let mut batch = CatalogueBatch::default();
    batch.channels.push(ChannelDoc {
        code: "bench".into(),
        schema_version: SCHEMA_VERSION,
        name: "bench".into(),
        api_key_hash: key.hash(),
    });
    let cinema = ObjectId::new();
    let layout = HallLayout {
        rows: (0..SIDE)
            .map(|r| LayoutRow {
                label: row_label(r),
                positions: vec![Some(SeatKind::Standard); SIDE],
            })
            .collect(),
    };
    let hall = HallDoc {
        id: ObjectId::new(),
        schema_version: SCHEMA_VERSION,
        cinema_id: cinema,
        name: "1号厅".into(),
        format: "2D".into(),
        capacity: layout.capacity() as i32,
        layout,
    };
    let movie = ObjectId::new();
    let mut ids = Vec::new();
    for i in 0..showtimes {
        let starts = DateTime::from_millis(
            DateTime::now().timestamp_millis() + 86_400_000 + i as i64 * 60_000,
        );
        let showtime = ShowtimeDoc {
            id: ObjectId::new(),
            schema_version: SCHEMA_VERSION,
            cinema: CinemaRef {
                id: cinema,
                name: "影城".into(),
                city: "上海".into(),
            },
            movie: MovieRef {
                id: movie,
                title: "电影".into(),
                runtime_minutes: 120,
            },
            theater: HallRef {
                id: hall.id,
                name: hall.name.clone(),
                format: hall.format.clone(),
            },
            starts_at: starts,
            ends_at: starts,
            language: "国语".into(),
            currency: "CNY".into(),
            prices: vec![ChannelPriceDoc {
                channel: "bench".into(),
                amount: 4000,
            }],
        };
        batch
            .inventories
            .push(SeatInventoryDoc::for_showtime(&showtime, &hall));
        ids.push(showtime.id.into());
        batch.showtimes.push(showtime);
    }
    batch.halls.push(hall);
    store.insert_catalogue(&batch).await?;
    Ok((ids, key))
}

/// Runs `clients` tasks, client `i` on showtime `i % showtimes.len()`, each doing
/// PAIRS_PER_CLIENT hold + confirm pairs with `op`; returns pairs per second.
async fn measure<F, Fut>(clients: usize, showtimes: &[ShowtimeId], op: F) -> f64
where
    F: Fn(ShowtimeId) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let op = Arc::new(op);
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|i| {
            let (op, showtime) = (Arc::clone(&op), showtimes[i % showtimes.len()]);
            tokio::spawn(async move {
                let mut done = 0;
                for _ in 0..PAIRS_PER_CLIENT {
                    if op(showtime).await {
                        done += 1;
                    }
                }
                done
            })
        })
        .collect();
    let mut pairs = 0;
    for task in tasks {
        pairs += task.await.unwrap();
    }
    pairs as f64 / started.elapsed().as_secs_f64()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let uri = std::env::var("MONGODB_URI")?;
    let store = Store::connect(&uri, "bench_booking").await?;
    let policy = SalesArgs::default().hold_policy();
    println!("hold (best 2 seats) + confirm pairs per second; {PAIRS_PER_CLIENT} pairs per client");
    // `booking_throughput CLIENTS SHOWTIMES` runs that one scenario.
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let scenarios = match args[..] {
        [clients, spread] => vec![(clients, spread)],
        _ => vec![(1, 1), (64, 1), (64, 64)],
    };
    for (clients, spread) in scenarios {
        for through_gateway in [true, false] {
            store.drop_database().await?;
            store.ensure_indexes().await?;
            let (showtimes, key) = catalogue(&store, spread).await?;
            let rate = if through_gateway {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                let url = format!("http://{}/graphql", listener.local_addr()?);
                let router = app(AppState::new(store.clone(), Limits::default(), policy));
                let server = tokio::spawn(async move { axum::serve(listener, router).await });
                let client = reqwest::Client::new();
                let auth = format!("Bearer {}", key.as_str());
                let rate = measure(clients, &showtimes, move |showtime| {
                    let (client, url, auth) = (client.clone(), url.clone(), auth.clone());
                    async move {
                        let id = GlobalId::Showtime(showtime).encode();
                        let hold: serde_json::Value = client.post(&url).header("authorization", &auth)
                            .json(&json!({ "query": "mutation ($id: ID!) { holdSeats(input: { showtimeId: $id, best: { count: 2 } }) { id } }", "variables": { "id": id } }))
                            .send().await.unwrap().json().await.unwrap();
                        let Some(hold) = hold["data"]["holdSeats"]["id"].as_str() else { return false };
                        let order: serde_json::Value = client.post(&url).header("authorization", &auth)
                            .json(&json!({ "query": "mutation ($id: ID!) { confirmHold(input: { holdId: $id, customer: { name: \"n\", contact: \"c\" } }) { id } }", "variables": { "id": hold } }))
                            .send().await.unwrap().json().await.unwrap();
                        order["data"]["confirmHold"]["id"].is_string()
                    }
                })
                .await;
                server.abort();
                rate
            } else {
                let store = store.clone();
                measure(clients, &showtimes, move |showtime| {
                    let store = store.clone();
                    async move {
                        let choice = SeatChoice::Best {
                            count: 2,
                            kind: SeatKind::Standard,
                        };
                        let Ok(held) = booking::hold_seats(
                            &store,
                            "bench",
                            showtime,
                            &choice,
                            &policy,
                            ResourceId::fresh(),
                        )
                        .await
                        else {
                            return false;
                        };
                        let customer = Customer {
                            name: "n".into(),
                            contact: "c".into(),
                        };
                        let hold = HoldId::from(held.hold.id);
                        booking::confirm_hold(
                            &store,
                            "bench",
                            showtime,
                            hold,
                            customer,
                            &policy,
                            ResourceId::fresh(),
                        )
                        .await
                        .is_ok()
                    }
                })
                .await
            };
            let path = if through_gateway {
                "gateway (HTTP + GraphQL)"
            } else {
                "store layer (driver only)"
            };
            let place = if spread == 1 {
                "one hot showtime".to_owned()
            } else {
                format!("{spread} showtimes")
            };
            println!("{clients:>3} clients, {place:<16} {path:<26} {rate:>8.0} pairs/s");
        }
    }
    store.drop_database().await?;
    Ok(())
}
