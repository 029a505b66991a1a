//! Benchmark: holds + confirms per second at 1 and 64 concurrent clients, on one hot showtime
//! and spread over 64 showtimes, three ways:
//! - through the gateway (HTTP + GraphQL + booking + store);
//! - through the booking layer (no HTTP or GraphQL);
//! - directly with the driver: the same MongoDB operations written by hand (read the seats,
//!   choose the best pair, one conditional update to hold; write the order, one conditional
//!   update to sell, mark the order confirmed), with none of the gateway's code around them.
//!
//! ```sh
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' \
//!   cargo run --release --example booking_throughput [-- CLIENTS SHOWTIMES]
//! ```
//! Each run uses a fresh database `bench_booking` and drops it at the end.

use std::sync::Arc;
use std::time::Instant;

use boxoffice::booking::{self, Attempt, Customer, SeatChoice, ShowtimeLocks};
use boxoffice::config::{Limits, SalesArgs};
use boxoffice::domain::api_key::ApiKey;
use boxoffice::domain::best_seats::{best_adjacent, Cell, SeatGrid};
use boxoffice::domain::global_id::GlobalId;
use boxoffice::domain::ids::{HoldId, ShowtimeId};
use boxoffice::domain::layout::{row_label, HallLayout, LayoutRow};
use boxoffice::domain::seat::SeatKind;
use boxoffice::store::documents::*;
use boxoffice::store::{CatalogueBatch, DatabaseOptions, Store};
use boxoffice::{app, AppState};
use bson::oid::ObjectId;
use bson::DateTime;
use serde_json::json;

const DATABASE: &str = "bench_booking";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    Gateway,
    Booking,
    Driver,
}

/// Seats per hall: 30 × 30, so one showtime holds 450 pairs.
const SIDE: usize = 30;
/// Pairs each client makes, at most; fewer when the clients share showtimes, so that they
/// never run out of seats (a 30 × 30 hall has 450 pairs).
const PAIRS_PER_CLIENT: usize = 40;
const PAIRS_PER_SHOWTIME: usize = 384;

async fn catalogue(store: &Store, showtimes: usize) -> anyhow::Result<(Vec<ShowtimeId>, ApiKey)> {
    let key = ApiKey::generate(&mut rand::rng());
    let mut batch = CatalogueBatch::default();
    batch.channels.push(ChannelDoc {
        code: "bench".into(),
        schema_version: SCHEMA_VERSION,
        name: "bench".into(),
        api_key_hash: key.hash(),
        rate_limit: None,
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

/// Runs `clients` tasks, client `i` on showtime `i % showtimes.len()`, each doing the same
/// number of hold + confirm pairs with `op`; returns pairs per second (of pairs that
/// succeeded) and the share of pairs that failed.
async fn measure<F, Fut>(clients: usize, showtimes: &[ShowtimeId], op: F) -> (f64, f64)
where
    F: Fn(ShowtimeId) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let op = Arc::new(op);
    let clients_per_showtime = clients.div_ceil(showtimes.len());
    let pairs_per_client = PAIRS_PER_CLIENT.min(PAIRS_PER_SHOWTIME / clients_per_showtime);
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|i| {
            let (op, showtime) = (Arc::clone(&op), showtimes[i % showtimes.len()]);
            tokio::spawn(async move {
                let mut done = 0;
                for _ in 0..pairs_per_client {
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
    let tried = clients * pairs_per_client;
    let failed = (tried - pairs) as f64 / tried as f64;
    (pairs as f64 / started.elapsed().as_secs_f64(), failed)
}

/// One hold + confirm with hand-written driver calls; false when the seats kept being taken.
/// Choosing takes the showtime's lock, as the gateway does.
async fn driver_pair(
    db: mongodb::Database,
    locks: Arc<ShowtimeLocks>,
    showtime: ShowtimeId,
) -> bool {
    use bson::{doc, Document};
    let chooser = locks.lock(showtime).await;
    let inventories = db.collection::<Document>("seat_inventory");
    let id = ObjectId::from_bytes(showtime.0);
    let hold = ObjectId::new();
    let mut held = None;
    for _ in 0..8 {
        let inventory = inventories
            .find_one(doc! { "_id": id })
            .await
            .unwrap()
            .unwrap();
        let seats = inventory.get_document("seats").unwrap();
        let rows: Vec<(String, Vec<Cell>)> = seats
            .iter()
            .map(|(row, cells)| {
                let cells = cells.as_array().unwrap().iter().map(|cell| Cell::Seat {
                    kind: SeatKind::Standard,
                    free: cell.as_document().unwrap().get_str("state") == Ok("AVAILABLE"),
                });
                (row.clone(), cells.collect())
            })
            .collect();
        let grid = SeatGrid::new(rows.iter().map(|(_, cells)| cells.clone()).collect());
        let Some(pair) = best_adjacent(&grid, 2, SeatKind::Standard) else {
            return false;
        };
        let paths: Vec<String> = pair
            .iter()
            .map(|p| format!("seats.{}.{}", rows[p.row].0, p.column))
            .collect();
        let mut filter = doc! { "_id": id, "$expr": { "$gt": ["$startsAt", "$$NOW"] } };
        let mut set = Document::new();
        for path in &paths {
            filter.insert(format!("{path}.state"), "AVAILABLE");
            set.insert(format!("{path}.state"), "HELD");
            set.insert(format!("{path}.hold"), hold);
        }
        let now = DateTime::now();
        let expires = DateTime::from_millis(now.timestamp_millis() + 600_000);
        let update = doc! {
            "$set": set,
            "$push": { "holds": { "id": hold, "channel": "bench", "expiresAt": expires } },
            "$inc": { "counts.available": -2, "counts.held": 2 },
        };
        if inventories
            .update_one(filter, update)
            .await
            .unwrap()
            .modified_count
            == 1
        {
            held = Some(paths);
            break;
        }
    }
    drop(chooser);
    let Some(paths) = held else { return false };
    let orders = db.collection::<Document>("orders");
    let order = ObjectId::new();
    orders
        .insert_one(doc! { "_id": order, "status": "PENDING", "holdId": hold, "channel": "bench" })
        .await
        .unwrap();
    let mut filter = doc! {
        "_id": id,
        "holds": { "$elemMatch": { "id": hold, "channel": "bench" } },
    };
    let mut set = Document::new();
    let mut unset = Document::new();
    for path in &paths {
        filter.insert(format!("{path}.state"), "HELD");
        filter.insert(format!("{path}.hold"), hold);
        set.insert(format!("{path}.state"), "SOLD");
        set.insert(format!("{path}.order"), order);
        unset.insert(format!("{path}.hold"), "");
    }
    let update = doc! {
        "$set": set,
        "$unset": unset,
        "$pull": { "holds": { "id": hold } },
        "$inc": { "counts.held": -2, "counts.sold": 2 },
    };
    if inventories
        .update_one(filter, update)
        .await
        .unwrap()
        .modified_count
        != 1
    {
        return false;
    }
    orders
        .update_one(
            doc! { "_id": order, "status": "PENDING" },
            doc! { "$set": { "status": "CONFIRMED" } },
        )
        .await
        .unwrap();
    true
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let uri = std::env::var("MONGODB_URI")?;
    // As `boxoffice serve` connects: no command monitoring (tests turn it on).
    let options = DatabaseOptions {
        monitor_commands: false,
        ..DatabaseOptions::default()
    };
    let store = Store::connect_with(&uri, DATABASE, &options).await?;
    let policy = SalesArgs::default().hold_policy();
    println!("hold (best 2 seats) + confirm: pairs per second, and the share of pairs that failed");
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
        for path in [Path::Gateway, Path::Booking, Path::Driver] {
            store.drop_database().await?;
            store.ensure_indexes().await?;
            let (showtimes, key) = catalogue(&store, spread).await?;
            // The sweeper, reconciler and sales projection run beside the gateway, as in
            // `boxoffice serve`.
            let background = (path != Path::Driver).then(|| {
                tokio::spawn(booking::run_background(
                    store.clone(),
                    SalesArgs::default().intervals(),
                ))
            });
            let (rate, failed) = if path == Path::Gateway {
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
            } else if path == Path::Driver {
                let db = mongodb::Client::with_uri_str(&uri)
                    .await?
                    .database(DATABASE);
                let locks = Arc::new(ShowtimeLocks::default());
                measure(clients, &showtimes, move |showtime| {
                    driver_pair(db.clone(), Arc::clone(&locks), showtime)
                })
                .await
            } else {
                let store = store.clone();
                let locks = Arc::new(ShowtimeLocks::default());
                measure(clients, &showtimes, move |showtime| {
                    let (store, locks) = (store.clone(), Arc::clone(&locks));
                    async move {
                        let choice = SeatChoice::Best {
                            count: 2,
                            kind: SeatKind::Standard,
                        };
                        let Ok(held) = booking::hold_seats(
                            &store,
                            &locks,
                            "bench",
                            showtime,
                            &choice,
                            &policy,
                            Attempt::unkeyed(),
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
                            Attempt::unkeyed(),
                        )
                        .await
                        .is_ok()
                    }
                })
                .await
            };
            if let Some(background) = background {
                background.abort();
            }
            let path = match path {
                Path::Gateway => "gateway (HTTP + GraphQL)",
                Path::Booking => "booking layer",
                Path::Driver => "driver only",
            };
            let place = if spread == 1 {
                "one hot showtime".to_owned()
            } else {
                format!("{spread} showtimes")
            };
            println!(
                "{clients:>3} clients, {place:<16} {path:<26} {rate:>8.0} pairs/s {:>6.1}% failed",
                failed * 100.0
            );
        }
    }
    store.drop_database().await?;
    Ok(())
}
