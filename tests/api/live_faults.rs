//! Live seat maps when things go wrong: a subscriber that falls behind, a database that
//! restarts, and a random run of every kind of seat change from many tasks on two gateways.

use std::time::Duration;

use boxoffice::holds::rules::HoldPolicy;
use boxoffice::live::SeatMapUpdate;
use boxoffice::store::DatabaseOptions;
use futures::StreamExt;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::live_client::{LiveClient, Mirror};
use crate::orders::CANCEL;
use crate::processes::OwnDatabase;
use crate::sale::{sale, sale_in_hall, sale_on, HOLD};

fn version(update: &SeatMapUpdate) -> (bool, u32) {
    match update {
        SeatMapUpdate::Snapshot(map) => (true, map.version),
        SeatMapUpdate::Changes { version, .. } => (false, *version),
    }
}

#[tokio::test]
async fn a_subscriber_that_falls_behind_gets_a_fresh_map_instead_of_a_gap() {
    let sale = sale().await;
    // Room for two unread changes per subscriber.
    let live = boxoffice::assembly::live(&sale.app.store, 2);
    let mut slow = Box::pin(live.seat_map(sale.showtime_id));
    let mut reader = Box::pin(live.seat_map(sale.showtime_id));
    assert_eq!(version(&slow.next().await.unwrap().unwrap()), (true, 0));
    assert_eq!(version(&reader.next().await.unwrap().unwrap()), (true, 0));
    // The reader keeps up: each write waits until the reader has its change, so however the
    // feed batches its events the reader is never more than one behind; `slow` reads nothing.
    let (seen, mut versions) = tokio::sync::mpsc::unbounded_channel();
    let reading = tokio::spawn(async move {
        for _ in 1..=5 {
            let update = reader.next().await.unwrap().unwrap();
            seen.send(version(&update)).unwrap();
        }
    });
    for (n, seat) in (1..).zip(["A1", "A2", "A3", "A4", "A5"]) {
        sale.hold_id(&sale.maoyan, &[seat]).await;
        assert_eq!(
            versions.recv().await,
            Some((false, n)),
            "the reader keeps up"
        );
    }
    reading.await.unwrap();
    // Five changes behind with room for two: the whole map, at the latest version.
    let caught_up = slow.next().await.unwrap().unwrap();
    assert_eq!(version(&caught_up), (true, 5));
    let SeatMapUpdate::Snapshot(map) = caught_up else {
        unreachable!()
    };
    assert_eq!(map.counts.held, 5);
    sale.hold_id(&sale.maoyan, &["A6"]).await;
    assert_eq!(version(&slow.next().await.unwrap().unwrap()), (false, 6));
}

#[tokio::test]
async fn after_the_database_restarts_the_feed_resumes_where_it_was_and_nothing_is_missed() {
    let mut database = OwnDatabase::start();
    let app = TestApp::spawn_on(&database.uri(), &DatabaseOptions::default()).await;
    let sale = sale_on(app, &["SSSSSS"]).await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    client.watch_seat_map("1", &sale.showtime).await;
    sale.hold_id(&sale.maoyan, &["A1"]).await;
    assert_eq!(client.event("1").await["version"], 1);

    database.restart_gracefully();
    // Written as soon as the server is back, likely before the feed is open again.
    let (mut held, mut last) = (None, None);
    for _ in 0..100 {
        let response = sale.hold(&sale.maoyan, &["A2"]).await;
        if response.0.get("errors").is_none() {
            held = Some(response);
            break;
        }
        last = Some(response);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        held.is_some(),
        "the hold went through once the database was back: {last:#?}"
    );
    let event = client.event("1").await;
    assert_eq!(
        (event["kind"].as_str(), event["version"].as_i64()),
        (Some("CHANGES"), Some(2)),
        "{event}"
    );
    assert_eq!(event["changes"][0]["label"], "A2");
}

/// One random step of a writer: hold a few seats, then confirm (and maybe cancel), release,
/// or leave the hold to expire.
async fn random_step(
    apps: &[TestApp],
    keys: &[String],
    showtime: &str,
    rng: &mut rand_chacha::ChaCha8Rng,
) {
    let app = &apps[rng.random_range(0..apps.len())];
    let key = &keys[rng.random_range(0..keys.len())];
    let rows = [("A", 8), ("B", 9), ("C", 6), ("D", 8)];
    let (row, width) = rows[rng.random_range(0..rows.len())];
    let start = rng.random_range(1..=width - 1);
    let count = rng.random_range(1..=2).min(width - start + 1);
    let seats: Vec<String> = (start..start + count)
        .map(|n| format!("{row}{n}"))
        .collect();
    let input = json!({ "showtimeId": showtime, "seats": seats });
    let held = app.graphql_as(key, HOLD, json!({ "input": input })).await;
    let Some(hold) = held.0["data"]["holdSeats"]["id"]
        .as_str()
        .map(str::to_owned)
    else {
        return; // Taken, or an aisle: nothing changed.
    };
    match rng.random_range(0..4) {
        0 => {
            let release = "mutation ($id: ID!) { releaseHold(holdId: $id) }";
            app.graphql_as(key, release, json!({ "id": hold })).await;
        }
        1 => {}
        _ => {
            let confirmed = app
                .graphql_as(key, crate::orders::CONFIRM, json!({ "hold": hold }))
                .await;
            let order = confirmed.0["data"]["confirmHold"]["id"].clone();
            if !order.is_null() && rng.random_bool(0.5) {
                app.graphql_as(key, CANCEL, json!({ "id": order })).await;
            }
        }
    }
}

/// Applies the events of `client`'s subscription "m" until it reaches `target`'s version.
async fn follow(
    mut client: LiveClient,
    mut mirror: Mirror,
    target: tokio::sync::watch::Receiver<Option<i64>>,
) -> (Mirror, usize) {
    let mut snapshots = 0;
    loop {
        if let Some(target) = *target.borrow() {
            if mirror.version >= target {
                return (mirror, snapshots);
            }
        }
        if let Some(message) = client.recv_within(Duration::from_millis(100)).await {
            assert_eq!(message["type"], "next", "{message}");
            let event: &Value = &message["payload"]["data"]["seatMapChanged"];
            snapshots += usize::from(event["kind"] == "SNAPSHOT");
            mirror.apply(event);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn after_a_random_run_every_subscriber_s_map_equals_a_fresh_query() {
    let policy = HoldPolicy {
        max_seats: 4,
        ttl: Duration::from_millis(1500),
        extension: Duration::from_secs(300),
    };
    let sale = sale_in_hall(policy, &["SSSSSSSS", "SSSS_SSSS", "CCCCCC", "WWSSSSWW"]).await;
    let apps = vec![sale.app.clone(), sale.app.another_gateway().await];
    let (target_tx, target) = tokio::sync::watch::channel(None);
    let mut followers = Vec::new();
    for i in 0..6 {
        let mut client = LiveClient::connect(&apps[i % 2], None).await;
        let mut mirror = Mirror::default();
        mirror.apply(&client.watch_seat_map("m", &sale.showtime).await);
        followers.push(tokio::spawn(follow(client, mirror, target.clone())));
    }
    let seed: u64 = rand::random();
    println!("random run seed {seed}");
    let keys = vec![sale.maoyan.clone(), sale.wechat.clone()];
    let writers: Vec<_> = (0..8u64)
        .map(|task| {
            let (apps, keys, showtime) = (apps.clone(), keys.clone(), sale.showtime.clone());
            tokio::spawn(async move {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ task);
                for _ in 0..15 {
                    random_step(&apps, &keys, &showtime, &mut rng).await;
                }
            })
        })
        .collect();
    for writer in writers {
        writer.await.unwrap();
    }
    // Holds left to expire do so on time, through the gateways' subscribers.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while sale.inventory().await.counts.held > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "holds left unexpired"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let inventory = sale.inventory().await;
    target_tx.send(Some(i64::from(inventory.version))).unwrap();
    println!(
        "{} seat changes; counts {:?}",
        inventory.version, inventory.counts
    );
    assert!(
        inventory.version > 20,
        "the run changed seats {} times",
        inventory.version
    );
    for follower in followers {
        let (mirror, snapshots) = tokio::time::timeout(Duration::from_secs(20), follower)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            mirror,
            mirror.fresh(&sale.app, &sale.showtime).await,
            "seed {seed}"
        );
        assert_eq!(
            snapshots, 0,
            "no subscriber needed a fresh map: nothing was lost"
        );
    }
}
