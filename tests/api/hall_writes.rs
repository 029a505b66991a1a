//! Operators creating halls and changing them: layouts validated, a layout change refused
//! under future showtimes, and two layout changes of one hall racing through its schedule
//! version.

use boxoffice::catalogue::rules::limits::CatalogueRules;
use boxoffice::config::Limits;
use boxoffice::store::documents::{CinemaDoc, HallDoc, MovieDoc, ShowtimeStatus};
use serde_json::{json, Value};

use crate::catalogue_writes::{count, raw, AUDIT};
use crate::fixtures::{global_id, Catalogue};
use crate::helpers::TestApp;

pub const CREATE_HALL: &str = "mutation ($input: CreateHallInput!) { createHall(input: $input) {
    id name format capacity cinema { id } layout { rows { label seats { label kind } } } } }";
pub const UPDATE_HALL: &str = "mutation ($input: UpdateHallInput!) { updateHall(input: $input) {
    id name format capacity layout { rows { label seats { label kind } } } } }";
const HALL: &str = "query ($id: ID!) { node(id: $id) { ... on Hall { name format capacity
    layout { rows { label seats { label } } } } } }";

/// Rows drawn as text: S standard, V vip, W wheelchair, C couple, _ gap; labelled A, B, ...
pub fn layout(rows: &[&str]) -> Value {
    let rows: Vec<Value> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let positions: Vec<Value> = row
                .chars()
                .map(|c| match c {
                    'S' => json!("STANDARD"),
                    'V' => json!("VIP"),
                    'W' => json!("WHEELCHAIR"),
                    'C' => json!("COUPLE"),
                    _ => Value::Null,
                })
                .collect();
            json!({ "label": ((b'A' + i as u8) as char).to_string(), "positions": positions })
        })
        .collect();
    json!({ "rows": rows })
}

struct Halls {
    app: TestApp,
    cinema: CinemaDoc,
    hall: HallDoc,
    movie: MovieDoc,
    chain: String,
    platform: String,
    channel: String,
    catalogue: Catalogue,
}

async fn halls_on(app: TestApp) -> Halls {
    let mut catalogue = Catalogue::default();
    let channel = catalogue.channel("maoyan", "猫眼").as_str().to_owned();
    let cinema = catalogue.cinema("万达影城", "北京", 39.9, 116.4);
    let hall = catalogue.hall(&cinema, "1号厅", &["SSSS", "SSSS"]);
    let movie = catalogue.movie("电影", &["剧情"]);
    let written = catalogue.insert(&app).await;
    let chain = app
        .operator_key("wanda", Some(&[global_id("Cinema", cinema.id)]))
        .await;
    let platform = app.operator_key("platform", None).await;
    drop(written);
    Halls {
        app,
        cinema,
        hall,
        movie,
        chain,
        platform,
        channel,
        catalogue: Catalogue::default(),
    }
}

pub fn hall_input(cinema: &CinemaDoc) -> Value {
    json!({ "cinemaId": global_id("Cinema", cinema.id), "name": "IMAX厅", "format": "IMAX",
        "layout": layout(&["SSS_SSS", "VVV_VVV", "CC_CCCC", "W_____W"]) })
}

#[tokio::test]
async fn a_hall_is_created_with_its_layout_and_capacity_counted() {
    let h = halls_on(TestApp::spawn().await).await;
    let input = hall_input(&h.cinema);
    let keyed = json!({ "input": { "idempotencyKey": "hall-1", "cinemaId": input["cinemaId"],
        "name": input["name"], "format": input["format"], "layout": input["layout"] } });
    let created = h.app.graphql_as(&h.chain, CREATE_HALL, keyed.clone()).await;
    let hall = created.data()["createHall"].clone();
    assert_eq!(hall["capacity"], 20);
    assert_eq!(hall["cinema"]["id"], global_id("Cinema", h.cinema.id));
    assert_eq!(
        hall["layout"]["rows"][2]["seats"][2]["label"], "C4",
        "gaps leave numbers out"
    );
    assert_eq!(hall["layout"]["rows"][2]["seats"][2]["kind"], "COUPLE");
    let read = h.app.graphql(HALL, json!({ "id": hall["id"] })).await;
    assert_eq!(read.data()["node"]["format"], "IMAX");
    // A retry answers the same and writes nothing more; the key with another input is refused.
    let again = h.app.graphql_as(&h.chain, CREATE_HALL, keyed.clone()).await;
    assert_eq!(again.data(), created.data());
    assert_eq!(count(&h.app, "theaters").await, 2);
    let mut other = keyed.clone();
    other["input"]["name"] = json!("杜比厅");
    let reused = h.app.graphql_as(&h.chain, CREATE_HALL, other).await;
    assert_eq!(reused.error_code(), "IDEMPOTENCY_KEY_REUSED");
    let audit = h.app.graphql_as(&h.platform, AUDIT, json!({})).await;
    let entry = &audit.data()["auditLog"]["edges"][0]["node"];
    assert_eq!(entry["operation"], "createHall");
    assert_eq!(entry["subject"], hall["id"]);
    assert_eq!(entry["cinemaId"], global_id("Cinema", h.cinema.id));
}

#[tokio::test]
async fn every_bad_hall_is_refused_with_what_is_wrong_and_nothing_is_written() {
    let app = TestApp::spawn_configured(Limits::default(), |state| {
        state.with_catalogue_rules(CatalogueRules {
            max_hall_seats: 30,
            ..CatalogueRules::default()
        })
    })
    .await;
    let h = halls_on(app).await;
    let mut duplicate = layout(&["SS", "SS"]);
    duplicate["rows"][1]["label"] = json!("A");
    let mut lower = layout(&["SS"]);
    lower["rows"][0]["label"] = json!("a");
    let cases = [
        (json!({ "name": " " }), "name must not be empty"),
        (json!({ "format": "imax" }), "capital letters or digits"),
        (json!({ "layout": duplicate }), "row `A` appears twice"),
        (
            json!({ "layout": lower }),
            "row label `a` must be 1 to 3 capital letters",
        ),
        (json!({ "layout": { "rows": [] } }), "at least one row"),
        (json!({ "layout": layout(&["____"]) }), "at least one seat"),
        (
            json!({ "layout": layout(&["CCC_S"]) }),
            "couple seats come in pairs",
        ),
        (
            json!({ "layout": layout(&["SSSSSSSSSS", "SSSSSSSSSS", "SSSSSSSSSS", "S"]) }),
            "a hall has 31 seats; at most 30",
        ),
        (
            json!({ "layout": layout(&[&"S".repeat(61)]) }),
            "row `A` has 61 positions; at most 60",
        ),
        (
            json!({ "cinemaId": global_id("Hall", h.hall.id) }),
            "is the id of a Hall, not of a Cinema",
        ),
    ];
    for (change, message) in cases {
        let mut input = hall_input(&h.cinema);
        for (field, value) in change.as_object().unwrap() {
            input[field] = value.clone();
        }
        let refused = h
            .app
            .graphql_as(&h.chain, CREATE_HALL, json!({ "input": input }))
            .await;
        assert_eq!(refused.error_code(), "BAD_USER_INPUT", "{change}");
        assert!(
            refused.error_message().contains(message),
            "{change}: {}",
            refused.error_message()
        );
    }
    assert_eq!(count(&h.app, "theaters").await, 1);
    // The same rules when the layout changes.
    let update = json!({ "input": { "hallId": global_id("Hall", h.hall.id),
        "layout": layout(&["SC"]) } });
    let refused = h.app.graphql_as(&h.chain, UPDATE_HALL, update).await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert!(refused.error_message().contains("ending at A2"));
    let nothing = json!({ "input": { "hallId": global_id("Hall", h.hall.id) } });
    let refused = h.app.graphql_as(&h.chain, UPDATE_HALL, nothing).await;
    assert!(refused.error_message().contains("nothing to change"));
    let missing = json!({ "input": { "hallId": global_id("Hall", [5; 12]), "name": "x" } });
    let refused = h.app.graphql_as(&h.platform, UPDATE_HALL, missing).await;
    assert_eq!(refused.error_code(), "NOT_FOUND");
}

#[tokio::test]
async fn only_an_operator_of_the_cinema_may_add_or_change_its_halls() {
    let h = halls_on(TestApp::spawn().await).await;
    let other = h.app.operator_key("cgv", Some(&[])).await;
    let create = json!({ "input": hall_input(&h.cinema) });
    let rename = json!({ "input": { "hallId": global_id("Hall", h.hall.id), "name": "被改名",
        "layout": layout(&["S"]) } });
    for (caller, code) in [(&other, "FORBIDDEN"), (&h.channel, "FORBIDDEN")] {
        let refused = h.app.graphql_as(caller, CREATE_HALL, create.clone()).await;
        assert_eq!(refused.error_code(), code);
        let refused = h.app.graphql_as(caller, UPDATE_HALL, rename.clone()).await;
        assert_eq!(refused.error_code(), code);
    }
    assert!(h
        .app
        .graphql_as(&other, UPDATE_HALL, rename.clone())
        .await
        .error_message()
        .contains("may not write cinema"));
    assert_eq!(
        h.app
            .graphql(UPDATE_HALL, rename.clone())
            .await
            .error_code(),
        "UNAUTHENTICATED"
    );
    assert_eq!(
        h.app.graphql(CREATE_HALL, create).await.error_code(),
        "UNAUTHENTICATED"
    );
    let read = h
        .app
        .graphql(HALL, json!({ "id": global_id("Hall", h.hall.id) }))
        .await;
    assert_eq!(read.data()["node"]["name"], "1号厅");
    assert_eq!(read.data()["node"]["capacity"], 8);
    assert_eq!(count(&h.app, "theaters").await, 1);
    assert_eq!(count(&h.app, "audit_log").await, 0);
}

#[tokio::test]
async fn a_layout_changes_only_while_the_hall_has_no_future_showtime() {
    let mut h = halls_on(TestApp::spawn().await).await;
    let past = h
        .catalogue
        .showtime(&h.cinema, &h.hall, &h.movie, -5, &[("maoyan", 4000)]);
    let cancelled = h
        .catalogue
        .showtime(&h.cinema, &h.hall, &h.movie, 30, &[("maoyan", 4000)]);
    h.catalogue.0.showtimes.last_mut().unwrap().status = ShowtimeStatus::Cancelled;
    let soon = h
        .catalogue
        .showtime(&h.cinema, &h.hall, &h.movie, 3, &[("maoyan", 4000)]);
    let later = h
        .catalogue
        .showtime(&h.cinema, &h.hall, &h.movie, 27, &[("maoyan", 4000)]);
    std::mem::take(&mut h.catalogue).insert(&h.app).await;
    let hall_id = global_id("Hall", h.hall.id);
    let change = json!({ "input": { "hallId": hall_id, "layout": layout(&["SSS_SSS"]) } });
    let refused = h
        .app
        .graphql_as(&h.chain, UPDATE_HALL, change.clone())
        .await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    let message = refused.error_message();
    assert!(message.contains("has future showtimes"), "{message}");
    let (soon, later) = (
        global_id("Showtime", soon.id),
        global_id("Showtime", later.id),
    );
    assert!(message.contains(&format!("{soon}, {later}")), "{message}");
    assert!(
        !message.contains(&global_id("Showtime", past.id)),
        "{message}"
    );
    assert!(
        !message.contains(&global_id("Showtime", cancelled.id)),
        "{message}"
    );
    let read = h.app.graphql(HALL, json!({ "id": hall_id })).await;
    assert_eq!(read.data()["node"]["capacity"], 8, "unchanged");

    // A name needs no such check.
    let renamed = h
        .app
        .graphql_as(
            &h.chain,
            UPDATE_HALL,
            json!({ "input": { "hallId": hall_id, "name": "2号厅", "format": "3D" } }),
        )
        .await;
    assert_eq!(renamed.data()["updateHall"]["name"], "2号厅");
    assert_eq!(renamed.data()["updateHall"]["format"], "3D");

    // Once only past and cancelled showtimes are left, the layout changes.
    raw(&h.app, "showtimes")
        .await
        .delete_many(bson::doc! { "_id": { "$in": [
            bson::oid::ObjectId::from_bytes(boxoffice::domain::global_id::showtime_id(&soon).unwrap().0),
            bson::oid::ObjectId::from_bytes(boxoffice::domain::global_id::showtime_id(&later).unwrap().0),
        ] } })
        .await
        .unwrap();
    let changed = h.app.graphql_as(&h.chain, UPDATE_HALL, change).await;
    let hall = &changed.data()["updateHall"];
    assert_eq!(hall["capacity"], 6);
    assert_eq!(hall["layout"]["rows"][0]["seats"][3]["label"], "A5");
    let stored = raw(&h.app, "theaters")
        .await
        .find_one(bson::doc! {})
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.get_i64("scheduleVersion").unwrap(), 1);
    let audit = h.app.graphql_as(&h.platform, AUDIT, json!({})).await;
    let entry = &audit.data()["auditLog"]["edges"][0]["node"];
    assert_eq!(entry["operation"], "updateHall");
    let before: Value = serde_json::from_str(entry["before"].as_str().unwrap()).unwrap();
    assert_eq!(before["capacity"], 8);
}

#[tokio::test]
async fn two_layout_changes_racing_on_two_gateways_each_take_one_schedule_version() {
    let h = halls_on(TestApp::spawn().await).await;
    let other = h.app.another_gateway().await;
    let hall_id = global_id("Hall", h.hall.id);
    let layouts = [layout(&["SSSSS"]), layout(&["VVV", "VVV", "VVV"])];
    for round in 0..5 {
        let (a, b) = tokio::join!(
            h.app.graphql_as(
                &h.chain,
                UPDATE_HALL,
                json!({ "input": { "hallId": hall_id, "layout": layouts[0] } }),
            ),
            other.graphql_as(
                &h.chain,
                UPDATE_HALL,
                json!({ "input": { "hallId": hall_id, "layout": layouts[1] } }),
            ),
        );
        assert_eq!(a.data()["updateHall"]["id"], hall_id, "{round}");
        assert_eq!(b.data()["updateHall"]["id"], hall_id, "{round}");
        let stored = raw(&h.app, "theaters")
            .await
            .find_one(bson::doc! {})
            .await
            .unwrap()
            .unwrap();
        // Both wrote (one of them after reading again): two versions a round, and the layout
        // is one of the two whole, with its own capacity.
        assert_eq!(stored.get_i64("scheduleVersion").unwrap(), 2 * (round + 1));
        let capacity = stored.get_i32("capacity").unwrap();
        let rows = stored
            .get_document("layout")
            .unwrap()
            .get_array("rows")
            .unwrap();
        assert!(
            (capacity == 5 && rows.len() == 1) || (capacity == 9 && rows.len() == 3),
            "{stored}"
        );
    }
}
