//! Live seat maps over WebSocket: the whole map, then every change in order, from any gateway
//! over the database, with expiries on time and a fresh map whenever a change may be lost.

use std::time::{Duration, Instant};

use boxoffice::holds::rules::HoldPolicy;
use serde_json::{json, Value};

use crate::helpers::mongodb_uri;
use crate::live_client::{LiveClient, Mirror};
use crate::orders::CANCEL;
use crate::processes::GatewayProcess;
use crate::sale::{sale, sale_with};

const RELEASE: &str = "mutation ($id: ID!) { releaseHold(holdId: $id) }";

fn labels_and_states(event: &Value) -> Vec<(String, String, String)> {
    event["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| {
            let text = |field: &str| seat[field].as_str().unwrap().to_owned();
            (text("label"), text("state"), text("kind"))
        })
        .collect()
}

#[tokio::test]
async fn a_subscriber_gets_the_whole_map_then_each_write_s_seats_with_the_next_version() {
    let sale = sale().await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    let snapshot = client.watch_seat_map("1", &sale.showtime).await;
    assert_eq!(snapshot["showtimeId"], sale.showtime.as_str());
    assert_eq!(snapshot["version"], 0);
    assert_eq!(snapshot["changes"], json!([]));
    assert_eq!(
        snapshot["counts"],
        json!({ "available": 16, "held": 0, "sold": 0, "blocked": 0, "capacity": 16 })
    );
    let rows = &snapshot["seatMap"]["rows"];
    assert_eq!(
        rows[1],
        json!({ "label": "B", "states": "aaa_aaa", "kinds": "sss_sss" })
    );
    assert_eq!(rows[2]["kinds"], "cccc");
    let mut mirror = Mirror::default();
    mirror.apply(&snapshot);

    let hold = sale.hold_id(&sale.maoyan, &["C1", "C2"]).await;
    let held = client.event("1").await;
    assert_eq!(
        (held["kind"].as_str(), held["version"].as_i64()),
        (Some("CHANGES"), Some(1))
    );
    assert_eq!(held["seatMap"], Value::Null);
    let couple = |state: &str| {
        vec![
            ("C1".into(), state.into(), "COUPLE".into()),
            ("C2".into(), state.into(), "COUPLE".into()),
        ]
    };
    assert_eq!(labels_and_states(&held), couple("HELD"));
    assert_eq!(held["counts"]["held"], 2);
    assert_eq!(held["counts"]["available"], 14);
    assert_eq!(held["changes"][0]["column"], 0);
    mirror.apply(&held);

    let order = sale.confirm(&sale.maoyan, &hold).await.data()["confirmHold"]["id"].clone();
    let sold = client.event("1").await;
    assert_eq!(sold["version"], 2);
    assert_eq!(labels_and_states(&sold), couple("SOLD"));
    assert_eq!(
        (
            sold["counts"]["held"].as_i64(),
            sold["counts"]["sold"].as_i64()
        ),
        (Some(0), Some(2))
    );
    mirror.apply(&sold);

    sale.app
        .graphql_as(&sale.maoyan, CANCEL, json!({ "id": order }))
        .await
        .data();
    let freed = client.event("1").await;
    assert_eq!(freed["version"], 3);
    assert_eq!(labels_and_states(&freed), couple("AVAILABLE"));
    mirror.apply(&freed);

    let released = sale.hold_id(&sale.wechat, &["B5"]).await;
    mirror.apply(&client.event("1").await);
    sale.app
        .graphql_as(&sale.wechat, RELEASE, json!({ "id": released }))
        .await
        .data();
    let after_release = client.event("1").await;
    assert_eq!(
        labels_and_states(&after_release),
        [("B5".into(), "AVAILABLE".into(), "STANDARD".into())]
    );
    mirror.apply(&after_release);
    assert_eq!(mirror, mirror.fresh(&sale.app, &sale.showtime).await);
    assert_eq!(mirror.version, 5);
}

#[tokio::test]
async fn a_hold_taken_through_another_gateway_reaches_a_subscriber_of_the_first() {
    let sale = sale().await;
    let other = sale.app.another_gateway().await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    client.watch_seat_map("a", &sale.showtime).await;
    let input = json!({ "showtimeId": sale.showtime, "seats": ["A3", "A4"] });
    let written = Instant::now();
    other
        .graphql_as(&sale.maoyan, crate::sale::HOLD, json!({ "input": input }))
        .await
        .data();
    let event = client.event("a").await;
    println!(
        "a hold through gateway B reached gateway A's subscriber in {:?}",
        written.elapsed()
    );
    let labels: Vec<_> = labels_and_states(&event)
        .into_iter()
        .map(|seat| (seat.0, seat.1))
        .collect();
    assert_eq!(
        labels,
        [
            ("A3".to_owned(), "HELD".to_owned()),
            ("A4".to_owned(), "HELD".to_owned())
        ]
    );
}

#[tokio::test]
async fn a_hold_taken_through_one_gateway_process_reaches_a_subscriber_of_another() {
    let sale = sale().await;
    let database = sale.app.store.database_name().to_owned();
    let process = GatewayProcess::start(&mongodb_uri(), &database, &[]);
    let mut client = LiveClient::connect_url(&process.url(), None).await;
    client.watch_seat_map("p", &sale.showtime).await;
    sale.hold_id(&sale.wechat, &["C3", "C4"]).await;
    let event = client.event("p").await;
    assert_eq!(event["version"], 1);
    let seats: Vec<_> = labels_and_states(&event)
        .into_iter()
        .map(|seat| seat.0)
        .collect();
    assert_eq!(seats, ["C3", "C4"]);
}

#[tokio::test]
async fn an_expired_hold_turns_available_for_a_subscriber_within_a_second_of_its_expiry() {
    let sale = sale_with(HoldPolicy {
        max_seats: 6,
        ttl: Duration::from_secs(2),
        extension: Duration::from_secs(300),
    })
    .await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    client.watch_seat_map("1", &sale.showtime).await;
    let hold = sale.hold(&sale.maoyan, &["A5", "A6"]).await;
    let expires_at = hold.data()["holdSeats"]["expiresAt"]
        .as_str()
        .unwrap()
        .to_owned();
    let expires_at = chrono::DateTime::parse_from_rfc3339(&expires_at).unwrap();
    assert_eq!(client.event("1").await["counts"]["held"], 2);
    // No sweeper runs in the tests' gateways: only the on-time expiry can free the seats.
    let freed = client.event("1").await;
    let late = chrono::Utc::now().signed_duration_since(expires_at);
    println!(
        "expired seats reached the subscriber {} ms after expiresAt",
        late.num_milliseconds()
    );
    assert_eq!(
        labels_and_states(&freed)
            .iter()
            .map(|s| s.1.as_str())
            .collect::<Vec<_>>(),
        ["AVAILABLE", "AVAILABLE"]
    );
    assert!(
        late >= chrono::Duration::zero(),
        "freed before its expiry: {late}"
    );
    assert!(
        late < chrono::Duration::seconds(1),
        "freed {late} after its expiry"
    );
}

#[tokio::test]
async fn a_feed_resumed_after_a_break_delivers_the_changes_made_during_it() {
    let sale = sale().await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    client.watch_seat_map("1", &sale.showtime).await;
    let pause = sale.app.store.faults().break_change_feed(false);
    pause.reached().await;
    sale.hold_id(&sale.maoyan, &["A1"]).await;
    sale.hold_id(&sale.wechat, &["A2"]).await;
    pause.resume();
    for (version, label) in [(1, "A1"), (2, "A2")] {
        let event = client.event("1").await;
        assert_eq!(
            (event["kind"].as_str(), event["version"].as_i64()),
            (Some("CHANGES"), Some(version))
        );
        assert_eq!(event["changes"][0]["label"], label);
    }
}

#[tokio::test]
async fn a_feed_that_cannot_resume_sends_every_subscriber_a_fresh_map_never_a_gap() {
    let sale = sale().await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    let mut mirror = Mirror::default();
    mirror.apply(&client.watch_seat_map("1", &sale.showtime).await);
    let pause = sale.app.store.faults().break_change_feed(true);
    pause.reached().await;
    sale.hold_id(&sale.maoyan, &["B1", "B2"]).await;
    pause.resume();
    let event = client.event("1").await;
    assert_eq!(
        (event["kind"].as_str(), event["version"].as_i64()),
        (Some("SNAPSHOT"), Some(1))
    );
    assert_eq!(event["seatMap"]["rows"][1]["states"], "hha_aaa");
    mirror.apply(&event);
    sale.hold_id(&sale.maoyan, &["B3"]).await;
    mirror.apply(&client.event("1").await);
    assert_eq!(mirror, mirror.fresh(&sale.app, &sale.showtime).await);
}
