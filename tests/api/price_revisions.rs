//! `changeShowtimePrices` and `Showtime.priceHistory`: revisions (who, when, before, after),
//! every refusal, scope, idempotent retries, holds racing a price change, and version 1
//! showtimes read, scheduled beside, and upgraded by their next write.

use std::sync::Arc;

use bson::{doc, Bson};
use chrono::{Duration, Utc};
use serde_json::{json, Value};

use crate::fixtures::global_id;
use crate::helpers::{mongodb_uri, TestApp};
use crate::scheduling::{input, tomorrow_at, world, World, SCHEDULE};

pub const CHANGE: &str = r#"mutation($input: ChangeShowtimePricesInput!) {
  changeShowtimePrices(input: $input) {
    id priceRevision
    prices { channel price { amount } }
    priceHistory { revision operator at before { channel price { amount } } after { channel price { amount } } }
  }
}"#;

const HISTORY: &str = r#"query($id: ID!) { node(id: $id) { ... on Showtime {
  priceRevision freeAt prices { channel price { amount } }
  priceHistory { revision operator before { channel price { amount } } after { channel price { amount } } }
} } }"#;

async fn scheduled(w: &World, hour: i64) -> String {
    let answer = w
        .app
        .graphql_as(
            &w.chain,
            SCHEDULE,
            json!({ "input": input(&w.hall, &w.movie, tomorrow_at(hour, 0)) }),
        )
        .await;
    answer.data()["scheduleShowtime"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

pub fn change(showtime: &str, maoyan: i64) -> Value {
    json!({ "input": {
        "showtimeId": showtime,
        "prices": [{ "channel": "maoyan", "amount": maoyan }],
    } })
}

async fn raw_showtimes(app: &TestApp) -> mongodb::Collection<bson::Document> {
    let client = mongodb::Client::with_uri_str(mongodb_uri()).await.unwrap();
    client
        .database(app.store.database_name())
        .collection::<bson::Document>("showtimes")
}

fn oid(global: &str) -> bson::oid::ObjectId {
    let id = boxoffice::domain::global_id::showtime_id(global).unwrap();
    bson::oid::ObjectId::from_bytes(id.0)
}

#[tokio::test]
async fn every_change_is_a_revision_newest_first() {
    let w = world().await;
    let showtime = scheduled(&w, 14).await;
    let first = w
        .app
        .graphql_as(&w.chain, CHANGE, change(&showtime, 5000))
        .await;
    let changed = &first.data()["changeShowtimePrices"];
    assert_eq!(changed["priceRevision"], 1);
    assert_eq!(
        changed["prices"],
        json!([{ "channel": "maoyan", "price": { "amount": 5000 } }])
    );
    let second = w
        .app
        .graphql_as(&w.platform, CHANGE, change(&showtime, 5500))
        .await;
    let history = &second.data()["changeShowtimePrices"]["priceHistory"];
    assert_eq!(history[0]["revision"], 2);
    assert_eq!(history[0]["operator"], "platform");
    assert_eq!(
        history[0]["before"],
        json!([{ "channel": "maoyan", "price": { "amount": 5000 } }])
    );
    assert_eq!(
        history[0]["after"],
        json!([{ "channel": "maoyan", "price": { "amount": 5500 } }])
    );
    assert_eq!(history[1]["revision"], 1);
    assert_eq!(history[1]["operator"], "wanda");
    assert_eq!(
        history[1]["before"],
        json!([
            { "channel": "maoyan", "price": { "amount": 4500 } },
            { "channel": "taopiaopiao", "price": { "amount": 4200 } },
        ])
    );
    let at = history[1]["at"].as_str().unwrap();
    let at = chrono::DateTime::parse_from_rfc3339(at).unwrap();
    assert!((Utc::now() - at.with_timezone(&Utc)).num_seconds().abs() < 60);
    // A channel now sells at the new price; taopiaopiao no longer sells it.
    let price = w
        .app
        .graphql(
            r#"query($id: ID!) { node(id: $id) { ... on Showtime { maoyan: price(channel: "maoyan") { amount } tpp: price(channel: "taopiaopiao") { amount } } } }"#,
            json!({ "id": showtime }),
        )
        .await;
    assert_eq!(
        price.data()["node"],
        json!({ "maoyan": { "amount": 5500 }, "tpp": null })
    );
    let audit = w
        .app
        .graphql_as(
            &w.platform,
            r#"{ auditLog(first: 5) { edges { node { operator operation subject before after } } } }"#,
            json!({}),
        )
        .await;
    let entry = &audit.data()["auditLog"]["edges"][0]["node"];
    assert_eq!(entry["operation"], "changeShowtimePrices");
    assert_eq!(entry["subject"], json!(showtime));
    assert!(entry["before"].as_str().unwrap().contains("5000"));
    assert!(entry["after"].as_str().unwrap().contains("5500"));
}

#[tokio::test]
async fn bad_changes_are_refused_and_change_nothing() {
    let w = world().await;
    let showtime = scheduled(&w, 14).await;
    let missing = global_id("Showtime", [5; 12]);
    let cases: Vec<(Value, &str, String)> = vec![
        (
            change(&missing, 100),
            "NOT_FOUND",
            format!("showtime {missing} does not exist"),
        ),
        (
            json!({ "input": { "showtimeId": showtime, "prices": [] } }),
            "BAD_USER_INPUT",
            "a price on at least one channel".into(),
        ),
        (
            change(&showtime, -1),
            "BAD_USER_INPUT",
            "must be 1 to 1000000 fen".into(),
        ),
        (
            json!({ "input": { "showtimeId": showtime, "prices": [{ "channel": "nobody", "amount": 1 }] } }),
            "BAD_USER_INPUT",
            "channel `nobody` does not exist".into(),
        ),
        (
            json!({ "input": { "showtimeId": global_id("Hall", w.hall.id), "prices": [{ "channel": "maoyan", "amount": 1 }] } }),
            "BAD_USER_INPUT",
            "not of a Showtime".into(),
        ),
    ];
    for (variables, code, message) in cases {
        let answer = w.app.graphql_as(&w.chain, CHANGE, variables.clone()).await;
        assert_eq!(answer.error_code(), code, "{variables}");
        assert!(
            answer.error_message().contains(&message),
            "{}",
            answer.error_message()
        );
    }
    // Scope: a channel, an anonymous caller, and another chain.
    let refused = w
        .app
        .graphql_as(&w.channel, CHANGE, change(&showtime, 100))
        .await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    let refused = w.app.graphql(CHANGE, change(&showtime, 100)).await;
    assert_eq!(refused.error_code(), "UNAUTHENTICATED");
    let other = w
        .app
        .operator_key(
            "bona",
            Some(&[global_id("Cinema", w.foreign_hall.cinema_id)]),
        )
        .await;
    let refused = w
        .app
        .graphql_as(&other, CHANGE, change(&showtime, 100))
        .await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    assert!(refused.error_message().contains("may not write cinema"));

    // Cancelled or started showtimes keep their prices.
    let showtimes = raw_showtimes(&w.app).await;
    for (set, message) in [
        (doc! { "status": "CANCELLING" }, "is cancelled"),
        (doc! { "status": "CANCELLED" }, "is cancelled"),
        (
            doc! { "status": "SCHEDULED", "startsAt": bson::DateTime::from_chrono(Utc::now() - Duration::minutes(5)) },
            "has started",
        ),
    ] {
        showtimes
            .update_one(doc! { "_id": oid(&showtime) }, doc! { "$set": set })
            .await
            .unwrap();
        let refused = w
            .app
            .graphql_as(&w.chain, CHANGE, change(&showtime, 100))
            .await;
        assert_eq!(refused.error_code(), "BAD_USER_INPUT");
        assert!(
            refused.error_message().contains(message),
            "{}",
            refused.error_message()
        );
    }
    let stored = showtimes
        .find_one(doc! { "_id": oid(&showtime) })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.get_i64("priceRevision").unwrap(), 0);
    assert_eq!(
        stored.get_array("prices").unwrap()[0]
            .as_document()
            .unwrap()
            .get_i64("amount")
            .unwrap(),
        4500
    );
    let revisions = w.app.graphql(HISTORY, json!({ "id": showtime })).await;
    assert_eq!(revisions.data()["node"]["priceHistory"], json!([]));
}

#[tokio::test]
async fn a_retried_change_has_one_effect_and_the_same_answer() {
    let w = world().await;
    let showtime = scheduled(&w, 14).await;
    let mut keyed = change(&showtime, 5000);
    keyed["input"]["idempotencyKey"] = json!("prices-1");
    let once = w.app.graphql_as(&w.chain, CHANGE, keyed.clone()).await;
    let second_gateway = w.app.another_gateway().await;
    let again = second_gateway
        .graphql_as(&w.chain, CHANGE, keyed.clone())
        .await;
    assert_eq!(once.data(), again.data());
    assert_eq!(once.data()["changeShowtimePrices"]["priceRevision"], 1);
    let mut other = change(&showtime, 6000);
    other["input"]["idempotencyKey"] = json!("prices-1");
    let reused = w.app.graphql_as(&w.chain, CHANGE, other).await;
    assert_eq!(reused.error_code(), "IDEMPOTENCY_KEY_REUSED");
    let read = w.app.graphql(HISTORY, json!({ "id": showtime })).await;
    assert_eq!(read.data()["node"]["priceRevision"], 1);
    assert_eq!(
        read.data()["node"]["priceHistory"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// 24 tasks on two gateways hold one seat each while the price changes from 4500 to 6000:
/// every hold has the old or the new price, every hold that started after the change
/// returned has the new one, and a confirmed order keeps its hold's price.
#[tokio::test]
async fn holds_racing_a_price_change_get_the_old_or_the_new_price() {
    let app = TestApp::spawn().await;
    let mut catalogue = crate::fixtures::Catalogue::default();
    let channel = catalogue.channel("maoyan", "猫眼");
    let cinema = catalogue.cinema("万达影城", "北京", 39.9, 116.4);
    let hall = catalogue.hall(&cinema, "1号厅", &["SSSSSSSS"; 6]);
    let movie = catalogue.movie("流浪地球", &["科幻"]);
    catalogue.insert(&app).await;
    let platform = app.operator_key("platform", None).await;
    let mut variables = input(&hall, &movie, tomorrow_at(14, 0));
    variables["prices"] = json!([{ "channel": "maoyan", "amount": 4500 }]);
    let scheduled = app
        .graphql_as(&platform, SCHEDULE, json!({ "input": variables }))
        .await;
    let showtime = scheduled.data()["scheduleShowtime"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let gateways = Arc::new([app.another_gateway().await, app.another_gateway().await]);
    let changed_at = Arc::new(std::sync::Mutex::new(None::<std::time::Instant>));
    let hold = r#"mutation($id: ID!, $seat: String!) { holdSeats(input: {showtimeId: $id, seats: [$seat]}) { id total { amount } } }"#;
    let mut tasks = Vec::new();
    for i in 0..24_usize {
        let (gateways, changed_at) = (Arc::clone(&gateways), Arc::clone(&changed_at));
        let (key, showtime) = (channel.as_str().to_owned(), showtime.clone());
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(5 * i as u64)).await;
            let started = std::time::Instant::now();
            let after_change = changed_at.lock().unwrap().is_some_and(|at| at <= started);
            let seat = format!("{}{}", ["A", "B", "C", "D", "E", "F"][i / 4], i % 4 + 1);
            let answer = gateways[i % 2]
                .graphql_as(&key, hold, json!({ "id": showtime, "seat": seat }))
                .await;
            let held = answer.data()["holdSeats"].clone();
            (after_change, held)
        }));
    }
    tokio::time::sleep(std::time::Duration::from_millis(40)).await;
    let changed = app
        .graphql_as(&platform, CHANGE, change(&showtime, 6000))
        .await;
    changed.data();
    *changed_at.lock().unwrap() = Some(std::time::Instant::now());
    let mut holds = Vec::new();
    for task in tasks {
        let (after_change, held) = task.await.unwrap();
        let amount = held["total"]["amount"].as_i64().unwrap();
        assert!(amount == 4500 || amount == 6000, "{amount}");
        if after_change {
            assert_eq!(amount, 6000, "a hold started after the change returned");
        }
        holds.push((held["id"].as_str().unwrap().to_owned(), amount));
    }
    // A confirmed order keeps the price its hold was given, whatever the showtime says now.
    let confirm = r#"mutation($id: ID!) { confirmHold(input: {holdId: $id, customer: {name: "张三", contact: "13800000000"}}) { total { amount } } }"#;
    for (hold_id, amount) in [
        holds.iter().find(|h| h.1 == 4500),
        holds.iter().find(|h| h.1 == 6000),
    ]
    .into_iter()
    .flatten()
    {
        let order = app
            .graphql_as(channel.as_str(), confirm, json!({ "id": hold_id }))
            .await;
        assert_eq!(order.data()["confirmHold"]["total"]["amount"], *amount);
    }
}

/// Showtimes written by the version 1 code (no `priceRevision`, no `freeAt`) are read as
/// revision 0, free 15 minutes after their end; scheduling beside them respects that; a
/// price change stores them as the current version with both fields.
#[tokio::test]
async fn version_1_showtimes_are_read_upgraded_and_rewritten_as_the_current_version() {
    let w = world().await;
    let showtimes = raw_showtimes(&w.app).await;
    let inventories = showtimes
        .client()
        .database(w.app.store.database_name())
        .collection::<bson::Document>("seat_inventory");
    let starts = tomorrow_at(14, 0);
    let ends = starts + Duration::minutes(120);
    let id = bson::oid::ObjectId::new();
    // Exactly as the version 1 code wrote it.
    showtimes
        .insert_one(doc! {
            "_id": id,
            "schemaVersion": 1,
            "cinema": { "id": bson::oid::ObjectId::from_bytes(w.cinema.id.0), "name": "万达影城", "city": "北京" },
            "movie": { "id": bson::oid::ObjectId::from_bytes(w.movie.id.0), "title": "流浪地球", "runtimeMinutes": 120 },
            "theater": { "id": bson::oid::ObjectId::from_bytes(w.hall.id.0), "name": "1号厅", "format": "IMAX" },
            "startsAt": bson::DateTime::from_chrono(starts),
            "endsAt": bson::DateTime::from_chrono(ends),
            "language": "国语",
            "currency": "CNY",
            "prices": [{ "channel": "maoyan", "amount": 4000_i64 }],
            "status": "SCHEDULED",
        })
        .await
        .unwrap();
    inventories
        .insert_one(doc! {
            "_id": id, "schemaVersion": 1, "theaterId": bson::oid::ObjectId::from_bytes(w.hall.id.0),
            "startsAt": bson::DateTime::from_chrono(starts), "capacity": 2,
            "seats": { "A": [{ "kind": "STANDARD", "state": "AVAILABLE" }, { "kind": "STANDARD", "state": "AVAILABLE" }] },
            "counts": { "available": 2, "held": 0, "sold": 0, "blocked": 0 },
        })
        .await
        .unwrap();
    let global = global_id("Showtime", id);

    // Read: revision 0, free at the end plus 15 minutes, no history; listed too.
    let read = w.app.graphql(HISTORY, json!({ "id": global })).await;
    let node = &read.data()["node"];
    assert_eq!(node["priceRevision"], 0);
    assert_eq!(
        node["freeAt"],
        json!((ends + Duration::minutes(15)).to_rfc3339())
    );
    assert_eq!(node["priceHistory"], json!([]));
    let listed = w
        .app
        .graphql(
            "query($c: ID!) { showtimes(filter: {cinemaId: $c}) { nodes { id freeAt priceRevision } } }",
            json!({ "c": global_id("Cinema", w.cinema.id) }),
        )
        .await;
    assert_eq!(listed.data()["showtimes"]["nodes"][0]["id"], json!(global));

    // Scheduling beside it: 16:14 is still within its cleaning, 16:15 is free.
    let refused = w
        .app
        .graphql_as(
            &w.chain,
            SCHEDULE,
            json!({ "input": input(&w.hall, &w.movie, tomorrow_at(16, 14)) }),
        )
        .await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert!(refused
        .error_message()
        .contains(&format!("overlaps showtime {global}")));
    let refused = w
        .app
        .graphql_as(
            &w.chain,
            SCHEDULE,
            json!({ "input": input(&w.hall, &w.movie, tomorrow_at(12, 0)) }),
        )
        .await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    let done = w
        .app
        .graphql_as(
            &w.chain,
            SCHEDULE,
            json!({ "input": input(&w.hall, &w.movie, tomorrow_at(16, 15)) }),
        )
        .await;
    done.data();

    // Its prices read as the matrix does: each an ADULT price of every kind.
    let matrix = w
        .app
        .graphql(
            "query($id: ID!) { node(id: $id) { ... on Showtime { prices { seatKind ticketType } } } }",
            json!({ "id": global }),
        )
        .await;
    let prices = matrix.data()["node"]["prices"].as_array().unwrap();
    assert!(!prices.is_empty());
    for price in prices {
        assert_eq!(price, &json!({ "seatKind": null, "ticketType": "ADULT" }));
    }

    // Its next write stores it as the current version.
    let changed = w
        .app
        .graphql_as(&w.chain, CHANGE, change(&global, 4800))
        .await;
    assert_eq!(changed.data()["changeShowtimePrices"]["priceRevision"], 1);
    let stored = showtimes
        .find_one(doc! { "_id": id })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        stored.get_i32("schemaVersion").unwrap(),
        boxoffice::store::documents::SHOWTIME_SCHEMA_VERSION
    );
    assert_eq!(stored.get_i64("priceRevision").unwrap(), 1);
    assert_eq!(
        stored.get("freeAt"),
        Some(&Bson::DateTime(bson::DateTime::from_chrono(
            ends + Duration::minutes(15)
        )))
    );
    let history = &changed.data()["changeShowtimePrices"]["priceHistory"];
    assert_eq!(
        history[0]["before"],
        json!([{ "channel": "maoyan", "price": { "amount": 4000 } }])
    );
}
