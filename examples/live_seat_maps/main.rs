//! Benchmark: live seat maps (`seatMapChanged` over `graphql-transport-ws`) at scale.
//!
//! - `busy`: 1,000 WebSocket connections, each with one subscription to the same showtime
//!   (a 30 × 30 hall), while 64 HTTP clients (`BENCH_WRITERS=n` for another count) hold 2
//!   seats (`best`) and confirm them, 384 pairs in all. Prints the latency from each write's HTTP answer to its event at each
//!   subscriber (negative when the event came first) over every (subscriber, event) pair,
//!   and until the last subscriber had it, per write; the events delivered per second; any
//!   lost event, version gap or SNAPSHOT sent again; the gateway's CPU per write and per
//!   delivered event, beside the same writes to an unwatched showtime first (so the
//!   difference is the cost of the fan-out); and the gateway's memory.
//! - `busy-unshared`: the same with each subscription run on its own
//!   (`AppState::without_shared_subscriptions`), as before subscribers asking the same thing
//!   shared one execution (`http::websocket::fan_out`).
//! - `idle`: 1,000 showtimes (10 × 10 halls) and 1,000 connections × 10 subscriptions =
//!   10,000 subscriptions (10 per showtime). Prints the time to subscribe them all, the
//!   gateway's memory per subscription and per connection, its CPU while they sit idle, and
//!   `Live::subscriptions()`.
//!
//! It prints figures and asserts nothing about speed; it stops with an error only when a
//! client cannot connect or subscribe.
//!
//! In both, the connections are first opened (`connection_init` → `connection_ack`), then
//! subscribed, 100 connections at a time, and the gateway's RSS and CPU are read after each
//! step, so a connection's cost and a subscription's are told apart.
//!
//! ```sh
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' [BENCH_DATABASE_PID=PID] \
//!   cargo run --release --example live_seat_maps [-- busy|busy-unshared|idle]
//! ```
//! Without an argument all three run, each in a process of its own. Each uses a fresh database
//! `bench_live`, dropped at the end. With `BENCH_DATABASE_PID`, busy also prints the database
//! server's CPU during the writes.
//!
//! The gateway runs in this process on a runtime of its own (2 workers), whose threads' CPU
//! is what is counted. The WebSocket and HTTP clients run in a child process (this program
//! again, with a hidden argument), which also writes the catalogue, so that this process's
//! RSS (`VmRSS`) is the gateway's alone (a client connection holds buffers as big as the
//! server's); the clients print their own figures, which this process passes on as they
//! come.

#[path = "../common/open_files.rs"]
mod open_files;
#[path = "../common/server_cpu.rs"]
mod server_cpu;

#[path = "../common/bench_catalogue.rs"]
mod bench_catalogue;
mod clients;
mod figures;
mod measure;
mod writes;

use std::process::Command;
use std::time::Duration;

use boxoffice::config::{BookingArgs, Limits};
use boxoffice::gateways;
use boxoffice::store::{DatabaseOptions, Store};
use boxoffice::{app, AppState};
use measure::{Clients, Gateway};

const DATABASE: &str = "bench_live";

/// The gateway binary's allocator, so the gateway measured here is the one that runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some(clients::CHILD) {
        open_files::raise_open_file_limit();
        return clients::main(&args[1..]);
    }
    let scenario = match args.first().map(String::as_str) {
        None => {
            // Each scenario in a fresh process, so neither's memory is counted in the other.
            for scenario in ["busy-unshared", "busy", "idle"] {
                let status = Command::new(std::env::current_exe()?)
                    .arg(scenario)
                    .status()?;
                anyhow::ensure!(status.success(), "the {scenario} scenario failed: {status}");
            }
            return Ok(());
        }
        Some(scenario @ ("busy" | "busy-unshared" | "idle")) => scenario,
        Some(other) => anyhow::bail!("no scenario {other:?}: busy, busy-unshared or idle"),
    };
    open_files::raise_open_file_limit();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let uri = std::env::var("MONGODB_URI")?;
    let (servers, cpu) = server_cpu::server_runtime(2)?;
    let options = DatabaseOptions {
        monitor_commands: false,
        ..DatabaseOptions::default()
    };
    let store = servers.block_on(Store::connect_with(&uri, DATABASE, &options))?;
    // The clients' process writes the catalogue: its garbage is not in this one's memory.
    servers.block_on(async {
        store.drop_database().await?;
        store.ensure_indexes().await
    })?;
    let limits = Limits {
        max_live_connections: 20_000,
        channel_requests_per_second: 1_000_000,
        channel_burst: 1_000_000,
        ..Limits::default()
    };
    // On the server runtime, which runs its event relay.
    let entered = servers.enter();
    let state = AppState::new(store.clone(), limits, BookingArgs::default().hold_policy());
    drop(entered);
    let state = if scenario == "busy-unshared" {
        state.without_shared_subscriptions()
    } else {
        state
    };
    let live = state.live.clone();
    let listener = servers.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
    let address = listener.local_addr()?.to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = servers.spawn(boxoffice::serve(listener, app(state), async {
        let _ = stopped.await;
    }));
    // The sweeper, reconciler and sales projection run beside the gateway, as in
    // `boxoffice serve`.
    let background = servers.spawn(boxoffice::background::run(
        store.clone(),
        BookingArgs::default().intervals(),
        gateways::Membership::new(Default::default(), std::time::Duration::from_secs(2), None),
        boxoffice::webhooks::Deliverer::new(
            store.clone(),
            boxoffice::webhooks::Sender::new(false),
            std::sync::Arc::new(boxoffice::domain::ticket_codes::TicketSecret::random()),
        ),
        boxoffice::shutdown::Shutdown::default(),
    ));
    println!("{scenario}: the gateway on {address}, database {DATABASE}");
    let mut clients = Clients::start(scenario.trim_end_matches("-unshared"), &address)?;
    let gateway = Gateway { cpu, live };
    if scenario.starts_with("busy") {
        measure::busy(&gateway, &mut clients)?;
    } else {
        measure::idle(&gateway, &mut clients)?;
    }
    clients.finish()?;
    std::thread::sleep(Duration::from_secs(1));
    println!(
        "gateway after the clients left: {} subscriptions, RSS {}",
        gateway.live.subscriptions(),
        mib(rss_kib())
    );
    let _ = stop.send(());
    let served =
        servers.block_on(async { tokio::time::timeout(Duration::from_secs(10), server).await });
    match served {
        Ok(served) => served??,
        Err(_) => println!("the gateway did not shut down within 10 s"),
    }
    // The gateway's runtime, with its change feed, gone before the database, whose drop would
    // otherwise break the feed (and have it say so).
    drop((gateway, background, store, servers));
    let cleaner = tokio::runtime::Runtime::new()?;
    cleaner.block_on(async {
        let client = mongodb::Client::with_uri_str(&uri).await?;
        client.database(DATABASE).drop().await
    })?;
    Ok(())
}

/// This process's resident memory (`VmRSS`), in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

fn ms(duration: Duration) -> String {
    format!("{:.3} ms", duration.as_secs_f64() * 1000.0)
}

fn us(duration: Duration) -> String {
    format!("{:.1} µs", duration.as_secs_f64() * 1e6)
}
