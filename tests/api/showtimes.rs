//! Showtimes: filters, channel prices, seat maps, and the indexes that serve them.

use chrono::{Duration, Utc};
use serde_json::{json, Value};

use boxoffice::catalogue::ShowtimeFilter;
use boxoffice::domain::ids::{CinemaId, MovieId};
use boxoffice::domain::time_range::TimeRange;

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::{field_of, TestApp};

const SHOWTIMES: &str = r#"
query ($filter: ShowtimesFilter, $first: Int, $after: String) {
  showtimes(filter: $filter, first: $first, after: $after) {
    edges { node { id startsAt } }
    pageInfo { hasNextPage endCursor }
  }
}"#;

struct World {
    app: TestApp,
    ids: Vec<String>,
    shanghai: String,
    earth: String,
}

/// Four showtimes: 0 and 1 in Shanghai (1 only on maoyan), 2 in Beijing, 3 in Shanghai tomorrow.
async fn world() -> World {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let shanghai = catalogue.cinema("上海影城", "上海", 31.2, 121.4);
    let beijing = catalogue.cinema("北京影城", "北京", 39.9, 116.4);
    let sh_hall = catalogue.hall(&shanghai, "1号厅", &["SSSS"]);
    let bj_hall = catalogue.hall(&beijing, "1号厅", &["SSSS"]);
    let earth = catalogue.movie("流浪地球3", &["科幻"]);
    let other = catalogue.movie("别的电影", &["剧情"]);
    let both = [("maoyan", 4000), ("wechat", 3800)];
    let showtimes = [
        catalogue.showtime(&shanghai, &sh_hall, &earth, 1, &both),
        catalogue.showtime(&shanghai, &sh_hall, &other, 4, &[("maoyan", 4500)]),
        catalogue.showtime(&beijing, &bj_hall, &earth, 2, &both),
        catalogue.showtime(&shanghai, &sh_hall, &earth, 26, &both),
    ];
    catalogue.insert(&app).await;
    World {
        app,
        ids: showtimes
            .iter()
            .map(|s| global_id("Showtime", s.id))
            .collect(),
        shanghai: global_id("Cinema", shanghai.id),
        earth: global_id("Movie", earth.id),
    }
}

impl World {
    async fn ids_for(&self, filter: Value) -> Vec<String> {
        let response = self
            .app
            .graphql(SHOWTIMES, json!({ "filter": filter }))
            .await;
        field_of(&response.data()["showtimes"], "id")
    }

    fn pick(&self, indexes: &[usize]) -> Vec<String> {
        indexes.iter().map(|&i| self.ids[i].clone()).collect()
    }
}

#[tokio::test]
async fn showtimes_filter_by_cinema_movie_city_channel_and_time() {
    let w = world().await;
    assert_eq!(
        w.ids_for(json!({})).await,
        w.pick(&[0, 2, 1, 3]),
        "start order"
    );
    assert_eq!(
        w.ids_for(json!({ "cinemaId": w.shanghai })).await,
        w.pick(&[0, 1, 3])
    );
    assert_eq!(
        w.ids_for(json!({ "movieId": w.earth })).await,
        w.pick(&[0, 2, 3])
    );
    assert_eq!(w.ids_for(json!({ "city": "北京" })).await, w.pick(&[2]));
    assert_eq!(
        w.ids_for(json!({ "channel": "wechat" })).await,
        w.pick(&[0, 2, 3])
    );
    assert_eq!(
        w.ids_for(json!({ "movieId": w.earth, "city": "上海" }))
            .await,
        w.pick(&[0, 3])
    );
    let tomorrow = (Utc::now() + Duration::hours(12)).to_rfc3339();
    assert_eq!(
        w.ids_for(json!({ "startsBefore": tomorrow })).await,
        w.pick(&[0, 2, 1])
    );
    assert_eq!(
        w.ids_for(json!({ "startsFrom": tomorrow })).await,
        w.pick(&[3])
    );
    assert!(w.ids_for(json!({ "channel": "nobody" })).await.is_empty());
}

#[tokio::test]
async fn showtime_pages_follow_start_order_without_gaps() {
    let w = world().await;
    let mut seen = Vec::new();
    let mut after = Value::Null;
    loop {
        let response = w
            .app
            .graphql(SHOWTIMES, json!({ "first": 1, "after": after }))
            .await;
        let connection = &response.data()["showtimes"];
        seen.extend(field_of(connection, "id"));
        if !connection["pageInfo"]["hasNextPage"].as_bool().unwrap() {
            break;
        }
        after = connection["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(seen, w.pick(&[0, 2, 1, 3]));
}

#[tokio::test]
async fn a_showtime_has_a_price_per_channel() {
    let w = world().await;
    let query = r#"query ($id: ID!) { showtime(id: $id) {
        maoyan: price(channel: "maoyan") { amount currency formatted }
        missing: price(channel: "taopiaopiao") { amount }
        prices { channel price { amount } }
        cinema { name city } movie { title runtimeMinutes } hall { name format }
    } }"#;
    let response = w.app.graphql(query, json!({ "id": w.ids[0] })).await;
    let showtime = &response.data()["showtime"];
    assert_eq!(
        showtime["maoyan"],
        json!({ "amount": 4000, "currency": "CNY", "formatted": "¥40.00" })
    );
    assert_eq!(showtime["missing"], Value::Null);
    assert_eq!(
        showtime["prices"],
        json!([
            { "channel": "maoyan", "price": { "amount": 4000 } },
            { "channel": "wechat", "price": { "amount": 3800 } },
        ])
    );
    assert_eq!(
        showtime["cinema"],
        json!({ "name": "上海影城", "city": "上海" })
    );
    assert_eq!(
        showtime["movie"],
        json!({ "title": "流浪地球3", "runtimeMinutes": 120 })
    );
    assert_eq!(
        showtime["hall"],
        json!({ "name": "1号厅", "format": "IMAX" })
    );
}

#[tokio::test]
async fn the_seat_map_shows_every_seat_with_its_state_and_the_counts() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let cinema = catalogue.cinema("影城", "深圳", 22.54, 114.06);
    let hall = catalogue.hall(&cinema, "VIP厅", &["SS_SS", "W___V", "CC"]);
    let movie = catalogue.movie("电影", &["剧情"]);
    let showtime = catalogue.showtime(&cinema, &hall, &movie, 2, &[("maoyan", 4000)]);
    catalogue.insert(&app).await;

    let query = r#"query ($id: ID!) { showtime(id: $id) { seatMap {
        width counts { available held sold blocked capacity }
        rows { label seats { label number column kind state } }
    } } }"#;
    let response = app
        .graphql(query, json!({ "id": global_id("Showtime", showtime.id) }))
        .await;
    let map = &response.data()["showtime"]["seatMap"];
    assert_eq!(map["width"], 5);
    assert_eq!(
        map["counts"],
        json!({ "available": 8, "held": 0, "sold": 0, "blocked": 0, "capacity": 8 })
    );
    let labels: Vec<Vec<&str>> = map["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|seat| seat["label"].as_str().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(
        labels,
        vec![
            vec!["A1", "A2", "A4", "A5"],
            vec!["B1", "B5"],
            vec!["C1", "C2"]
        ]
    );
    assert_eq!(
        map["rows"][1]["seats"][1],
        json!({ "label": "B5", "number": 5, "column": 4, "kind": "VIP", "state": "AVAILABLE" })
    );
    assert_eq!(map["rows"][2]["seats"][0]["kind"], "COUPLE");
}

/// The names of the indexes a winning plan scans.
pub(crate) fn scanned_indexes(plan: &bson::Document, found: &mut Vec<String>) {
    if plan.get_str("stage") == Ok("IXSCAN") {
        found.push(plan.get_str("indexName").unwrap_or("?").to_owned());
    }
    for key in ["inputStage", "queryPlan"] {
        if let Ok(child) = plan.get_document(key) {
            scanned_indexes(child, found);
        }
    }
    if let Ok(children) = plan.get_array("inputStages") {
        for child in children.iter().filter_map(|c| c.as_document()) {
            scanned_indexes(child, found);
        }
    }
}

#[tokio::test]
async fn every_showtime_filter_is_served_by_an_index() {
    let w = world().await;
    let some_cinema = CinemaId([1; 12]);
    let some_movie = MovieId([2; 12]);
    let upcoming = TimeRange::new(Some(Utc::now()), None).unwrap();
    let cases = [
        (
            "channel",
            ShowtimeFilter {
                channel: Some("maoyan".into()),
                ..Default::default()
            },
            "channel_starts",
        ),
        (
            "cinema",
            ShowtimeFilter {
                cinema: Some(some_cinema),
                starts: upcoming,
                ..Default::default()
            },
            "cinema_starts",
        ),
        (
            "movie and city",
            ShowtimeFilter {
                movie: Some(some_movie),
                city: Some("上海".into()),
                ..Default::default()
            },
            "movie_city_starts",
        ),
        (
            "city",
            ShowtimeFilter {
                city: Some("上海".into()),
                starts: upcoming,
                ..Default::default()
            },
            "city_starts",
        ),
        (
            "time",
            ShowtimeFilter {
                starts: upcoming,
                ..Default::default()
            },
            "starts",
        ),
    ];
    for (what, filter, index) in cases {
        let plan = w.app.store.explain_showtimes(&filter).await.unwrap();
        let mut found = Vec::new();
        scanned_indexes(&plan, &mut found);
        assert!(
            found.contains(&index.to_owned()),
            "{what}: expected {index}, plan {plan}"
        );
    }
}

#[tokio::test]
async fn channels_are_listed_by_code() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    catalogue.channel("wechat", "微信电影票");
    catalogue.channel("maoyan", "猫眼电影");
    catalogue.channel("boxoffice", "影院售票处");
    catalogue.insert(&app).await;
    let query = "query ($after: String) { channels(first: 2, after: $after) {
        edges { node { code name } } pageInfo { hasNextPage endCursor } } }";
    let first = app.graphql(query, json!({})).await;
    let first = &first.data()["channels"];
    assert_eq!(field_of(first, "code"), ["boxoffice", "maoyan"]);
    assert_eq!(first["edges"][1]["node"]["name"], "猫眼电影");
    let rest = app
        .graphql(query, json!({ "after": first["pageInfo"]["endCursor"] }))
        .await;
    let rest = &rest.data()["channels"];
    assert_eq!(field_of(rest, "code"), ["wechat"]);
    assert_eq!(rest["pageInfo"]["hasNextPage"], false);
}

/// The bytes of the `find showtimes` reply of a page of showtimes whose nodes ask for
/// `fields` (then `fragments`), and the page.
async fn listed(app: &TestApp, fields: &str, fragments: &str) -> (usize, Value) {
    let query = format!("{{ showtimes(first: 10) {{ nodes {{ id {fields} }} }} }} {fragments}");
    let (response, bytes) = app.graphql_reading("showtimes", &query, json!({})).await;
    (bytes, response.data()["showtimes"]["nodes"].clone())
}

#[tokio::test]
async fn a_page_reads_the_prices_only_when_a_price_is_asked() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let cinema = catalogue.cinema("影城", "上海", 31.2, 121.4);
    let hall = catalogue.hall(&cinema, "1号厅", &["SSSS"]);
    let movie = catalogue.movie("电影", &["剧情"]);
    let channels: Vec<(String, i64)> = (0..8).map(|i| (format!("channel{i}"), 4000 + i)).collect();
    let prices: Vec<(&str, i64)> = channels.iter().map(|(c, a)| (c.as_str(), *a)).collect();
    for hours in 1..=10 {
        catalogue.showtime(&cinema, &hall, &movie, hours, &prices);
    }
    catalogue.insert(&app).await;

    let (bare, _) = listed(&app, "startsAt", "").await;
    let (priced, nodes) = listed(&app, "price(channel: \"channel3\") { amount }", "").await;
    let (in_fragment, fragment_nodes) = listed(
        &app,
        "...P",
        "fragment P on Showtime { ...on Showtime { prices { channel price { amount } } } }",
    )
    .await;
    println!("showtimes reply: without prices {bare} B, with {priced} B, {in_fragment} B");
    // Each showtime's 8 prices are over 30 bytes each in BSON; nothing else differs.
    assert!(priced > bare + 10 * 8 * 30, "{priced} vs {bare}");
    assert_eq!(
        in_fragment, priced,
        "a fragment's `prices` reads them as well"
    );
    for node in nodes.as_array().unwrap() {
        assert_eq!(node["price"]["amount"], 4003, "{node}");
    }
    for node in fragment_nodes.as_array().unwrap() {
        assert_eq!(node["prices"].as_array().unwrap().len(), 8, "{node}");
    }
}
