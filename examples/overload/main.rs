//! Benchmark: overload without collapse (issue 34). Many buyers at once against a cold
//! gateway: does it keep selling, refuse what it cannot serve quickly, and recover once the
//! crowd thins?
//!
//! Each step starts fresh gateway processes (`boxoffice serve`, the release binary, on a fresh
//! database: 8 channels with their API keys, showtimes of a 6 × 12 hall) and, all at once, N
//! clients. Each client loops over a booking lifecycle through `POST /graphql`: hold 2 seats
//! (half the time `best`, half named seats it believes free) on a random showtime, then
//! release the hold (40%) or confirm it and cancel the order (60%), so seats come back and a
//! load can run for minutes on 72 seats. Every mutation has an idempotency key; a third are
//! sent again with it (a client that lost the answer). A 503, 504, 429, a 5 s client timeout
//! or a broken connection is retried with the same key after its `Retry-After` (× 1–1.5) or,
//! without one, 100–500 ms; a business refusal (seats taken, …) is not: the client moves on.
//!
//! That is the polite client (`BENCH_CLIENT=polite`, the default). The impatient one
//! (`BENCH_CLIENT=impatient`) reproduces an independent client's workload (issue 48): 4
//! channels (the first 4 of the 8), 0–0.25 s between operations, named seats two side by side
//! in one of 4 contested runs of 4 seats (the middle of the middle rows, C3–C6, C7–C10,
//! D3–D6, D7–D10) whatever it saw taken, half of its holds `best`; a third of its requests
//! sent again with their key, half of those at the same time as the first sending and to the
//! other gateway (with one gateway, to the same); every 503, 504, 429, timeout or broken
//! connection retried after 0.2–0.8 s whatever `Retry-After` says, as impatient apps do.
//!
//! Per step it prints the successful seat changes (holds, releases, confirms and cancels that
//! succeeded, a replayed key counted once) and goodput (the same per second), the share of
//! attempts answered 503, 504 or 429, timed out or failed to connect, p50/p99 latency of
//! successes, of refusals (503/504/429) and of every attempt the gateway answered (all but
//! timeouts and failed connections), the time from the start to the first success, the
//! gateways' and the database's CPU seconds, the database's commands per successful seat
//! change (`serverStatus.opcounters`, summed, read when the gateways are up and at the end:
//! the requests', the gateways' background work, everything the server ran) and its CPU per
//! successful seat change (with `BENCH_DATABASE_PID`), how many commands were inside the
//! server at once by its own clock (`serverStatus.opLatencies`) and how many of its threads
//! were running or waiting for a CPU (sampled from `/proc` every 20 ms, with
//! `BENCH_DATABASE_PID`; SecantusDB has a thread per connection, so with the database on one
//! core this is the queue in front of it), and the gateway's peak RSS; beside it
//! the seat changes of each second, and the gateway's `/metrics` lines about the database,
//! its pool, requests in flight and refusals (whatever the build has).
//!
//! Steps: 10, 40, 150, 300 and 600 clients, on 2 hot showtimes and on 64. Then the recovery:
//! the knee (the most clients whose goodput on 2 showtimes is within 10% of the peak) × 4 for
//! 30 s, then 40 of them go on against the same gateway; it prints how long until a 1-second
//! window has a p99 under 1 s (counting every attempt that ended in it) and at least one
//! success.
//!
//! ```sh
//! cargo build --release --bin boxoffice
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' [BENCH_DATABASE_PID=PID] \
//!   cargo run --release --example overload
//! ```
//! The independent client's table (issue 48): two gateways, 40 and 150 impatient clients on 2
//! showtimes for 45 s each, holds that expire after 5 s; then the same with the gateways'
//! pool at 16 connections, and at 32:
//! ```sh
//! BENCH_CLIENT=impatient BENCH_GATEWAYS=2 BENCH_CLIENTS=40,150 BENCH_SHOWTIMES=2 \
//!   BENCH_STEP_SECS=45 BENCH_OVERLOAD_SECS=0 \
//!   BENCH_GATEWAY_ARGS='--hold-ttl-seconds 5 --sweep-interval-seconds 1' \
//!   MONGODB_URI=… [BENCH_DATABASE_PID=PID] cargo run --release --example overload
//! BENCH_CLIENT=impatient BENCH_GATEWAYS=2 BENCH_CLIENTS=40,150 BENCH_SHOWTIMES=2 \
//!   BENCH_STEP_SECS=45 BENCH_OVERLOAD_SECS=0 \
//!   BENCH_GATEWAY_ARGS='--hold-ttl-seconds 5 --sweep-interval-seconds 1 --db-max-pool-size 16' \
//!   MONGODB_URI=… [BENCH_DATABASE_PID=PID] cargo run --release --example overload
//! ```
//! (and `--db-max-pool-size 32` in the last).
//!
//! Settings (environment):
//! - `BENCH_CLIENT`: `polite` (the default) or `impatient` (the independent client, above).
//! - `BENCH_GATEWAY_BIN`: the gateway binary (default `boxoffice` beside this example's
//!   directory in the target directory, i.e. `target/release/boxoffice`); an older build gives
//!   the "before" figures, so only flags every build knows are passed: `serve --bind
//!   127.0.0.1:0`, then `BENCH_GATEWAY_ARGS` (whitespace-separated) for newer ones.
//! - `BENCH_CLIENTS` (`10,40,150,300,600`), `BENCH_SHOWTIMES` (`2,64`), `BENCH_STEP_SECS`
//!   (20), `BENCH_GATEWAYS` (1: with 2, two gateways on one database, clients split between
//!   them; with `1,2`, each step once with each, see below), `BENCH_OVERLOAD_SECS` (30; 0
//!   skips the recovery), `BENCH_RECOVERY_SECS` (30: how long the 40 clients run after it).
//! - `BENCH_CLIENT_GATEWAYS`: how many of a step's gateways the clients use (all): with 1 and
//!   two gateways, the second takes no client and still runs its background work, owns its
//!   showtimes and serves the writes forwarded to it. What a second process costs beside
//!   one, apart from splitting the clients.
//! - `BENCH_DATABASE_PID`: the database server's pid, for its CPU; `BENCH_GATEWAY_LOG`: the
//!   gateways' `RUST_LOG` (`warn`). Each gateway's log is kept in a temporary directory, named
//!   in the output.
//!
//! The clients, the gateways and the database share the machine: on a small one the clients'
//! own CPU (printed) is part of the picture. The commands are the server's: nothing else
//! should use it during a run. Each step's database is dropped at the end of the run.
//!
//! The test server slows with its history, whatever the crowd: SecantusDB prunes its oplog
//! an entry at a time once it holds `--oplog-max-entries` (100,000 by default: about a minute
//! into a run at these rates), where MongoDB drops whole truncation markers. Measured (issue
//! 48, 2 showtimes, one gateway, `BENCH_CLIENTS=10,10,10,10,600,10`): 329, 322, 298, 282, 254,
//! 245 seat changes/s by default, the last 10-client step below the 600-client one; 340, 325,
//! 329, 317, 286, 310 with `--oplog-max-entries 20000000`. For steps that compare with each
//! other, start the server with that, and end with a step like the first
//! (`BENCH_CLIENTS=10,40,150,300,600,10`) to see what the server itself lost meanwhile.
//! Steps of one configuration still differ by up to half from one minute to the next on a
//! shared machine (issue 48: every kind of command took twice as long in one run as in the
//! run before it, with as many commands per seat change). To compare a crowd with a quiet
//! evening, alternate them, each first as often as second
//! (`BENCH_CLIENTS=10,600,600,10,10,600,600,10`): the run then prints the means of each
//! number of clients, and the crowd's goodput against the quiet steps'. The server slows with
//! its history even so (issue 48, one gateway, 2 showtimes: 2.16, 2.36 and 3.06 ms of its CPU
//! per seat change in three 10-client steps of one run), so in `10,600,10,600,…` every crowd
//! step pays for more history than its quiet one: 600 clients served 89% of 10 that way, 103%
//! in the order above, half an hour apart on the same build. Two gateways against one, the
//! same way: `BENCH_GATEWAYS=1,2` runs each step with one gateway and with two, one right
//! after the other, in turn first and second (ABBA: 1, 2, then 2, 1 the next time that number
//! of clients comes), and prints each pair's goodput ratio and their mean. Measured (issue 48,
//! item 4's workload): separate runs of one gateway and of two, 95 s apart, put the database's
//! CPU per seat change 20 to 37% apart in one pair of four, both ways.

#[path = "../common/bench_catalogue.rs"]
#[allow(dead_code)] // Only its showtimes are used here; the channels are the seed's own.
mod bench_catalogue;
mod client;
mod gateway;
mod load;
mod metrics;
#[path = "../common/opcounters.rs"]
mod opcounters;
#[path = "../common/open_files.rs"]
mod open_files;
mod procfs;
mod record;
mod report;
mod seed;
#[path = "../common/server_cpu.rs"]
#[allow(dead_code)] // Only its reader of another process's CPU is used here.
mod server_cpu;
mod server_time;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use boxoffice::store::{DatabaseOptions, Store};
use client::Behaviour;
use gateway::{Gateway, Launch};
use load::Group;
use record::Recorder;
use report::Row;

/// The clients that stay after the overload.
const AFTER_OVERLOAD: usize = 40;

/// How long the run waits for each step's database to be dropped at its end.
const DROP_WITHIN: Duration = Duration::from_secs(10);

/// What the environment asks for.
struct Settings {
    launch: Launch,
    behaviour: Behaviour,
    clients: Vec<usize>,
    showtimes: Vec<usize>,
    step: Duration,
    overload: Duration,
    recovery: Duration,
    /// The gateway processes of each step: one number, or several that each step runs with in
    /// turn.
    gateways: Vec<usize>,
    /// How many of a step's gateways take clients (`usize::MAX`: all).
    client_gateways: usize,
    database_pid: Option<u32>,
}

impl Settings {
    fn from_env() -> anyhow::Result<Settings> {
        let uri = std::env::var("MONGODB_URI")
            .map_err(|_| anyhow::anyhow!("set MONGODB_URI to the database server"))?;
        let binary = match std::env::var_os("BENCH_GATEWAY_BIN") {
            Some(path) => PathBuf::from(path),
            // This example runs from <target>/release/examples/.
            None => std::env::current_exe()?
                .parent()
                .and_then(|examples| examples.parent())
                .map(|release| release.join("boxoffice"))
                .ok_or_else(|| anyhow::anyhow!("no target directory"))?,
        };
        anyhow::ensure!(
            binary.exists(),
            "no gateway binary at {}: `cargo build --release --bin boxoffice`, or set \
             BENCH_GATEWAY_BIN",
            binary.display()
        );
        let log_dir = std::env::temp_dir().join(format!("overload-{}", std::process::id()));
        std::fs::create_dir_all(&log_dir)?;
        let secret: [u8; 32] = rand::random();
        use base64::Engine as _;
        Ok(Settings {
            launch: Launch {
                binary,
                uri,
                extra: std::env::var("BENCH_GATEWAY_ARGS")
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::to_owned)
                    .collect(),
                log_dir,
                ticket_secret: base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret),
            },
            behaviour: Behaviour::parse(
                &std::env::var("BENCH_CLIENT").unwrap_or_else(|_| "polite".into()),
            )?,
            clients: list("BENCH_CLIENTS", "10,40,150,300,600")?,
            showtimes: list("BENCH_SHOWTIMES", "2,64")?,
            step: seconds("BENCH_STEP_SECS", 20)?,
            overload: seconds("BENCH_OVERLOAD_SECS", 30)?,
            recovery: seconds("BENCH_RECOVERY_SECS", 30)?,
            gateways: (list("BENCH_GATEWAYS", "1")?.into_iter())
                .map(|gateways| gateways.max(1))
                .collect(),
            client_gateways: number("BENCH_CLIENT_GATEWAYS", usize::MAX)?.max(1),
            database_pid: std::env::var("BENCH_DATABASE_PID")
                .ok()
                .map(|pid| pid.parse())
                .transpose()?,
        })
    }
}

fn number(name: &str, default: usize) -> anyhow::Result<usize> {
    Ok(list(name, &default.to_string())?[0])
}

fn seconds(name: &str, default: u64) -> anyhow::Result<Duration> {
    Ok(Duration::from_secs(number(name, default as usize)? as u64))
}

fn list(name: &str, default: &str) -> anyhow::Result<Vec<usize>> {
    let text = std::env::var(name).unwrap_or_else(|_| default.to_owned());
    let values = (text.split(',').map(|n| n.trim().parse::<usize>()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| anyhow::anyhow!("{name}={text:?}: {error}"))?;
    anyhow::ensure!(!values.is_empty(), "{name} is empty");
    Ok(values)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    open_files::raise_open_file_limit();
    let settings = Settings::from_env()?;
    println!(
        "gateway {} {}; {} gateway process(es) per step; {} clients; {} s steps; logs in {}",
        settings.launch.binary.display(),
        settings.launch.extra.join(" "),
        (settings.gateways.iter().map(usize::to_string))
            .collect::<Vec<_>>()
            .join(" or "),
        settings.behaviour.name(),
        settings.step.as_secs(),
        settings.launch.log_dir.display(),
    );
    if settings.client_gateways != usize::MAX {
        println!(
            "clients on the first {} gateway(s) of each step only",
            settings.client_gateways
        );
    }
    let mut steps = 0;
    let mut knee = None;
    for &showtimes in &settings.showtimes {
        let mut rows = Vec::new();
        for (n, &clients) in settings.clients.iter().enumerate() {
            let before = (settings.clients[..n].iter())
                .filter(|&&earlier| earlier == clients)
                .count();
            for gateways in in_turn(&settings.gateways, before) {
                steps += 1;
                let row = step(&settings, steps, showtimes, clients, gateways).await?;
                rows.push(row);
            }
        }
        for &gateways in &settings.gateways {
            let theirs: Vec<Row> = (rows.iter())
                .filter(|row| row.gateways == gateways)
                .cloned()
                .collect();
            report::table(
                &format!(
                    "{showtimes} showtimes of 72 seats, {gateways} gateway(s), {} clients, cold \
                     start, {} s per step",
                    settings.behaviour.name(),
                    settings.step.as_secs()
                ),
                &theirs,
            );
            report::repeated(&theirs);
            // The knee on the hot showtimes (or on the first scenario, without 2), with the
            // first number of gateways.
            if gateways == settings.gateways[0] && (showtimes == 2 || knee.is_none()) {
                knee = knee_of(&theirs).map(|clients| (showtimes, clients));
            }
        }
        report::compared(&rows);
    }
    if let (Some((showtimes, knee)), false) = (knee, settings.overload.is_zero()) {
        steps += 1;
        recovery(&settings, steps, showtimes, knee, settings.gateways[0]).await?;
    }
    drop_step_databases(&settings, steps).await
}

/// A step's database and gateways, ready for a load.
struct Stage {
    catalogue: Arc<seed::Catalogue>,
    gateways: Vec<Gateway>,
    urls: Vec<String>,
    /// A client of the database server, for its `serverStatus`.
    meter: mongodb::Client,
    cpu_before: (Duration, Option<Duration>),
    commands_before: Option<i64>,
    /// The server's time in commands (`server_time`) when the stage was set, and when.
    server_time_before: (Option<Duration>, Instant),
    /// The database's threads waiting for a CPU, sampled from the stage's setting on.
    run_queue: Option<procfs::RunQueue>,
}

impl Stage {
    /// Seeds a fresh database, then starts `gateways` cold gateways on it.
    async fn new(
        settings: &Settings,
        step: usize,
        showtimes: usize,
        gateways: usize,
    ) -> anyhow::Result<Stage> {
        let database = step_database(step);
        let options = DatabaseOptions {
            monitor_commands: false,
            ..DatabaseOptions::default()
        };
        let store = Store::connect_with(&settings.launch.uri, &database, &options).await?;
        store.drop_database().await?;
        store.ensure_indexes().await?;
        let catalogue = Arc::new(seed::insert(&store, showtimes).await?);
        let gateways = (0..gateways)
            .map(|n| {
                Gateway::start(
                    &settings.launch,
                    &database,
                    &format!("step{step}-gateway{n}"),
                )
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let urls = (gateways.iter().take(settings.client_gateways))
            .map(|g| g.url.clone())
            .collect();
        let mut stage = Stage {
            catalogue,
            gateways,
            urls,
            meter: mongodb::Client::with_uri_str(&settings.launch.uri).await?,
            cpu_before: Default::default(),
            commands_before: None,
            server_time_before: (None, Instant::now()),
            run_queue: None,
        };
        // The commands read outside the CPU readings, so that their own work is in neither.
        let status = opcounters::server_status(&stage.meter).await;
        stage.commands_before = status.as_ref().and_then(opcounters::commands_in);
        stage.server_time_before = (
            status.as_ref().and_then(server_time::so_far),
            Instant::now(),
        );
        stage.cpu_before = stage.cpu(settings);
        stage.run_queue = settings.database_pid.map(procfs::RunQueue::start);
        Ok(stage)
    }

    /// The gateways' CPU so far (summed), and the database's.
    fn cpu(&self, settings: &Settings) -> (Duration, Option<Duration>) {
        (
            self.gateways.iter().map(Gateway::cpu).sum(),
            settings.database_pid.and_then(procfs::process_cpu),
        )
    }

    /// What the gateways and the database spent since the stage was set, beside the seat
    /// changes `recorder` has seen so far, and the gateways' peak RSS (the largest).
    async fn spent(&mut self, settings: &Settings, recorder: &Recorder) -> report::Spent {
        let (gateway, database) = self.cpu(settings);
        let changes = recorder.changes();
        let database_runnable = self.run_queue.as_mut().and_then(procfs::RunQueue::mean);
        let status = opcounters::server_status(&self.meter).await;
        let commands = status.as_ref().and_then(opcounters::commands_in);
        let (time_before, since) = self.server_time_before;
        let database_in_flight = (time_before)
            .zip(status.as_ref().and_then(server_time::so_far))
            .map(|(before, after)| {
                after.saturating_sub(before).as_secs_f64() / since.elapsed().as_secs_f64()
            });
        report::Spent {
            gateway_cpu: gateway.saturating_sub(self.cpu_before.0),
            database_cpu: database
                .zip(self.cpu_before.1)
                .map(|(after, before)| after.saturating_sub(before)),
            commands: (self.commands_before)
                .zip(commands)
                .map(|(before, after)| opcounters::between(before, after)),
            changes,
            database_in_flight,
            database_runnable,
            peak_rss: (self.gateways.iter())
                .map(Gateway::peak_resident_bytes)
                .max()
                .unwrap_or(0),
        }
    }

    /// Prints the gateways' metrics and logs, and kills them.
    async fn finish(mut self) -> anyhow::Result<()> {
        for (n, gateway) in self.gateways.iter().enumerate() {
            let scrape = gateway.log.with_extension("metrics");
            match gateway.metrics_excerpt(&scrape).await {
                Some(lines) if !lines.is_empty() => {
                    println!(
                        "  gateway {n} /metrics (database, pool, in flight, refusals; all in {}):",
                        scrape.display()
                    );
                    for line in metrics::compact(&lines) {
                        println!("    {line}");
                    }
                }
                Some(_) => {
                    println!("  gateway {n} /metrics: nothing about the database or refusals")
                }
                None => println!("  gateway {n}: no /metrics"),
            }
        }
        for gateway in &mut self.gateways {
            gateway.kill();
            println!("  log: {}", gateway::log_summary(&gateway.log));
        }
        // Whatever the database still runs for the killed gateways, before the next step.
        // The database itself stays until the run's end (`drop_step_databases`).
        tokio::time::sleep(Duration::from_secs(1)).await;
        Ok(())
    }
}

/// Drops the databases of the run's `steps` steps, each given at most [`DROP_WITHIN`]. Not
/// after each step: SecantusDB (0.5.3) may retry dropping a collection on write conflicts for
/// minutes after a gateway was killed in the middle of a transaction (seen with two
/// gateways: 8 minutes, one core busy), which would stall the run and skew the next steps.
async fn drop_step_databases(settings: &Settings, steps: usize) -> anyhow::Result<()> {
    let client = mongodb::Client::with_uri_str(&settings.launch.uri).await?;
    for step in 1..=steps {
        let database = client.database(&step_database(step));
        match tokio::time::timeout(DROP_WITHIN, database.drop()).await {
            Ok(dropped) => dropped?,
            Err(_) => println!(
                "the database of step {step} was not dropped within {} s: the server goes on \
                 dropping it",
                DROP_WITHIN.as_secs()
            ),
        }
    }
    Ok(())
}

/// The database of step `step` of this run.
fn step_database(step: usize) -> String {
    format!("bench_overload_{}_{step}", std::process::id())
}

/// The numbers of gateways a step runs with, in the order of its `before`-th time: as given,
/// then reversed, and so on (1, 2, then 2, 1), so that neither is always first.
fn in_turn(gateways: &[usize], before: usize) -> Vec<usize> {
    let mut order = gateways.to_vec();
    if before % 2 == 1 {
        order.reverse();
    }
    order
}

/// One step: `clients` clients at once on `gateways` cold gateways for the step's duration.
async fn step(
    settings: &Settings,
    step: usize,
    showtimes: usize,
    clients: usize,
    gateways: usize,
) -> anyhow::Result<Row> {
    let mut stage = Stage::new(settings, step, showtimes, gateways).await?;
    let load_cpu = procfs::process_cpu(std::process::id()).unwrap_or_default();
    let recorder = Recorder::new(Instant::now());
    let group = Group::start(
        0..clients,
        settings.behaviour,
        &stage.urls,
        &stage.catalogue,
        &recorder,
    );
    tokio::time::sleep(settings.step).await;
    let spent = stage.spent(settings, &recorder).await;
    let load_cpu = procfs::process_cpu(std::process::id())
        .unwrap_or_default()
        .saturating_sub(load_cpu);
    group.stop().await;
    let figures = recorder.figures(Duration::ZERO, settings.step);
    println!(
        "\n{showtimes} showtimes, {clients} clients, {gateways} gateway(s): {}",
        report::summary_line(&figures, load_cpu)
    );
    println!(
        "  seat changes per second: {}",
        report::per_second(&recorder.seconds(Duration::ZERO, settings.step))
    );
    stage.finish().await?;
    Ok(Row {
        clients,
        gateways,
        figures,
        spent,
    })
}

/// Where goodput stops following the load: the most clients whose goodput is within 10% of the
/// peak's. On 2 hot showtimes the peak itself is at 10 clients (more buyers only contend for
/// the same seats), and 4 × 10 overloaded nothing.
fn knee_of(rows: &[Row]) -> Option<usize> {
    let peak = rows
        .iter()
        .map(|row| row.figures.goodput())
        .fold(0.0, f64::max);
    (rows.iter())
        .filter(|row| row.figures.goodput() >= 0.9 * peak)
        .map(|row| row.clients)
        .max()
}

/// 4 × the knee for the overload time, then 40 of the clients go on against the same
/// gateways: how long until a second's p99 is under 1 s again.
async fn recovery(
    settings: &Settings,
    step: usize,
    showtimes: usize,
    knee: usize,
    gateways: usize,
) -> anyhow::Result<()> {
    let crowd = 4 * knee;
    println!(
        "\nrecovery: {crowd} clients (4 × the knee, {knee}) on {showtimes} showtimes for {} s, \
         then {AFTER_OVERLOAD} for {} s",
        settings.overload.as_secs(),
        settings.recovery.as_secs()
    );
    let mut stage = Stage::new(settings, step, showtimes, gateways).await?;
    let recorder = Recorder::new(Instant::now());
    let stay = AFTER_OVERLOAD.min(crowd);
    let start = |clients| {
        Group::start(
            clients,
            settings.behaviour,
            &stage.urls,
            &stage.catalogue,
            &recorder,
        )
    };
    let staying = start(0..stay);
    let leaving = start(stay..crowd);
    tokio::time::sleep(settings.overload).await;
    leaving.abort();
    let drop = recorder.start().elapsed();
    tokio::time::sleep(settings.recovery).await;
    let end = recorder.start().elapsed();
    let spent = stage.spent(settings, &recorder).await;
    staying.stop().await;
    let overload = recorder.figures(Duration::ZERO, settings.overload);
    let after = recorder.figures(drop, end);
    let seconds = recorder.seconds(drop, end);
    let recovered = seconds.iter().position(|(changes, p99)| {
        *changes > 0 && p99.is_some_and(|p99| p99 < Duration::from_secs(1))
    });
    println!(
        "  seat changes per second during the overload: {}",
        report::per_second(&recorder.seconds(Duration::ZERO, settings.overload))
    );
    println!(
        "  after the drop, per second (seat changes/p99 ms): {}",
        report::per_second_with_p99(&seconds)
    );
    stage.finish().await?;
    report::table(
        &format!(
            "recovery on {showtimes} showtimes, {gateways} gateway(s), {} clients",
            settings.behaviour.name()
        ),
        &[
            Row {
                clients: crowd,
                gateways,
                figures: overload,
                spent: spent.clone(),
            },
            Row {
                clients: stay,
                gateways,
                figures: after,
                spent,
            },
        ],
    );
    println!(
        "(Both rows: CPU, RSS and the figures per seat change of the whole test; the second \
         row's first success counts from the drop.)"
    );
    let goodput = recorder.figures(drop, end).goodput();
    match recovered {
        Some(s) => println!(
            "\nrecovery: after {crowd} clients for {} s, down to {stay}: the first 1-s window with a \
             p99 under 1 s (and a success) began {s} s after the drop; goodput of the \
             {stay}-client phase {goodput:.0}/s",
            settings.overload.as_secs()
        ),
        None => println!(
            "\nrecovery: after {crowd} clients for {} s, down to {stay}: p99 of a 1-s window NOT \
             under 1 s within {} s; goodput of the {stay}-client phase {goodput:.0}/s",
            settings.overload.as_secs(),
            settings.recovery.as_secs()
        ),
    }
    Ok(())
}
