//! Benchmark: what a request costs the process that serves it, counted in instructions by
//! valgrind's callgrind, which counts the same on a busy machine as on an idle one.
//!
//! - **The showtimes page** (`pages`): the gateway and the floor (`showtimes_page/floor.rs`,
//!   the same MongoDB queries and the same JSON written by hand) each serve the page of
//!   references and the loaded page, 10 and 100 showtimes long.
//! - **Booking** (`booking`): one hold of the best two seats and its confirmation through the
//!   gateway's HTTP API, through the booking layer (no HTTP or GraphQL), and written by hand
//!   with the driver (`common/booking_pairs.rs`), each on a fresh showtime of a 30 × 30 hall.
//!
//! Each server runs in a process of its own under callgrind, once serving N identical
//! requests (or pairs) and once 2N; what one costs is the difference divided by N, so what
//! does not grow with the requests (starting, connecting, warming up) cancels out. The
//! process counts only the window it is told to (every thread of it, after its warm-up), and
//! the coordinator, here, sends the requests from outside valgrind. The database is another
//! process.
//!
//! ```sh
//! apt-get install valgrind
//! MONGODB_URI='mongodb://127.0.0.1:PORT/?directConnection=true' \
//!   cargo run --release --example costs -- [pages|booking|all] [N]
//! ```
//! N defaults to 160 pages and 40 pairs. `BENCH_DATABASE=name` measures the pages on that
//! database as it is (e.g. one holding the national demo); otherwise the small demo catalogue
//! is loaded into `bench_costs_pages`. The dumps stay in the directory it prints, one per
//! process (`NAME.out.1`), for `callgrind_annotate`.

mod callgrind;
mod measured;

#[path = "../common/bench_catalogue.rs"]
mod bench_catalogue;
#[path = "../common/booking_pairs.rs"]
mod booking_pairs;
#[path = "../showtimes_page/floor.rs"]
mod floor;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use boxoffice::domain::ids::ShowtimeId;
use boxoffice::store::{DatabaseOptions, Store};
use futures::TryStreamExt;
use measured::Role;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// The gateway binary's allocator, so the gateway measured here is the one that runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// glibc's thresholds above which `memcpy` and `memset` use `rep movsb`/`rep stosb`, set past
/// any size.
const NO_REP_STRINGS: &str =
    "glibc.cpu.x86_rep_movsb_threshold=4294967295:glibc.cpu.x86_rep_stosb_threshold=4294967295";

/// Seats per side of the booking hall: 450 pairs a showtime.
const SIDE: usize = 30;
/// The most pairs one showtime takes in a run (2N of them).
const MOST_PAIRS: usize = 192;

fn main() -> anyhow::Result<()> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if arguments.first().map(String::as_str) == Some("measured") {
        return measured::main(&arguments[1..]);
    }
    let what = arguments.first().map(String::as_str).unwrap_or("all");
    let count: Option<usize> = arguments.get(1).map(|n| n.parse()).transpose()?;
    if !callgrind::available() {
        anyhow::bail!("valgrind is not installed: `apt-get install valgrind` (Debian's package)");
    }
    let uri = std::env::var("MONGODB_URI")?;
    let dumps = std::env::temp_dir().join(format!("boxoffice-costs-{}", std::process::id()));
    std::fs::create_dir_all(&dumps)?;
    println!("callgrind dumps in {}", dumps.display());
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        if matches!(what, "pages" | "all") {
            pages(&uri, count.unwrap_or(160), &dumps).await?;
        }
        if matches!(what, "booking" | "all") {
            let pairs = count.unwrap_or(40);
            anyhow::ensure!(2 * pairs <= MOST_PAIRS, "at most {} pairs", MOST_PAIRS / 2);
            booking(&uri, pairs, &dumps).await?;
        }
        anyhow::Ok(())
    })
}

/// A measured process and the pipes of its protocol (`measured.rs`).
struct Measured {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    out: PathBuf,
    port: u16,
}

impl Measured {
    async fn spawn(role: Role, uri: &str, database: &str, out: PathBuf) -> anyhow::Result<Self> {
        let program = std::env::current_exe()?;
        let mut command = tokio::process::Command::new("valgrind");
        command
            .args(["--tool=callgrind", "--instr-atstart=no", "-q"])
            .arg(format!("--callgrind-out-file={}", out.display()))
            .arg(program)
            .args(["measured", role.name(), uri, database])
            // Copies by vector loops, never `rep movsb`/`stosb`: valgrind counts each byte a
            // `rep` moves as an instruction, which made a 16 KB copy look like 16,000
            // instructions when the CPU moves it in a few hundred cycles.
            .env("GLIBC_TUNABLES", NO_REP_STRINGS)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped")).lines();
        let mut measured = Measured {
            child,
            stdin,
            stdout,
            out,
            port: 0,
        };
        let ready = measured.line().await?;
        measured.port = ready
            .strip_prefix("ready ")
            .ok_or_else(|| anyhow::anyhow!("not ready: {ready:?}"))?
            .parse()?;
        Ok(measured)
    }

    async fn line(&mut self) -> anyhow::Result<String> {
        let line = tokio::time::timeout(Duration::from_secs(600), self.stdout.next_line())
            .await??
            .ok_or_else(|| anyhow::anyhow!("the measured process ended"))?;
        Ok(line)
    }

    /// Sends `command` and returns the answer.
    async fn ask(&mut self, command: &str) -> anyhow::Result<String> {
        self.stdin
            .write_all(format!("{command}\n").as_bytes())
            .await?;
        self.line().await
    }

    /// Ends the process (its stdin closed) and returns the instructions of its window.
    async fn finish(self) -> anyhow::Result<u64> {
        drop(self.stdin);
        let mut child = self.child;
        let status = child.wait().await?;
        anyhow::ensure!(status.success(), "the measured process failed: {status}");
        Ok(callgrind::instructions(&callgrind::window(&self.out))?)
    }
}

/// Instructions per request from a run of `n` and one of `2n`.
fn per_request(once: u64, twice: u64, n: usize) -> f64 {
    (twice as f64 - once as f64) / n as f64
}

/// The page variants measured: (name, first).
const PAGES: [(&str, i64); 4] = [
    ("references", 10),
    ("references", 100),
    ("loaded", 10),
    ("loaded", 100),
];

async fn pages(uri: &str, n: usize, dumps: &Path) -> anyhow::Result<()> {
    let existing = std::env::var("BENCH_DATABASE").ok();
    let database = existing
        .clone()
        .unwrap_or_else(|| "bench_costs_pages".into());
    let store = connect(uri, &database).await?;
    if existing.is_none() {
        store.drop_database().await?;
        store.ensure_indexes().await?;
        let plan = boxoffice::demo::DemoPlan::small();
        boxoffice::demo::load(&store, &plan, false).await?;
    }
    let db = mongodb::Client::with_uri_str(uri)
        .await?
        .database(&database);
    let city = busiest_city(&db).await?;
    println!(
        "\nthe showtimes page in {city} ({database}); {n} and {} requests",
        2 * n
    );
    // (role, page, requests) → the window's instructions; (role, page) → the answer.
    let mut counts: HashMap<(Role, usize, usize), u64> = HashMap::new();
    let mut answers: HashMap<(Role, usize), Value> = HashMap::new();
    for (index, (variant, first)) in PAGES.iter().enumerate() {
        for role in [Role::Floor, Role::Gateway] {
            for requests in [n, 2 * n] {
                let name = format!("pages-{}-{variant}-{first}-{requests}.out", role.name());
                let mut measured = Measured::spawn(role, uri, &database, dumps.join(name)).await?;
                let page = Page::new(role, measured.port, variant, *first, &city);
                for _ in 0..3 {
                    answers.insert((role, index), page.fetch().await?);
                }
                measured.ask("start").await?;
                for _ in 0..requests {
                    page.fetch().await?;
                }
                measured.ask(&format!("stop {variant}-{first}")).await?;
                counts.insert((role, index, requests), measured.finish().await?);
            }
        }
    }
    println!(
        "{:<10} {:>5}  {:>14} {:>14} {:>8}",
        "page", "first", "floor instr", "gateway instr", "× floor"
    );
    for (index, (variant, first)) in PAGES.iter().enumerate() {
        anyhow::ensure!(
            answers[&(Role::Floor, index)] == answers[&(Role::Gateway, index)],
            "the floor answers {variant} {first} as the gateway does"
        );
        let cost = |role| per_request(counts[&(role, index, n)], counts[&(role, index, 2 * n)], n);
        let (floor, gateway) = (cost(Role::Floor), cost(Role::Gateway));
        println!(
            "{variant:<10} {first:>5}  {floor:>14.0} {gateway:>14.0} {:>8.2}",
            gateway / floor
        );
    }
    Ok(())
}

/// One showtimes page asked of the gateway or the floor.
struct Page {
    request: reqwest::RequestBuilder,
}

impl Page {
    fn new(role: Role, port: u16, variant: &str, first: i64, city: &str) -> Self {
        let client = reqwest::Client::new();
        let request = match role {
            Role::Gateway => {
                let query = match variant {
                    "references" => floor::REFERENCES_ONLY,
                    _ => floor::WITH_LOADED_FIELDS,
                };
                client
                    .post(format!("http://127.0.0.1:{port}/graphql"))
                    .json(&json!({ "query": query, "variables": { "first": first, "city": city } }))
            }
            _ => client.get(format!("http://127.0.0.1:{port}/page")).query(&[
                ("variant", variant),
                ("first", &first.to_string()),
                ("city", city),
            ]),
        };
        Page { request }
    }

    async fn fetch(&self) -> anyhow::Result<Value> {
        let request = self.request.try_clone().expect("no streamed body");
        let body: Value = request.send().await?.json().await?;
        anyhow::ensure!(body.get("errors").is_none(), "{body}");
        Ok(body)
    }
}

/// The city with the most showtimes among the first 100 of all, in start order.
async fn busiest_city(db: &mongodb::Database) -> anyhow::Result<String> {
    let first: Vec<bson::Document> = db
        .collection::<bson::Document>("showtimes")
        .find(bson::doc! {})
        .sort(bson::doc! { "startsAt": 1, "_id": 1 })
        .projection(bson::doc! { "cinema.city": 1 })
        .limit(100)
        .await?
        .try_collect()
        .await?;
    let mut cities: HashMap<String, usize> = HashMap::new();
    for showtime in &first {
        let city = showtime.get_document("cinema")?.get_str("city")?;
        *cities.entry(city.to_owned()).or_default() += 1;
    }
    let mut cities: Vec<(String, usize)> = cities.into_iter().collect();
    cities.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    cities
        .into_iter()
        .next()
        .map(|(city, _)| city)
        .ok_or_else(|| anyhow::anyhow!("no showtime"))
}

async fn connect(uri: &str, database: &str) -> anyhow::Result<Store> {
    let options = DatabaseOptions {
        monitor_commands: false,
        ..DatabaseOptions::default()
    };
    let store = Store::connect_with(uri, database, &options).await?;
    // As `boxoffice serve` does: cold collections opened by concurrent requests can exhaust
    // SecantusDB's memory.
    store
        .with_timeout(Duration::from_secs(600))
        .warm_up()
        .await?;
    Ok(store)
}

async fn booking(uri: &str, n: usize, dumps: &Path) -> anyhow::Result<()> {
    let database = "bench_costs_booking";
    let store = connect(uri, database).await?;
    store.drop_database().await?;
    store.ensure_indexes().await?;
    const ROLES: [Role; 3] = [Role::Driver, Role::Booking, Role::Gateway];
    // Per role and run: a showtime to warm up on and one to measure on.
    let (showtimes, key) = bench_catalogue::insert(&store, ROLES.len() * 2 * 2, SIDE).await?;
    let mut showtimes = showtimes.into_iter();
    println!(
        "\nbooking: hold (best 2 seats, ADULT + CHILD) + confirm; {n} and {} pairs",
        2 * n
    );
    let mut costs: Vec<(Role, f64)> = Vec::new();
    for role in ROLES {
        let mut totals = Vec::new();
        for pairs in [n, 2 * n] {
            let (warm, counted) = (
                showtimes.next().expect("enough"),
                showtimes.next().expect("enough"),
            );
            let out = dumps.join(format!("booking-{}-{pairs}.out", role.name()));
            let mut measured = Measured::spawn(role, uri, database, out).await?;
            let succeeded = match role {
                Role::Gateway => {
                    let url = format!("http://127.0.0.1:{}/graphql", measured.port);
                    let auth = format!("Bearer {}", key.as_str());
                    let pair = |showtime| {
                        booking_pairs::gateway_pair(
                            reqwest::Client::new(),
                            url.clone(),
                            auth.clone(),
                            showtime,
                            None,
                        )
                    };
                    for _ in 0..3 {
                        anyhow::ensure!(pair(warm).await, "a warm-up pair failed");
                    }
                    measured.ask("start").await?;
                    let mut succeeded = 0;
                    for _ in 0..pairs {
                        succeeded += usize::from(pair(counted).await);
                    }
                    measured.ask("stop pairs").await?;
                    succeeded
                }
                _ => {
                    let warmed = measured.ask(&format!("warm 3 {}", hex(warm))).await?;
                    anyhow::ensure!(warmed == "done 3", "warm-up: {warmed}");
                    let done = measured
                        .ask(&format!("pairs {pairs} {} pairs", hex(counted)))
                        .await?;
                    done.strip_prefix("done ")
                        .ok_or_else(|| anyhow::anyhow!("{done:?}"))?
                        .parse()?
                }
            };
            anyhow::ensure!(succeeded == pairs, "{succeeded} of {pairs} pairs succeeded");
            totals.push(measured.finish().await?);
        }
        costs.push((role, per_request(totals[0], totals[1], n)));
    }
    let driver = costs[0].1;
    println!(
        "{:<28} {:>14} {:>16} {:>9}",
        "path", "instr/pair", "instr/seat change", "× driver"
    );
    for (role, per_pair) in costs {
        let path = match role {
            Role::Gateway => "gateway (HTTP + GraphQL)",
            Role::Booking => "booking layer",
            _ => "driver only",
        };
        println!(
            "{path:<28} {per_pair:>14.0} {:>16.0} {:>9.2}",
            per_pair / 2.0,
            per_pair / driver
        );
    }
    Ok(())
}

fn hex(showtime: ShowtimeId) -> String {
    bson::oid::ObjectId::from_bytes(showtime.0).to_hex()
}
