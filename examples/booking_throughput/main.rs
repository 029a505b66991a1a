//! Benchmark: holds + confirms per second at 1 to 256 concurrent clients, on one hot showtime
//! and spread over 16 or 64 showtimes, three ways:
//! - through the gateway (HTTP + GraphQL + booking + store);
//! - through the booking layer (no HTTP or GraphQL);
//! - directly with the driver: the same MongoDB operations written by hand (read the seats,
//!   choose the best pair, one conditional update to hold; write the order, one conditional
//!   update to sell, mark the order confirmed), with none of the gateway's code around them.
//!
//! Beside the rate (of pairs that succeeded) and the share of pairs that failed, it prints,
//! per successful seat change (the hold or the confirm of a pair that succeeded: 2 per pair):
//! - the CPU of the threads of the runtime the server (or the booking layer, or the driver
//!   code) runs on, not the HTTP clients';
//! - the database's CPU, when `BENCH_DATABASE_PID` names the database server's process;
//! - the commands the database ran (`serverStatus.opcounters`, summed, read before and after
//!   the run): the path's own and those of the background tasks beside it (the sweeper, the
//!   reconciler, the sales projection), which are part of what a seat change costs.
//!
//! Scenarios (clients, showtimes): (1, 1), (16, 16), (64, 64), (64, 1) and (256, 1): 256
//! clients on one 30 × 30 showtime make one pair each (a blockbuster's first minute, all at
//! once); more clients than a hall has pairs for get a bigger hall (named in the output),
//! within the 1,000 seats a hall may have.
//!
//! ```sh
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' [BENCH_DATABASE_PID=PID] \
//!   [BENCH_DATABASE=boxoffice] [BENCH_ADMISSION_WAIT_MS=1000] \
//!   cargo run --release --example booking_throughput [-- CLIENTS SHOWTIMES [gateway|booking|driver]]
//! ```
//! Without `BENCH_DATABASE` each path runs in a fresh database `bench_booking`, dropped at the
//! end. With it, the benchmark's showtimes (and its channel `bench`) are added to that
//! database as it is, e.g. one holding the national demo, so that the same bookings can be
//! measured beside a catalogue of any size.

#[path = "../common/server_cpu.rs"]
mod server_cpu;

#[path = "../common/bench_catalogue.rs"]
mod bench_catalogue;

#[path = "../common/booking_pairs.rs"]
mod booking_pairs;

#[path = "../common/opcounters.rs"]
mod opcounters;

use std::sync::Arc;
use std::time::{Duration, Instant};

use booking_pairs::{booking_pair, driver_pair, gateway_pair};
use boxoffice::config::{BookingArgs, Limits};
use boxoffice::domain::ids::ShowtimeId;
use boxoffice::gateways;
use boxoffice::holds::ShowtimeLocks;
use boxoffice::store::{DatabaseOptions, Store};
use boxoffice::{app, AppState};
use server_cpu::ThreadCpu;

const DATABASE: &str = "bench_booking";

/// The gateway binary's allocator, so the gateway measured here is the one that runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    Gateway,
    /// The gateway, every hold with one code of a 64-code batch (a code per buyer).
    GatewayVouchers,
    /// The gateway, every hold with the same code (a public promotion: one hot document).
    GatewayVoucher,
    Booking,
    Driver,
}

/// Seats per hall side: 30 × 30, so one showtime holds 450 pairs; a bigger hall only when
/// more clients share a showtime than it has pairs for (`hall_side`).
const SIDE: usize = 30;
/// Pairs made in one run, divided among the clients; fewer when the clients share showtimes,
/// so that they never run out of seats (a 30 × 30 hall has 450 pairs).
const PAIRS_PER_RUN: usize = 2_560;
/// Pairs made on one showtime of a `SIDE` × `SIDE` hall at most, in proportion in a bigger one
/// (`pairs_per_showtime`): some pairs are left, so that the last clients still find one.
const PAIRS_PER_SHOWTIME: usize = 384;
/// Pairs each client makes at least.
const LEAST_PAIRS_PER_CLIENT: usize = 1;

/// The most pairs a run makes on one showtime of a `side` × `side` hall.
fn pairs_per_showtime(side: usize) -> usize {
    PAIRS_PER_SHOWTIME * side * side / (SIDE * SIDE)
}

/// The side of the hall when `clients_per_showtime` clients share a showtime: `SIDE`, or the
/// smallest even side (rows of whole pairs) above it that gives each of them
/// `LEAST_PAIRS_PER_CLIENT` pairs (up to 384 clients a showtime fit 30 × 30). A bigger hall
/// has a bigger seat inventory to read and write, so the output names it.
fn hall_side(clients_per_showtime: usize) -> usize {
    let mut side = SIDE;
    while pairs_per_showtime(side) < LEAST_PAIRS_PER_CLIENT * clients_per_showtime {
        side += 2;
    }
    side
}

/// Runs `clients` tasks, client `i` on showtime `i % showtimes.len()` (of `side` × `side`
/// seats), each doing the same number of hold + confirm pairs with `op`, after one pair to
/// warm up; returns the pairs per second (of pairs that succeeded), the share that failed, and
/// the CPU and commands spent per successful seat change.
async fn measure<F, Fut>(
    meters: Meters,
    clients: usize,
    showtimes: &[ShowtimeId],
    side: usize,
    op: F,
) -> Run
where
    F: Fn(ShowtimeId) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let op = Arc::new(op);
    let clients_per_showtime = clients.div_ceil(showtimes.len());
    // At least one pair each: more than 2,560 clients make a longer run.
    let pairs_per_client = (PAIRS_PER_RUN / clients)
        .min(pairs_per_showtime(side) / clients_per_showtime)
        .max(1);
    op(showtimes[0]).await;
    // The commands read outside the CPU readings, so that their own work is in neither clock.
    let commands_before = meters.commands().await;
    let (cpu_before, database_before) = meters.read();
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
    let elapsed = started.elapsed();
    let (cpu_after, database_after) = meters.read();
    let commands_after = meters.commands().await;
    let tried = clients * pairs_per_client;
    // The successful seat changes: the hold and the confirm of each pair that succeeded.
    let changes = (pairs * 2).max(1) as u32;
    Run {
        pairs_per_second: pairs as f64 / elapsed.as_secs_f64(),
        failed: (tried - pairs) as f64 / tried as f64,
        cpu_per_change: (cpu_after - cpu_before) / changes,
        database_cpu_per_change: database_after
            .zip(database_before)
            .map(|(after, before)| (after - before) / changes),
        commands_per_change: commands_before
            .zip(commands_after)
            .map(|(before, after)| opcounters::between(before, after) as f64 / changes as f64),
    }
}

/// What a run reads before and after: the CPU clocks of the server runtime's threads and of
/// the database server, and the database server's count of commands.
#[derive(Clone)]
struct Meters {
    server: ThreadCpu,
    database_pid: Option<u32>,
    /// A client of the database server, for its `serverStatus`.
    database: mongodb::Client,
}

impl Meters {
    fn read(&self) -> (Duration, Option<Duration>) {
        (
            self.server.used(),
            self.database_pid.and_then(server_cpu::process_cpu),
        )
    }

    async fn commands(&self) -> Option<i64> {
        opcounters::commands_in(&opcounters::server_status(&self.database).await?)
    }
}

/// What one path spent on one scenario.
struct Run {
    pairs_per_second: f64,
    failed: f64,
    /// CPU of the server runtime per successful seat change (a hold or a confirm).
    cpu_per_change: Duration,
    /// CPU of the database server per successful seat change, when its process is known.
    database_cpu_per_change: Option<Duration>,
    /// Commands the database ran per successful seat change, when it counts them.
    commands_per_change: Option<f64>,
}

fn main() -> anyhow::Result<()> {
    let uri = std::env::var("MONGODB_URI")?;
    let existing = std::env::var("BENCH_DATABASE").ok();
    let database_pid: Option<u32> = std::env::var("BENCH_DATABASE_PID")
        .ok()
        .map(|pid| pid.parse())
        .transpose()?;
    // `booking_throughput CLIENTS SHOWTIMES [gateway|booking|driver]` runs that one scenario
    // (on that one path).
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scenarios = match &args[..] {
        [clients, spread, ..] => vec![(clients.parse()?, spread.parse()?)],
        _ => vec![(1, 1), (16, 16), (64, 64), (64, 1), (256, 1)],
    };
    let paths: Vec<Path> = match args.get(2).map(String::as_str) {
        None => vec![Path::Gateway, Path::Booking, Path::Driver],
        Some("gateway") => vec![Path::Gateway],
        // Holds/s with and without a voucher, in one run (issue 36).
        Some("vouchers") => vec![Path::Gateway, Path::GatewayVouchers, Path::GatewayVoucher],
        Some("booking") => vec![Path::Booking],
        Some("driver") => vec![Path::Driver],
        Some(other) => {
            anyhow::bail!("no path {other:?}: gateway, vouchers, booking or driver")
        }
    };
    // The server, the booking layer or the driver code runs here; the HTTP clients elsewhere.
    let (servers, server_cpu) = server_cpu::server_runtime(2)?;
    let clients_runtime = tokio::runtime::Runtime::new()?;
    let database = existing.clone().unwrap_or_else(|| DATABASE.to_owned());
    // As `boxoffice serve` connects: no command monitoring (tests turn it on).
    let defaults = DatabaseOptions::default();
    let options = DatabaseOptions {
        monitor_commands: false,
        // The door's wait, to weigh it (`--admission-wait-ms` of `boxoffice serve`).
        admission_wait: std::env::var("BENCH_ADMISSION_WAIT_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(defaults.admission_wait, Duration::from_millis),
        latency_probes: true,
        ..defaults
    };
    let store = servers.block_on(Store::connect_with(&uri, &database, &options))?;
    // A loaded catalogue's collections opened one after another first, as `boxoffice serve`
    // does: cold ones opened by concurrent requests can exhaust SecantusDB's memory.
    if existing.is_some() {
        servers.block_on(store.with_timeout(Duration::from_secs(600)).warm_up())?;
    }
    let db = servers
        .block_on(mongodb::Client::with_uri_str(&uri))?
        .database(&database);
    let policy = BookingArgs::default().hold_policy();
    println!("hold (best 2 seats) + confirm, in database {database}");
    println!(
        "per change: per successful seat change (the hold or the confirm of a pair that \
         succeeded); commands: the database's serverStatus opcounters, background tasks' included"
    );
    println!(
        "{:>7}  {:<16} {:<26} {:>8} {:>7} {:>13} {:>16} {:>16}",
        "clients",
        "showtimes",
        "path",
        "pairs/s",
        "failed",
        "CPU ms/change",
        "DB CPU ms/change",
        "commands/change"
    );
    for (clients, spread) in scenarios {
        let side = hall_side(usize::div_ceil(clients, spread));
        for &path in &paths {
            // A store of its own: the relay of an earlier path's gateway (which runs on) takes
            // the notes of its own store's changes only.
            let store = servers.block_on(Store::connect_with(&uri, &database, &options))?;
            let (showtimes, key) = servers.block_on(async {
                if existing.is_some() {
                    // The channel of an earlier run, whose key is gone.
                    db.collection::<bson::Document>("channels")
                        .delete_many(bson::doc! { "_id": "bench" })
                        .await?;
                } else {
                    store.drop_database().await?;
                }
                store.ensure_indexes().await?;
                bench_catalogue::insert(&store, spread, side).await
            })?;
            // The sweeper, reconciler and sales projection run beside the gateway, as in
            // `boxoffice serve`.
            let background = (path != Path::Driver).then(|| {
                servers.spawn(boxoffice::background::run(
                        store.clone(),
                        BookingArgs::default().intervals(),
                        gateways::Membership::new(
                            Default::default(),
                            std::time::Duration::from_secs(2),
                            None,
                        ),
                        boxoffice::webhooks::Deliverer::new(
                            store.clone(),
                            boxoffice::webhooks::Sender::new(false),
                            std::sync::Arc::new(
                                boxoffice::domain::ticket_codes::TicketSecret::random(),
                            ),
                        ),
                        boxoffice::shutdown::Shutdown::default(),
                    ))
            });
            let meters = Meters {
                server: server_cpu.clone(),
                database_pid,
                database: db.client().clone(),
            };
            let run = match path {
                Path::Gateway | Path::GatewayVouchers | Path::GatewayVoucher => {
                    let secret = boxoffice::domain::ticket_codes::TicketSecret::random();
                    let codes: Arc<Vec<String>> = Arc::new(match path {
                        Path::GatewayVouchers => {
                            servers.block_on(voucher_codes(&store, &secret, 64))?
                        }
                        Path::GatewayVoucher => {
                            servers.block_on(voucher_codes(&store, &secret, 1))?
                        }
                        _ => Vec::new(),
                    });
                    let listener =
                        servers.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
                    let url = format!("http://{}/graphql", listener.local_addr()?);
                    // On the server runtime, which runs its event relay.
                    let entered = servers.enter();
                    let state = AppState::new(store.clone(), Limits::default(), policy)
                        .with_ticket_secret(secret);
                    let router = app(state);
                    drop(entered);
                    let server = servers.spawn(async move { axum::serve(listener, router).await });
                    let auth = format!("Bearer {}", key.as_str());
                    let client = reqwest::Client::new();
                    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
                    let run = clients_runtime.block_on(measure(
                        meters,
                        clients,
                        &showtimes,
                        side,
                        move |showtime| {
                            let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let code = (!codes.is_empty()).then(|| codes[n % codes.len()].clone());
                            gateway_pair(client.clone(), url.clone(), auth.clone(), showtime, code)
                        },
                    ));
                    server.abort();
                    run
                }
                Path::Driver => {
                    let (db, locks) = (db.clone(), Arc::new(ShowtimeLocks::default()));
                    servers.block_on(measure(
                        meters,
                        clients,
                        &showtimes,
                        side,
                        move |showtime| driver_pair(db.clone(), Arc::clone(&locks), showtime),
                    ))
                }
                Path::Booking => {
                    // The relay of this process's events, as `AppState` runs it.
                    let relay = servers.spawn(boxoffice::assembly::event_relay(&store).run());
                    let (store, locks) = (store.clone(), Arc::new(ShowtimeLocks::default()));
                    let confirmations = Arc::new(boxoffice::orders::Confirmations::default());
                    let run = servers.block_on(measure(
                        meters,
                        clients,
                        &showtimes,
                        side,
                        move |showtime| {
                            let queues = (Arc::clone(&locks), Arc::clone(&confirmations));
                            booking_pair(store.clone(), queues, policy, showtime)
                        },
                    ));
                    relay.abort();
                    run
                }
            };
            if let Some(background) = background {
                background.abort();
            }
            print_run(clients, spread, side, path, &run);
        }
    }
    let per_command = servers.block_on(driver_command_cpu(&db, &server_cpu))?;
    println!(
        "one driver command (find a small document by _id, from one task): {:.3} ms CPU",
        per_command.as_secs_f64() * 1000.0
    );
    if existing.is_none() {
        servers.block_on(store.drop_database())?;
    }
    Ok(())
}

/// The CPU the server runtime spends on one driver command of the smallest kind, a measure of
/// what each of a hold's and a confirm's commands costs before any of their own work.
async fn driver_command_cpu(db: &mongodb::Database, cpu: &ThreadCpu) -> anyhow::Result<Duration> {
    const COMMANDS: u32 = 2_000;
    let probes = db.collection::<bson::Document>("bench_probe");
    probes.delete_many(bson::doc! {}).await?;
    probes.insert_one(bson::doc! { "_id": 1, "x": 1 }).await?;
    // On a worker thread, as a request's commands run; the first 100 warm the pool up.
    let finds = |probes: mongodb::Collection<bson::Document>, count: u32| {
        tokio::spawn(async move {
            for _ in 0..count {
                probes.find_one(bson::doc! { "_id": 1 }).await?;
            }
            anyhow::Ok(())
        })
    };
    finds(probes.clone(), 100).await??;
    let before = cpu.used();
    finds(probes.clone(), COMMANDS).await??;
    let used = cpu.used() - before;
    probes.drop().await?;
    Ok(used / COMMANDS)
}

fn print_run(clients: usize, spread: usize, side: usize, path: Path, run: &Run) {
    let path = match path {
        Path::Gateway => "gateway (HTTP + GraphQL)",
        Path::GatewayVouchers => "gateway, 64 voucher codes",
        Path::GatewayVoucher => "gateway, one voucher code",
        Path::Booking => "booking layer",
        Path::Driver => "driver only",
    };
    let mut place = if spread == 1 {
        "one hot".to_owned()
    } else {
        format!("{spread}")
    };
    if side != SIDE {
        place += &format!(" ({side}×{side})");
    }
    let database = run
        .database_cpu_per_change
        .map(|cpu| format!("{:.3}", cpu.as_secs_f64() * 1000.0))
        .unwrap_or_else(|| "-".into());
    let commands = run
        .commands_per_change
        .map(|commands| format!("{commands:.2}"))
        .unwrap_or_else(|| "-".into());
    println!(
        "{clients:>7}  {place:<16} {path:<26} {:>8.0} {:>6.1}% {:>13.3} {database:>16} \
         {commands:>16}",
        run.pairs_per_second,
        run.failed * 100.0,
        run.cpu_per_change.as_secs_f64() * 1000.0,
    );
}

/// `count` codes of a new batch, 10% off, a million redemptions each, made by the operator
/// `bench-vouchers` (made here) under `secret`.
async fn voucher_codes(
    store: &Store,
    secret: &boxoffice::domain::ticket_codes::TicketSecret,
    count: i64,
) -> anyhow::Result<Vec<String>> {
    let operator = "bench-vouchers";
    if store.operator_by_code(operator).await?.is_none() {
        boxoffice::catalogue::create_operator(store, operator, "bench", None).await?;
    }
    let now = boxoffice::store::now();
    let new = boxoffice::vouchers::NewBatch::checked(
        "bench",
        None,
        count,
        boxoffice::vouchers::rules::VoucherEffect::PercentOff(10),
        None,
        boxoffice::vouchers::rules::Validity::new(now, now + chrono::Duration::days(1))?,
        boxoffice::vouchers::rules::Caps::new(1_000_000, None)?,
    )?;
    let keys = boxoffice::idempotency::KeyPolicy::default();
    let made =
        boxoffice::vouchers::create_batch(store, secret, &keys, operator, None, &new, &()).await?;
    Ok(made.codes.iter().map(|c| c.reveal().to_owned()).collect())
}
