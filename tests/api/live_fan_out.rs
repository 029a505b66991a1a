//! Shared seat-map subscriptions: subscribers asking the same thing share one execution (one
//! map read, one serialisation per change), and one joining at any moment follows from a
//! whole map without a gap, however long the group has run.

use std::time::Duration;

use boxoffice::config::BookingArgs;
use boxoffice::store::SentCommand;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::live_client::{LiveClient, Mirror, SEAT_MAP};
use crate::sale::{sale, sale_in_hall, Sale, HOLD};

const RELEASE: &str = "mutation ($id: ID!) { releaseHold(holdId: $id) }";

/// The reads of whole seat maps among `commands`: one per execution of `seatMapChanged`.
fn map_reads(commands: &[SentCommand]) -> usize {
    (commands.iter())
        .filter(|command| {
            command.name == "find" && command.collection.as_deref() == Some("seat_inventory")
        })
        .count()
}

/// The next `next` message of operation `id` on `client`, whole.
async fn next_message(client: &mut LiveClient, id: &str) -> Value {
    let message = client.recv().await;
    assert_eq!(message["id"], id, "{message}");
    assert_eq!(message["type"], "next", "{message}");
    message
}

#[tokio::test]
async fn subscribers_asking_the_same_thing_share_one_execution_and_each_get_every_change() {
    let sale = sale().await;
    let app = &sale.app;
    // Open the change feed first, so that the counts below are the subscriptions' alone.
    let mut first = LiveClient::connect(app, None).await;
    first.watch_seat_map("0", &sale.showtime).await;
    app.store.commands().start();
    let mut same = Vec::new();
    for i in 1..20 {
        let mut client = LiveClient::connect(app, None).await;
        let snapshot = client.watch_seat_map(&i.to_string(), &sale.showtime).await;
        assert_eq!(snapshot["version"], 0);
        same.push((i.to_string(), client));
    }
    assert_eq!(
        map_reads(&app.store.commands().take()),
        0,
        "19 more subscribers of the same query read no map: they joined the first's execution"
    );
    same.insert(0, ("0".to_owned(), first));

    // Another selection, or another caller, is another execution.
    app.store.commands().start();
    let other_query = "subscription ($id: ID!) { seatMapChanged(showtimeId: $id) { kind version counts { held } } }";
    let mut other = LiveClient::connect(app, None).await;
    other
        .subscribe("q", other_query, json!({ "id": sale.showtime }))
        .await;
    assert_eq!(other.event("q").await["kind"], "SNAPSHOT");
    let mut channel = LiveClient::connect(app, Some(&sale.maoyan)).await;
    channel.watch_seat_map("c", &sale.showtime).await;
    assert_eq!(map_reads(&app.store.commands().take()), 2);

    // A write: every subscriber gets its change, with its own operation id around the one
    // shared payload.
    sale.hold(&sale.maoyan, &["A1", "A2"]).await.data();
    let mut payloads = Vec::new();
    for (id, client) in &mut same {
        let message = next_message(client, id).await;
        payloads.push(message["payload"].clone());
    }
    assert!(payloads.windows(2).all(|pair| pair[0] == pair[1]));
    let change = &payloads[0]["data"]["seatMapChanged"];
    assert_eq!(change["kind"], "CHANGES");
    assert_eq!(change["version"], 1);
    assert_eq!(change["counts"]["held"], 2);
    assert_eq!(other.event("q").await["counts"]["held"], 2);
    assert_eq!(channel.event("c").await["version"], 1);

    // The first subscriber leaving (the one whose subscribe started the execution) changes
    // nothing for the others.
    let (_, mut leaver) = same.remove(0);
    leaver.send(json!({ "type": "complete", "id": "0" })).await;
    sale.hold(&sale.maoyan, &["A3"]).await.data();
    for (id, client) in &mut same {
        let event = client.event(id).await;
        assert_eq!(
            (event["kind"].as_str(), event["version"].as_i64()),
            (Some("CHANGES"), Some(2))
        );
    }
    // Nor does one completing while it is the only one left of its group, then another
    // subscribing the same: a fresh execution, from a fresh map.
    other.send(json!({ "type": "complete", "id": "q" })).await;
    app.store.commands().start();
    let mut again = LiveClient::connect(app, None).await;
    again
        .subscribe("q", other_query, json!({ "id": sale.showtime }))
        .await;
    let snapshot = again.event("q").await;
    assert_eq!(
        (snapshot["kind"].as_str(), snapshot["version"].as_i64()),
        (Some("SNAPSHOT"), Some(2))
    );
    assert_eq!(map_reads(&app.store.commands().take()), 1);
}

#[tokio::test]
async fn a_shared_subscription_s_error_reaches_each_subscriber_with_its_code() {
    let sale = sale().await;
    let unknown = crate::fixtures::global_id("Showtime", bson::oid::ObjectId::new());
    let mut clients = Vec::new();
    for _ in 0..3 {
        let mut client = LiveClient::connect(&sale.app, None).await;
        client
            .subscribe("x", SEAT_MAP, json!({ "id": unknown }))
            .await;
        clients.push(client);
    }
    for client in &mut clients {
        let message = client.recv().await;
        assert_eq!(message["type"], "error", "{message}");
        assert_eq!(message["id"], "x");
        assert_eq!(
            message["payload"][0]["extensions"]["code"], "NOT_FOUND",
            "{message}"
        );
    }
}

/// Holds and releases `seat` `cycles` times as `key`: two seat changes per cycle.
async fn churn(app: TestApp, key: String, showtime: String, seat: String, cycles: usize) {
    for _ in 0..cycles {
        let input = json!({ "showtimeId": showtime, "seats": [seat] });
        let held = app.graphql_as(&key, HOLD, json!({ "input": input })).await;
        let hold = held.data()["holdSeats"]["id"].clone();
        let released = app.graphql_as(&key, RELEASE, json!({ "id": hold })).await;
        released.data();
    }
}

/// Follows a subscriber until its map is at `target`; how many events it took.
async fn follow_to(client: &mut LiveClient, mirror: &mut Mirror, target: i64) -> usize {
    let mut events = 0;
    while mirror.version < target {
        let event = client.event("m").await;
        mirror.apply(&event);
        events += 1;
    }
    events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn subscribers_joining_while_seats_change_follow_from_a_whole_map_without_a_gap() {
    let rows = ["SSSSSSSS", "SSSSSSSS"];
    let sale: Sale = sale_in_hall(BookingArgs::default().hold_policy(), &rows).await;
    let writers: Vec<_> = (1..=8)
        .map(|n| {
            let (app, key) = (sale.app.clone(), sale.key_of_client(n).to_owned());
            tokio::spawn(churn(app, key, sale.showtime.clone(), format!("A{n}"), 45))
        })
        .collect();
    // Sixteen subscribers join one by one while the writers run, each applying what it gets
    // as a seat picker does (a CHANGES whose version does not follow fails the test).
    let mut joined = Vec::new();
    for _ in 0..16 {
        tokio::time::sleep(Duration::from_millis(60)).await;
        let mut client = LiveClient::connect(&sale.app, None).await;
        let mut mirror = Mirror::default();
        mirror.apply(&client.watch_seat_map("m", &sale.showtime).await);
        joined.push((client, mirror));
    }
    for writer in writers {
        writer.await.unwrap();
    }
    let version = i64::from(sale.inventory().await.version);
    // Each release is a write of its own; holds that came together may share one (the
    // showtime's batches), so every cycle moved the version once or twice.
    let cycles = 8 * 45;
    assert!(
        (cycles + 1..=2 * cycles).contains(&version),
        "{version} writes for {cycles} cycles"
    );
    for (client, mirror) in &mut joined {
        follow_to(client, mirror, version).await;
        assert_eq!(*mirror, mirror.fresh(&sale.app, &sale.showtime).await);
    }
    // One joining now, 720 changes into the group's life, is sent a whole map and at most a
    // bounded backlog of changes after it, not the group's history.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut late = LiveClient::connect(&sale.app, None).await;
    let mut mirror = Mirror::default();
    let snapshot = late.watch_seat_map("m", &sale.showtime).await;
    mirror.apply(&snapshot);
    let backlog = follow_to(&mut late, &mut mirror, version).await;
    assert!(backlog <= 300, "{backlog} changes sent after the whole map");
    assert_eq!(mirror, mirror.fresh(&sale.app, &sale.showtime).await);
    assert!(
        late.recv_within(Duration::from_millis(300)).await.is_none(),
        "nothing more, and nothing twice"
    );
}
