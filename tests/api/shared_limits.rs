//! A channel's rate limit holds across gateway processes: each process counts the live
//! gateways in the `gateways` collection and takes its part of the limit. Real `boxoffice`
//! processes on one database, clients hammering all of them: the accepted requests stay within
//! the limit over the time they ran, plus one burst. The bound is on counts against the time
//! the run took, whatever the machine's speed (a slower machine only sends fewer).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use boxoffice::domain::api_key::ApiKey;
use boxoffice::store::Store;
use serde_json::json;

use crate::fixtures::Catalogue;
use crate::helpers::{fresh_database_name, mongodb_uri, TestApp};
use crate::processes::GatewayProcess;

const CURRENT: &str = "{ currentChannel { code } }";
/// How long the tests wait for anything that should happen (never reached when all is well).
const PATIENCE: Duration = Duration::from_secs(60);

/// A database with one channel; its API key.
async fn channel_database(app: &TestApp) -> String {
    let mut catalogue = Catalogue::default();
    let key = catalogue.channel("maoyan", "猫眼电影");
    catalogue.insert(app).await;
    key.as_str().to_owned()
}

/// `count` gateway processes on `database`, the channel limited to `per_second` in bursts of
/// `burst`, beating every 100 ms.
fn gateways(database: &str, count: usize, per_second: u32, burst: u32) -> Vec<GatewayProcess> {
    let (per_second, burst) = (per_second.to_string(), burst.to_string());
    let flags = [
        "--channel-requests-per-second",
        &per_second,
        "--channel-burst",
        &burst,
        "--gateway-heartbeat-ms",
        "2000",
    ];
    (0..count)
        .map(|_| GatewayProcess::start(&mongodb_uri(), database, &flags))
        .collect()
}

/// Waits until exactly `count` gateways are recorded and each saw `count` at its last beat.
async fn wait_until_each_sees(store: &Store, count: u32) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let seen = store.gateways().await.unwrap();
        if seen.len() == count as usize && seen.iter().all(|(_, sees)| *sees == count) {
            return;
        }
        assert!(Instant::now() < deadline, "gateways seen: {seen:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What hammering gave: requests accepted and refused (429), and how long it took from
/// before the first request was sent to after the last answer.
#[derive(Debug)]
pub struct Hammered {
    pub accepted: usize,
    pub refused: usize,
    pub took: Duration,
}

/// `clients` clients per gateway send `{ currentChannel }` as the channel with `key`, one
/// after another, for `run`.
pub async fn hammer(urls: &[String], key: &str, clients: usize, run: Duration) -> Hammered {
    let accepted = Arc::new(AtomicUsize::new(0));
    let refused = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let until = started + run;
    let tasks: Vec<_> = urls
        .iter()
        .flat_map(|url| std::iter::repeat_n(url.clone(), clients))
        .map(|url| {
            let (key, accepted, refused) = (key.to_owned(), accepted.clone(), refused.clone());
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                while Instant::now() < until {
                    let response = http
                        .post(&url)
                        .bearer_auth(&key)
                        .json(&json!({ "query": CURRENT }))
                        .send()
                        .await
                        .expect("the gateway answers");
                    match response.status().as_u16() {
                        200 => accepted.fetch_add(1, Ordering::Relaxed),
                        429 => refused.fetch_add(1, Ordering::Relaxed),
                        other => panic!("unexpected status {other}"),
                    };
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    Hammered {
        accepted: accepted.load(Ordering::Relaxed),
        refused: refused.load(Ordering::Relaxed),
        took: started.elapsed(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_gateways_together_stay_within_a_channel_s_limit_plus_one_burst() {
    const PER_SECOND: u32 = 10;
    const BURST: u32 = 10;
    let app = TestApp::spawn().await;
    let key = channel_database(&app).await;
    let database = app.store.database_name();
    let mut running = gateways(database, 2, PER_SECOND, BURST);
    wait_until_each_sees(&app.store, 2).await;
    let urls: Vec<String> = running.iter().map(GatewayProcess::url).collect();
    let hammered = hammer(&urls, &key, 4, Duration::from_secs(3)).await;
    let bound = f64::from(PER_SECOND) * hammered.took.as_secs_f64() + f64::from(BURST);
    println!("two gateways, limit {PER_SECOND}/s burst {BURST}: {hammered:?}, bound {bound:.1}");
    assert!(
        hammered.accepted as f64 <= bound,
        "accepted {} over {:?}: more than the limit plus one burst ({bound:.1})",
        hammered.accepted,
        hammered.took
    );
    assert!(
        hammered.accepted >= BURST as usize,
        "each gateway gave its half burst at least"
    );
    assert!(hammered.refused > 0, "the clients went over the limit");

    // One gateway stops: its record goes, the other takes the whole limit at its next beat.
    let mut stopped = running.pop().unwrap();
    stopped.terminate();
    assert_eq!(
        stopped
            .wait_exit(PATIENCE)
            .await
            .and_then(|exit| exit.code()),
        Some(0)
    );
    wait_until_each_sees(&app.store, 1).await;
}

/// The figures for docs/deployment.md: accepted requests a second, on 1, 2 and 3 gateways
/// sharing one database, and on 2 and 3 gateways each on a database of its own (no process
/// sees another: each gives the whole limit, as every gateway did before the limits were
/// shared). Run with `cargo test --test api -- --ignored --nocapture channel_limit_figures`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a test"]
async fn channel_limit_figures() {
    const PER_SECOND: u32 = 20;
    const BURST: u32 = 20;
    let run = Duration::from_secs(6);
    // (gateways, on one database, clients on the first gateway only: an unbalanced balancer)
    let runs = [
        (1, true, false),
        (2, false, false),
        (3, false, false),
        (2, true, false),
        (3, true, false),
        (2, true, true),
    ];
    for (count, shared, one_hot) in runs {
        let app = TestApp::spawn().await;
        let key = channel_database(&app).await;
        let mut running = Vec::new();
        let mut stores = Vec::new();
        for _ in 0..count {
            let database = if shared || running.is_empty() {
                app.store.database_name().to_owned()
            } else {
                let other = Store::connect_with(
                    &mongodb_uri(),
                    &fresh_database_name(),
                    &crate::helpers::test_database_options(),
                )
                .await
                .unwrap();
                let hash = ApiKey::parse(&key).unwrap().hash();
                other
                    .create_channel("maoyan", "猫眼电影", hash, None)
                    .await
                    .unwrap();
                stores.push(other.clone());
                other.database_name().to_owned()
            };
            running.extend(gateways(&database, 1, PER_SECOND, BURST));
        }
        if shared {
            wait_until_each_sees(&app.store, count).await;
        }
        let mut urls: Vec<String> = running.iter().map(GatewayProcess::url).collect();
        if one_hot {
            urls.truncate(1);
        }
        let hammered = hammer(&urls, &key, 4, run).await;
        let per_second = hammered.accepted as f64 / hammered.took.as_secs_f64();
        let offered = (hammered.accepted + hammered.refused) as f64 / hammered.took.as_secs_f64();
        // The bursts the gateways the clients reached could give at the start.
        let bursts = match (shared, one_hot) {
            (false, _) => f64::from(BURST * count),
            (true, false) => f64::from(BURST),
            (true, true) => f64::from(BURST) / f64::from(count),
        };
        let after_burst = (hammered.accepted as f64 - bursts) / hammered.took.as_secs_f64();
        println!(
            "{count} gateway(s), {}: limit {PER_SECOND}/s burst {BURST}: accepted {} in {:.2} s = {per_second:.1}/s ({:.1}/s after the burst), offered {offered:.0}/s",
            match (shared, one_hot) {
                (true, false) => "one database",
                (true, true) => "one database, every client on the first gateway",
                (false, _) => "separate databases (unshared, as before)",
            },
            hammered.accepted,
            hammered.took.as_secs_f64(),
            after_burst,
        );
        drop(running);
        for store in stores {
            store.drop_database().await.unwrap();
        }
    }
    // How long a gateway killed without a word (SIGKILL) keeps being counted.
    let app = TestApp::spawn().await;
    channel_database(&app).await;
    let mut running = gateways(app.store.database_name(), 2, PER_SECOND, BURST);
    wait_until_each_sees(&app.store, 2).await;
    println!(
        "records before the kill: {:?}",
        app.store.gateways().await.unwrap()
    );
    let killed = Instant::now();
    running[1].kill();
    // The dead gateway's record stays (until the TTL index removes it); the survivor's says 1.
    loop {
        let seen = app.store.gateways().await.unwrap();
        if seen.iter().any(|(_, sees)| *sees == 1) {
            println!("records when the survivor counted itself alone: {seen:?}");
            break;
        }
        assert!(killed.elapsed() < PATIENCE, "gateways seen: {seen:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!(
        "a gateway killed with SIGKILL stopped being counted after {:.1} s (heartbeat 2 s)",
        killed.elapsed().as_secs_f64()
    );
}

/// A heartbeat while the database is away keeps the share the process had (the limits do not
/// jump to a whole limit per process), and the next heartbeat after it is back counts again.
#[tokio::test]
async fn a_heartbeat_that_cannot_reach_the_database_keeps_the_share() {
    use boxoffice::domain::rate_limit::Share;
    use boxoffice::gateways::Membership;
    use boxoffice::store::DatabaseOptions;

    let database = crate::processes::OwnDatabase::start();
    let options = DatabaseOptions {
        timeout: Duration::from_millis(500),
        ..DatabaseOptions::default()
    };
    let name = fresh_database_name();
    let store = Store::connect_with(&database.uri(), &name, &options)
        .await
        .unwrap();
    let (first, second) = (Arc::new(Share::default()), Arc::new(Share::default()));
    let interval = Duration::from_secs(2);
    let (one, two) = (
        Membership::new(Arc::clone(&first), interval, None),
        Membership::new(Arc::clone(&second), interval, None),
    );
    one.heartbeat(&store).await;
    two.heartbeat(&store).await;
    one.heartbeat(&store).await;
    assert_eq!((first.get(), second.get()), (2, 2));

    database.freeze();
    one.heartbeat(&store).await;
    assert_eq!(first.get(), 2, "a failed heartbeat keeps the share");
    database.thaw();
    two.leave(&store).await;
    let deadline = Instant::now() + PATIENCE;
    while first.get() != 1 {
        assert!(Instant::now() < deadline, "share {}", first.get());
        one.heartbeat(&store).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Gateways on one database probe its latency at the same moments (`overload::limit`): each
/// heartbeat tells the door how many are live, and each lets its part of the probe's two
/// requests in, so that two gateways measure the database with two in flight, as one does.
#[tokio::test]
async fn gateways_probe_the_database_and_share_its_pool_by_their_work() {
    use boxoffice::gateways::Membership;

    let name = fresh_database_name();
    let uri = crate::helpers::mongodb_uri();
    let (first, second) = (
        Store::connect(&uri, &name).await.unwrap(),
        Store::connect(&uri, &name).await.unwrap(),
    );
    let interval = Duration::from_secs(2);
    let (one, two) = (
        Membership::new(Arc::default(), interval, None),
        Membership::new(Arc::default(), interval, None),
    );
    let pool = first.request_connections();
    one.heartbeat(&first).await;
    assert_eq!(
        (first.admission_probe_limit(), first.request_connections()),
        (2, pool),
        "alone: the whole probe and pool"
    );
    two.heartbeat(&second).await;
    one.heartbeat(&first).await;
    assert_eq!(
        (
            first.admission_probe_limit(),
            second.admission_probe_limit()
        ),
        (1, 1)
    );
    assert_eq!(
        (first.request_connections(), second.request_connections()),
        (pool / 2, pool / 2),
        "together within one pool"
    );
    assert!(first.admission_limit() <= pool / 2);
    // The first gateway has all the work (every place at its door taken, as when it owns
    // every hot showtime), the second none: the first takes most of the pool, the second its
    // floor, and together they stay within it.
    let busy = first.occupy_admission();
    tokio::time::sleep(Duration::from_millis(100)).await;
    one.heartbeat(&first).await;
    two.heartbeat(&second).await;
    let (most, least) = (first.request_connections(), second.request_connections());
    assert!(most > pool / 2, "{most} of {pool}");
    assert_eq!(least, boxoffice::overload::door::MIN_LIMIT);
    assert!(most + least <= pool, "{most} + {least} of {pool}");
    // The work ends: at their next heartbeats they split the pool evenly again.
    drop(busy);
    tokio::time::sleep(Duration::from_millis(100)).await;
    for _ in 0..2 {
        one.heartbeat(&first).await;
        two.heartbeat(&second).await;
    }
    assert_eq!(
        (first.request_connections(), second.request_connections()),
        (pool / 2, pool / 2),
        "nobody wants more than another"
    );
    two.leave(&second).await;
    one.heartbeat(&first).await;
    assert_eq!(
        (first.admission_probe_limit(), first.request_connections()),
        (2, pool),
        "alone again"
    );
    first.drop_database().await.unwrap();
}
