//! `scheduleShowtime`: the happy path, every refusal, scope, idempotent retries, the audit
//! entry, and no two showtimes of a hall overlapping, across racing gateways.

use std::sync::Arc;

use boxoffice::store::documents::{CinemaDoc, HallDoc, MovieDoc, SHOWTIME_SCHEMA_VERSION};
use bson::doc;
use chrono::{DateTime, Duration, DurationRound, Utc};
use serde_json::{json, Value};

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::{mongodb_uri, TestApp};

pub const SCHEDULE: &str = r#"mutation($input: ScheduleShowtimeInput!) {
  scheduleShowtime(input: $input) {
    id startsAt endsAt freeAt language priceRevision
    cinema { name } movie { title } hall { name }
    prices { channel price { amount currency } }
    seatMap { counts { available } }
  }
}"#;

/// A cinema with two halls, a movie of 120 minutes, channels maoyan and taopiaopiao, the
/// platform operator and a chain that writes only this cinema; another chain's cinema.
pub struct World {
    pub app: TestApp,
    pub cinema: CinemaDoc,
    pub hall: HallDoc,
    pub other_hall: HallDoc,
    pub foreign_hall: HallDoc,
    pub movie: MovieDoc,
    pub platform: String,
    pub chain: String,
    pub channel: String,
}

pub async fn world() -> World {
    world_on(TestApp::spawn().await).await
}

/// The same world on `app`'s database (a gateway with other policies).
pub async fn world_on(app: TestApp) -> World {
    let mut catalogue = Catalogue::default();
    let channel = catalogue.channel("maoyan", "猫眼");
    catalogue.channel("taopiaopiao", "淘票票");
    let cinema = catalogue.cinema("万达影城", "北京", 39.9, 116.4);
    let hall = catalogue.hall(&cinema, "1号厅", &["SSSS", "SSSS"]);
    let other_hall = catalogue.hall(&cinema, "2号厅", &["SS"]);
    let foreign = catalogue.cinema("博纳影城", "上海", 31.2, 121.4);
    let foreign_hall = catalogue.hall(&foreign, "1号厅", &["SS"]);
    let movie = catalogue.movie("流浪地球", &["科幻"]);
    catalogue.insert(&app).await;
    let platform = app.operator_key("platform", None).await;
    let chain = app
        .operator_key("wanda", Some(&[global_id("Cinema", cinema.id)]))
        .await;
    World {
        app,
        cinema,
        hall,
        other_hall,
        foreign_hall,
        movie,
        platform,
        chain,
        channel: channel.as_str().to_owned(),
    }
}

/// Tomorrow at `hour`:`minute` UTC.
pub fn tomorrow_at(hour: i64, minute: i64) -> DateTime<Utc> {
    let midnight = (Utc::now() + Duration::days(1))
        .duration_trunc(Duration::days(1))
        .unwrap();
    midnight + Duration::hours(hour) + Duration::minutes(minute)
}

pub fn input(hall: &HallDoc, movie: &MovieDoc, starts: DateTime<Utc>) -> Value {
    json!({
        "hallId": global_id("Hall", hall.id),
        "movieId": global_id("Movie", movie.id),
        "startsAt": starts.to_rfc3339(),
        "language": "国语",
        "prices": [
            { "channel": "maoyan", "amount": 4500 },
            { "channel": "taopiaopiao", "amount": 4200, "currency": "CNY" },
        ],
    })
}

/// The stored showtimes of `hall`, raw.
pub async fn stored_showtimes(app: &TestApp, hall: &HallDoc) -> Vec<bson::Document> {
    use futures::TryStreamExt;
    let client = mongodb::Client::with_uri_str(mongodb_uri()).await.unwrap();
    let db = client.database(app.store.database_name());
    db.collection::<bson::Document>("showtimes")
        .find(doc! { "theater.id": bson::oid::ObjectId::from_bytes(hall.id.0) })
        .sort(doc! { "startsAt": 1 })
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

#[tokio::test]
async fn an_operator_schedules_a_showtime_with_its_seats() {
    let w = world().await;
    let starts = tomorrow_at(14, 0);
    let answer = w
        .app
        .graphql_as(
            &w.chain,
            SCHEDULE,
            json!({ "input": input(&w.hall, &w.movie, starts) }),
        )
        .await;
    let showtime = &answer.data()["scheduleShowtime"];
    assert_eq!(
        showtime["endsAt"],
        json!((starts + Duration::minutes(120)).to_rfc3339())
    );
    assert_eq!(
        showtime["freeAt"],
        json!((starts + Duration::minutes(135)).to_rfc3339())
    );
    assert_eq!(showtime["hall"]["name"], "1号厅");
    assert_eq!(showtime["cinema"]["name"], "万达影城");
    assert_eq!(showtime["movie"]["title"], "流浪地球");
    assert_eq!(showtime["priceRevision"], 0);
    assert_eq!(showtime["seatMap"]["counts"]["available"], 8);
    assert_eq!(
        showtime["prices"],
        json!([
            { "channel": "maoyan", "price": { "amount": 4500, "currency": "CNY" } },
            { "channel": "taopiaopiao", "price": { "amount": 4200, "currency": "CNY" } },
        ])
    );
    // Listed, and sold: a channel holds a seat at the price just set.
    let id = showtime["id"].as_str().unwrap();
    let held = w
        .app
        .graphql_as(
            &w.channel,
            r#"mutation($id: ID!) { holdSeats(input: {showtimeId: $id, seats: ["A1"]}) { total { amount } } }"#,
            json!({ "id": id }),
        )
        .await;
    assert_eq!(held.data()["holdSeats"]["total"]["amount"], 4500);
    let listed = w
        .app
        .graphql(
            "query($c: ID!) { showtimes(filter: {cinemaId: $c}) { nodes { id } } }",
            json!({ "c": global_id("Cinema", w.cinema.id) }),
        )
        .await;
    assert_eq!(listed.data()["showtimes"]["nodes"], json!([{ "id": id }]));
    // The stored document is the current version with its busy-until time, and the hall's
    // version moved.
    let stored = stored_showtimes(&w.app, &w.hall).await;
    assert_eq!(stored.len(), 1);
    assert_eq!(
        stored[0].get_i32("schemaVersion").unwrap(),
        SHOWTIME_SCHEMA_VERSION
    );
    assert_eq!(stored[0].get_i64("priceRevision").unwrap(), 0);
    assert!(stored[0].get_datetime("freeAt").is_ok());
    let hall = w.app.store.halls_by_ids(&[w.hall.id]).await.unwrap();
    assert_eq!(hall[0].schedule_version, 1);

    let audit = w
        .app
        .graphql_as(
            &w.platform,
            "{ auditLog(first: 5) { edges { node { operator operation subject after } } } }",
            json!({}),
        )
        .await;
    let entry = &audit.data()["auditLog"]["edges"][0]["node"];
    assert_eq!(entry["operator"], "wanda");
    assert_eq!(entry["operation"], "scheduleShowtime");
    assert_eq!(entry["subject"], json!(id));
    assert!(entry["after"].as_str().unwrap().contains("freeAt"));
}

#[tokio::test]
async fn every_bad_input_is_refused_and_changes_nothing() {
    let w = world().await;
    let starts = tomorrow_at(14, 0);
    let with = |change: &dyn Fn(&mut Value)| {
        let mut input = input(&w.hall, &w.movie, starts);
        change(&mut input);
        json!({ "input": input })
    };
    let missing_hall = global_id("Hall", [7; 12]);
    let missing_movie = global_id("Movie", [8; 12]);
    let cases: Vec<(Value, &str, String)> = vec![
        (
            with(&|i| i["hallId"] = json!(missing_hall)),
            "NOT_FOUND",
            format!("hall {missing_hall} does not exist"),
        ),
        (
            with(&|i| i["movieId"] = json!(missing_movie)),
            "NOT_FOUND",
            format!("movie {missing_movie} does not exist"),
        ),
        (
            with(&|i| i["hallId"] = json!(global_id("Movie", w.movie.id))),
            "BAD_USER_INPUT",
            "not of a Hall".into(),
        ),
        (
            with(&|i| {
                i["startsAt"] = json!((Utc::now() - Duration::hours(1))
                    .duration_trunc(Duration::minutes(1))
                    .unwrap()
                    .to_rfc3339())
            }),
            "BAD_USER_INPUT",
            "is not in the future".into(),
        ),
        (
            with(&|i| i["startsAt"] = json!((starts + Duration::days(91)).to_rfc3339())),
            "BAD_USER_INPUT",
            "more than 90 days ahead".into(),
        ),
        (
            with(&|i| i["startsAt"] = json!((starts + Duration::seconds(30)).to_rfc3339())),
            "BAD_USER_INPUT",
            "not on a whole minute".into(),
        ),
        (
            with(&|i| i["language"] = json!(" ")),
            "BAD_USER_INPUT",
            "language must be 1 to 40 characters".into(),
        ),
        (
            with(&|i| i["prices"] = json!([])),
            "BAD_USER_INPUT",
            "a price on at least one channel".into(),
        ),
        (
            with(
                &|i| i["prices"] = json!([{ "channel": "maoyan", "amount": 1 }, { "channel": "maoyan", "amount": 2 }]),
            ),
            "BAD_USER_INPUT",
            "channel `maoyan` has more than one ADULT price".into(),
        ),
        (
            with(&|i| i["prices"] = json!([{ "channel": "maoyan", "amount": 0 }])),
            "BAD_USER_INPUT",
            "must be 1 to 1000000 fen, not 0".into(),
        ),
        (
            with(&|i| i["prices"] = json!([{ "channel": "maoyan", "amount": 1_000_001 }])),
            "BAD_USER_INPUT",
            "must be 1 to 1000000 fen, not 1000001".into(),
        ),
        (
            with(&|i| {
                i["prices"] = json!([{ "channel": "maoyan", "amount": 100, "currency": "USD" }])
            }),
            "BAD_USER_INPUT",
            "showtimes are sold in CNY".into(),
        ),
        (
            with(&|i| i["prices"] = json!([{ "channel": "nobody", "amount": 100 }])),
            "BAD_USER_INPUT",
            "channel `nobody` does not exist".into(),
        ),
        (
            with(&|i| i["idempotencyKey"] = json!("has space")),
            "BAD_USER_INPUT",
            "idempotencyKey must be".into(),
        ),
    ];
    for (variables, code, message) in cases {
        let answer = w
            .app
            .graphql_as(&w.platform, SCHEDULE, variables.clone())
            .await;
        assert_eq!(answer.error_code(), code, "{variables}");
        assert!(
            answer.error_message().contains(&message),
            "{} should say {message}",
            answer.error_message()
        );
    }
    assert!(stored_showtimes(&w.app, &w.hall).await.is_empty());
    let hall = w.app.store.halls_by_ids(&[w.hall.id]).await.unwrap();
    assert_eq!(hall[0].schedule_version, 0);
}

#[tokio::test]
async fn only_an_operator_of_the_cinema_schedules() {
    let w = world().await;
    let variables = json!({ "input": input(&w.foreign_hall, &w.movie, tomorrow_at(14, 0)) });
    let refused = w
        .app
        .graphql_as(&w.chain, SCHEDULE, variables.clone())
        .await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    assert!(refused.error_message().contains("may not write cinema"));
    let refused = w
        .app
        .graphql_as(&w.channel, SCHEDULE, variables.clone())
        .await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    assert!(refused.error_message().contains("a sales channel cannot"));
    let refused = w.app.graphql(SCHEDULE, variables.clone()).await;
    assert_eq!(refused.error_code(), "UNAUTHENTICATED");
    assert!(stored_showtimes(&w.app, &w.foreign_hall).await.is_empty());
    // The platform writes every cinema.
    let done = w.app.graphql_as(&w.platform, SCHEDULE, variables).await;
    assert_eq!(done.data()["scheduleShowtime"]["hall"]["name"], "1号厅");
}

#[tokio::test]
async fn a_retried_schedule_has_one_effect_and_the_same_answer() {
    let w = world().await;
    let mut first = input(&w.hall, &w.movie, tomorrow_at(14, 0));
    first["idempotencyKey"] = json!("schedule-1");
    let once = w
        .app
        .graphql_as(&w.chain, SCHEDULE, json!({ "input": first.clone() }))
        .await;
    let again = w
        .app
        .graphql_as(&w.chain, SCHEDULE, json!({ "input": first.clone() }))
        .await;
    assert_eq!(once.data(), again.data());
    assert_eq!(stored_showtimes(&w.app, &w.hall).await.len(), 1);
    let mut other = first.clone();
    other["startsAt"] = json!(tomorrow_at(18, 0).to_rfc3339());
    let reused = w
        .app
        .graphql_as(&w.chain, SCHEDULE, json!({ "input": other }))
        .await;
    assert_eq!(reused.error_code(), "IDEMPOTENCY_KEY_REUSED");
    // Another operator's keys are its own.
    let theirs = w
        .app
        .graphql_as(&w.platform, SCHEDULE, json!({ "input": first }))
        .await;
    assert_eq!(
        theirs.error_code(),
        "BAD_USER_INPUT",
        "it overlaps, no replay"
    );
    let audit = w
        .app
        .graphql_as(
            &w.platform,
            "{ auditLog(first: 10) { edges { node { operation } } } }",
            json!({}),
        )
        .await;
    assert_eq!(
        audit.data()["auditLog"]["edges"].as_array().unwrap().len(),
        1
    );
}

#[tokio::test]
async fn an_overlap_is_refused_naming_the_showtime_and_touching_slots_are_not() {
    let w = world().await;
    let first = w
        .app
        .graphql_as(
            &w.chain,
            SCHEDULE,
            json!({ "input": input(&w.hall, &w.movie, tomorrow_at(14, 0)) }),
        )
        .await;
    let first_id = first.data()["scheduleShowtime"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // 14:00–16:15 busy: 16:14 overlaps, and so does 12:00 (busy until 14:15).
    for (hour, minute) in [(16, 14), (12, 0), (14, 0), (15, 0)] {
        let refused = w
            .app
            .graphql_as(
                &w.chain,
                SCHEDULE,
                json!({ "input": input(&w.hall, &w.movie, tomorrow_at(hour, minute)) }),
            )
            .await;
        assert_eq!(refused.error_code(), "BAD_USER_INPUT");
        let message = refused.error_message();
        assert!(
            message.contains(&format!("overlaps showtime {first_id}"))
                && message.contains("14:00–16:15 in hall 1号厅"),
            "{message}"
        );
    }
    // Touching: 16:15 (just free) and 11:45 (free at 14:00); another hall at 14:00.
    for (hall, hour, minute) in [(&w.hall, 16, 15), (&w.hall, 11, 45), (&w.other_hall, 14, 0)] {
        let done = w
            .app
            .graphql_as(
                &w.chain,
                SCHEDULE,
                json!({ "input": input(hall, &w.movie, tomorrow_at(hour, minute)) }),
            )
            .await;
        done.data();
    }
    assert_eq!(stored_showtimes(&w.app, &w.hall).await.len(), 3);
}

#[tokio::test]
async fn the_cleaning_gap_is_the_gateways_and_is_recorded_with_the_showtime() {
    let app = TestApp::spawn_configured(boxoffice::config::Limits::default(), |state| {
        state.with_catalogue_rules(boxoffice::catalogue::rules::limits::CatalogueRules {
            cleaning_gap: chrono::TimeDelta::minutes(40),
            ..Default::default()
        })
    })
    .await;
    app.store.ensure_indexes().await.unwrap();
    let mut catalogue = Catalogue::default();
    catalogue.channel("maoyan", "猫眼");
    catalogue.channel("taopiaopiao", "淘票票");
    let cinema = catalogue.cinema("万达影城", "北京", 39.9, 116.4);
    let hall = catalogue.hall(&cinema, "1号厅", &["SS"]);
    let movie = catalogue.movie("流浪地球", &["科幻"]);
    catalogue.insert(&app).await;
    let platform = app.operator_key("platform", None).await;
    let starts = tomorrow_at(10, 0);
    let done = app
        .graphql_as(
            &platform,
            SCHEDULE,
            json!({ "input": input(&hall, &movie, starts) }),
        )
        .await;
    assert_eq!(
        done.data()["scheduleShowtime"]["freeAt"],
        json!((starts + Duration::minutes(160)).to_rfc3339())
    );
    let refused = app
        .graphql_as(
            &platform,
            SCHEDULE,
            json!({ "input": input(&hall, &movie, tomorrow_at(12, 30)) }),
        )
        .await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    let done = app
        .graphql_as(
            &platform,
            SCHEDULE,
            json!({ "input": input(&hall, &movie, tomorrow_at(12, 40)) }),
        )
        .await;
    done.data();
}

#[tokio::test]
async fn a_cancelled_showtime_frees_its_slot() {
    let w = world().await;
    let first = w
        .app
        .graphql_as(
            &w.chain,
            SCHEDULE,
            json!({ "input": input(&w.hall, &w.movie, tomorrow_at(14, 0)) }),
        )
        .await;
    first.data();
    let client = mongodb::Client::with_uri_str(mongodb_uri()).await.unwrap();
    let showtimes = client
        .database(w.app.store.database_name())
        .collection::<bson::Document>("showtimes");
    let hall = bson::oid::ObjectId::from_bytes(w.hall.id.0);
    // CANCELLING still holds the hall; CANCELLED frees it.
    for (status, code) in [("CANCELLING", Some("BAD_USER_INPUT")), ("CANCELLED", None)] {
        showtimes
            .update_many(
                doc! { "theater.id": hall },
                doc! { "$set": { "status": status } },
            )
            .await
            .unwrap();
        let again = w
            .app
            .graphql_as(
                &w.chain,
                SCHEDULE,
                json!({ "input": input(&w.hall, &w.movie, tomorrow_at(15, 0)) }),
            )
            .await;
        match code {
            Some(code) => assert_eq!(again.error_code(), code),
            None => assert_eq!(again.data()["scheduleShowtime"]["priceRevision"], 0),
        }
    }
}

/// 16 tasks on two gateways schedule in one hall at once: four groups of four overlapping
/// starts (each group's slot apart from the others'). Exactly one of each group wins, every
/// other one is told which showtime it overlaps, no two stored showtimes of the hall overlap,
/// and each has its inventory.
#[tokio::test]
async fn racing_schedulers_on_two_gateways_never_overlap() {
    let w = world().await;
    let second = Arc::new(w.app.another_gateway().await);
    let first = Arc::new(w.app.another_gateway().await);
    let mut tasks = Vec::new();
    for group in 0..4_i64 {
        for member in 0..4_i64 {
            // Group g starts at 06:00 + 4h·g; its members 0, 20, 40, 60 minutes in.
            let starts = tomorrow_at(6 + 4 * group, 20 * member);
            let gateway = if (group + member) % 2 == 0 {
                Arc::clone(&first)
            } else {
                Arc::clone(&second)
            };
            let (key, variables) = (
                w.chain.clone(),
                json!({ "input": input(&w.hall, &w.movie, starts) }),
            );
            tasks.push(tokio::spawn(async move {
                (group, gateway.graphql_as(&key, SCHEDULE, variables).await)
            }));
        }
    }
    let mut winners = [0; 4];
    for task in tasks {
        let (group, answer) = task.await.unwrap();
        if answer.0.get("errors").is_none() {
            winners[group as usize] += 1;
        } else {
            assert_eq!(answer.error_code(), "BAD_USER_INPUT", "{:#}", answer.0);
            assert!(answer.error_message().contains("overlaps showtime"));
        }
    }
    assert_eq!(winners, [1, 1, 1, 1]);
    let stored = stored_showtimes(&w.app, &w.hall).await;
    assert_eq!(stored.len(), 4);
    for pair in stored.windows(2) {
        assert!(
            pair[0].get_datetime("freeAt").unwrap() <= pair[1].get_datetime("startsAt").unwrap()
        );
    }
    let ids: Vec<_> = stored
        .iter()
        .map(|s| s.get_object_id("_id").unwrap())
        .collect();
    let client = mongodb::Client::with_uri_str(mongodb_uri()).await.unwrap();
    let inventories = client
        .database(w.app.store.database_name())
        .collection::<bson::Document>("seat_inventory")
        .count_documents(doc! { "_id": { "$in": ids } })
        .await
        .unwrap();
    assert_eq!(inventories, 4);
    let hall = w.app.store.halls_by_ids(&[w.hall.id]).await.unwrap();
    assert_eq!(hall[0].schedule_version, 4);
}
