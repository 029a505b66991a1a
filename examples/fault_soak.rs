//! Soak under faults: sales clients with idempotency keys against two gateway processes while
//! (1) a gateway is killed (SIGKILL) every 5 s and started again, and then (2) the database
//! stops answering (SIGSTOP) for 10 s. Every request carries a key and is re-sent, to the
//! other gateway, until it gets an answer. Prints how long keyed requests took to get their
//! answer, and the longest single HTTP request during the outage.
//!
//! It runs its own SecantusDB and its own gateway processes, so it needs the release binary:
//! ```sh
//! cargo build --release && cargo run --release --example fault_soak [-- SECONDS CLIENTS]
//! ```
//! `BOXOFFICE_SECANTUSD` names the SecantusDB binary (default: where `scripts/secantus.sh`
//! installs it).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use boxoffice::demo::{self, DemoPlan};
use boxoffice::store::Store;
use serde_json::{json, Value};

const KILL_EVERY: Duration = Duration::from_secs(5);
const OUTAGE: Duration = Duration::from_secs(10);

/// Starts `command` and waits for the address it prints after `marker`.
fn start(mut command: Command, marker: &'static str) -> (Child, SocketAddr) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start a process");
    let stdout = child.stdout.take().unwrap();
    let (found, address) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut found = Some(found);
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let (Some(rest), Some(tx)) = (line.split(marker).nth(1), found.as_ref()) {
                let address: String = rest
                    .trim_start_matches("http://")
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ':')
                    .collect();
                let _ = tx.send(address);
                found = None;
            }
        }
    });
    let address = address.recv_timeout(Duration::from_secs(60)).unwrap();
    (child, address.parse().unwrap())
}

fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: kill(2) on a child this program started.
    unsafe { libc::kill(child.id() as libc::pid_t, signal) };
}

struct Gateways {
    uri: String,
    urls: Mutex<Vec<String>>,
    children: Mutex<Vec<Child>>,
}

impl Gateways {
    fn launch(uri: &str) -> (Child, String) {
        let binary = std::env::current_exe()
            .unwrap()
            .parent()
            .and_then(|examples| examples.parent())
            .unwrap()
            .join("boxoffice");
        let mut command = Command::new(binary);
        command
            .env("MONGODB_URI", uri)
            .env("BOXOFFICE_DATABASE", "soak")
            .env("RUST_LOG", "error")
            .args(["serve", "--bind", "127.0.0.1:0"]);
        let (child, address) = start(command, "Playground: ");
        (child, format!("http://{address}/graphql"))
    }

    fn kill_and_restart(&self, n: usize) {
        let mut children = self.children.lock().unwrap();
        let _ = children[n].kill();
        let _ = children[n].wait();
        let (child, url) = Gateways::launch(&self.uri);
        children[n] = child;
        self.urls.lock().unwrap()[n] = url;
    }

    fn url(&self, n: usize) -> String {
        self.urls.lock().unwrap()[n % 2].clone()
    }
}

/// How one keyed request went: from its first send to its answer.
struct Timing {
    answer_after: Duration,
    resent: bool,
}

/// Sends a keyed request until a gateway answers; records the time to the answer and the
/// longest single HTTP request.
async fn send(
    http: &reqwest::Client,
    gateways: &Gateways,
    key: &str,
    body: &Value,
    timings: &Mutex<Vec<Timing>>,
    longest: &Mutex<Duration>,
    n: usize,
) -> Value {
    let started = Instant::now();
    let mut resent = false;
    for attempt in n.. {
        let sent_at = Instant::now();
        let response = http
            .post(gateways.url(attempt))
            .bearer_auth(key)
            .json(body)
            .send()
            .await;
        let answer = match response {
            Ok(response) if response.status() != 503 => response.json::<Value>().await.ok(),
            _ => None,
        };
        {
            let mut longest = longest.lock().unwrap();
            *longest = (*longest).max(sent_at.elapsed());
        }
        if let Some(answer) = answer {
            timings.lock().unwrap().push(Timing {
                answer_after: started.elapsed(),
                resent,
            });
            return answer;
        }
        resent = true;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    unreachable!()
}

const HOLD: &str = "mutation ($id: ID!, $key: String) { holdSeats(input: {
    showtimeId: $id, best: { count: 2 }, idempotencyKey: $key }) { id } }";
const CONFIRM: &str = "mutation ($hold: ID!, $key: String) { confirmHold(input: { holdId: $hold,
    customer: { name: \"Soak\", contact: \"13000000000\" }, idempotencyKey: $key }) { id } }";
const RELEASE: &str =
    "mutation ($id: ID!, $key: String) { releaseHold(holdId: $id, idempotencyKey: $key) }";

struct Run {
    gateways: Arc<Gateways>,
    api_key: String,
    showtimes: Vec<String>,
    timings: Mutex<Vec<Timing>>,
    longest: Mutex<Duration>,
    stop: AtomicBool,
}

async fn client(run: Arc<Run>, n: usize) {
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let mut step = 0;
    while !run.stop.load(Ordering::Relaxed) {
        step += 1;
        let showtime = &run.showtimes[(n + step) % run.showtimes.len()];
        let key = format!("soak-{n}-{step}");
        let hold =
            json!({ "query": HOLD, "variables": { "id": showtime, "key": format!("{key}-h") } });
        let (gateways, api_key, timings, longest) =
            (&run.gateways, &run.api_key, &run.timings, &run.longest);
        let held = send(&http, gateways, api_key, &hold, timings, longest, n).await;
        let Some(hold_id) = held["data"]["holdSeats"]["id"].as_str() else {
            continue;
        };
        let (query, variables) = if step % 2 == 0 {
            (
                CONFIRM,
                json!({ "hold": hold_id, "key": format!("{key}-c") }),
            )
        } else {
            (RELEASE, json!({ "id": hold_id, "key": format!("{key}-r") }))
        };
        let body = json!({ "query": query, "variables": variables });
        send(&http, gateways, api_key, &body, timings, longest, n).await;
    }
}

fn report(label: &str, timings: &[Timing]) {
    let mut all: Vec<Duration> = timings.iter().map(|t| t.answer_after).collect();
    let mut resent: Vec<Duration> = timings
        .iter()
        .filter(|t| t.resent)
        .map(|t| t.answer_after)
        .collect();
    all.sort();
    resent.sort();
    let at = |sorted: &[Duration], q: f64| -> String {
        sorted
            .get(((sorted.len() as f64 - 1.0) * q).round() as usize)
            .map_or("-".into(), |d| {
                format!("{:.0} ms", d.as_secs_f64() * 1000.0)
            })
    };
    println!(
        "{label}: {} keyed requests answered; time to answer median {}, p90 {}, p99 {}, max {}",
        all.len(),
        at(&all, 0.5),
        at(&all, 0.9),
        at(&all, 0.99),
        at(&all, 1.0)
    );
    println!(
        "{label}: {} had to be re-sent (their gateway was killed or the database was away): median {}, p90 {}, max {}",
        resent.len(),
        at(&resent, 0.5),
        at(&resent, 0.9),
        at(&resent, 1.0)
    );
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let seconds: u64 = args.next().map_or(Ok(30), |s| s.parse())?;
    let clients: usize = args.next().map_or(Ok(32), |s| s.parse())?;
    let secantusd = std::env::var("BOXOFFICE_SECANTUSD").unwrap_or_else(|_| {
        format!(
            "{}/.cache/boxoffice/secantus-0.5.3-beta.196/bin/secantusd-rs",
            std::env::var("HOME").unwrap()
        )
    });
    let storage = std::env::temp_dir().join(format!("boxoffice-soak-{}", std::process::id()));
    std::fs::create_dir_all(&storage)?;
    let mut command = Command::new(secantusd);
    command
        .args(["--port", "0", "--log-level", "WARNING", "--storage-path"])
        .arg(&storage);
    let (mut database, address) = start(command, "listening on ");
    let uri = format!("mongodb://{address}/?directConnection=true");

    let store = Store::connect(&uri, "soak").await?;
    store.ensure_indexes().await?;
    let plan = DemoPlan {
        cinemas: 4,
        days: 2,
        ..DemoPlan::small()
    };
    let loaded = demo::load(&store, &plan, false).await?;
    let (channel, api_key) = loaded.channel_keys[0].clone();

    let (first, second) = (Gateways::launch(&uri), Gateways::launch(&uri));
    let gateways = Arc::new(Gateways {
        uri: uri.clone(),
        urls: Mutex::new(vec![first.1, second.1]),
        children: Mutex::new(vec![first.0, second.0]),
    });
    let soon = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let page: Value = reqwest::Client::new()
        .post(gateways.url(0))
        .json(&json!({
            "query": "query ($f: ShowtimesFilter) { showtimes(filter: $f, first: 16) { edges { node { id } } } }",
            "variables": { "f": { "channel": channel, "startsFrom": soon } },
        }))
        .send()
        .await?
        .json()
        .await?;
    let showtimes: Vec<String> = page["data"]["showtimes"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|edge| edge["node"]["id"].as_str().unwrap().to_owned())
        .collect();
    println!(
        "{clients} clients, 2 gateways, {} showtimes on channel {channel}",
        showtimes.len()
    );

    let run = |gateways: &Arc<Gateways>| {
        Arc::new(Run {
            gateways: Arc::clone(gateways),
            api_key: api_key.clone(),
            showtimes: showtimes.clone(),
            timings: Mutex::new(Vec::new()),
            longest: Mutex::new(Duration::ZERO),
            stop: AtomicBool::new(false),
        })
    };

    // (1) A gateway killed every 5 s.
    let killing = run(&gateways);
    let tasks: Vec<_> = (0..clients)
        .map(|n| tokio::spawn(client(Arc::clone(&killing), n)))
        .collect();
    let started = Instant::now();
    let mut kills = 0;
    while started.elapsed() < Duration::from_secs(seconds) {
        tokio::time::sleep(KILL_EVERY).await;
        let gateways = Arc::clone(&gateways);
        tokio::task::spawn_blocking(move || gateways.kill_and_restart(kills % 2)).await?;
        kills += 1;
    }
    killing.stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await?;
    }
    println!("-- {seconds} s, a gateway killed every 5 s ({kills} kills)");
    report("kills", &killing.timings.lock().unwrap());

    // (2) The database stops answering for 10 s.
    let outage = run(&gateways);
    let tasks: Vec<_> = (0..clients)
        .map(|n| tokio::spawn(client(Arc::clone(&outage), n)))
        .collect();
    tokio::time::sleep(Duration::from_secs(3)).await;
    signal(&database, libc::SIGSTOP);
    tokio::time::sleep(OUTAGE).await;
    signal(&database, libc::SIGCONT);
    tokio::time::sleep(Duration::from_secs(5)).await;
    outage.stop.store(true, Ordering::Relaxed);
    for task in tasks {
        task.await?;
    }
    println!("-- a 10 s database outage (SIGSTOP) in 18 s of traffic");
    report("outage", &outage.timings.lock().unwrap());
    println!(
        "outage: the longest single HTTP request took {:.0} ms",
        outage.longest.lock().unwrap().as_secs_f64() * 1000.0
    );

    for child in gateways.children.lock().unwrap().iter_mut() {
        let _ = child.kill();
    }
    let _ = database.kill();
    let _ = database.wait();
    let _ = std::fs::remove_dir_all(&storage);
    Ok(())
}
