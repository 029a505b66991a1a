//! Cinemas: by city and name, nearest a point, halls and showtimes, pagination.

use std::collections::HashSet;

use serde_json::{json, Value};

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::{field_of, nodes, TestApp};

const CINEMAS_IN_CITY: &str = r#"
query ($city: String, $name: String, $first: Int, $after: String) {
  cinemas(city: $city, nameContains: $name, first: $first, after: $after) {
    edges { cursor node { id name city } }
    pageInfo { hasNextPage endCursor }
  }
}"#;

/// Follows `endCursor` until the last page; returns every name seen, page by page.
async fn all_pages(app: &TestApp, variables: Value) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut after = Value::Null;
    loop {
        let mut vars = variables.clone();
        vars["after"] = after;
        let response = app.graphql(CINEMAS_IN_CITY, vars).await;
        let connection = &response.data()["cinemas"];
        pages.push(field_of(connection, "name"));
        if !connection["pageInfo"]["hasNextPage"].as_bool().unwrap() {
            return pages;
        }
        after = connection["pageInfo"]["endCursor"].clone();
    }
}

#[tokio::test]
async fn cinemas_of_a_city_come_in_name_order_across_pages() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    for name in [
        "G影城", "A影城", "E影城", "C影城", "B影城", "F影城", "D影城",
    ] {
        catalogue.cinema(name, "上海", 31.23, 121.47);
    }
    catalogue.cinema("北京影城", "北京", 39.9, 116.4);
    catalogue.insert(&app).await;

    let pages = all_pages(&app, json!({ "city": "上海", "first": 3 })).await;
    assert_eq!(
        pages.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![3, 3, 1]
    );
    let names: Vec<String> = pages.concat();
    assert_eq!(
        names,
        ["A影城", "B影城", "C影城", "D影城", "E影城", "F影城", "G影城"]
    );
}

#[tokio::test]
async fn pages_neither_repeat_nor_skip_when_cinemas_are_added_between_them() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    for name in ["B", "D", "F", "H"] {
        catalogue.cinema(name, "杭州", 30.27, 120.15);
    }
    catalogue.insert(&app).await;

    let first = app
        .graphql(CINEMAS_IN_CITY, json!({ "city": "杭州", "first": 2 }))
        .await;
    let first = &first.data()["cinemas"];
    assert_eq!(field_of(first, "name"), ["B", "D"]);

    // One cinema sorts before the cursor, one between the pages' items, one after.
    let mut more = Catalogue::default();
    for name in ["A", "E", "Z"] {
        more.cinema(name, "杭州", 30.27, 120.15);
    }
    more.insert(&app).await;

    let second = app
        .graphql(
            CINEMAS_IN_CITY,
            json!({ "city": "杭州", "first": 10, "after": first["pageInfo"]["endCursor"] }),
        )
        .await;
    assert_eq!(
        field_of(&second.data()["cinemas"], "name"),
        ["E", "F", "H", "Z"]
    );
}

#[tokio::test]
async fn name_search_matches_any_case_and_escapes_regex_characters() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    catalogue.cinema("CGV影城(浦东店)", "上海", 31.2, 121.5);
    catalogue.cinema("万达影城(CBD店)", "北京", 39.9, 116.4);
    catalogue.cinema("万达影城(徐汇店)", "上海", 31.18, 121.43);
    catalogue.cinema("A.B影城", "上海", 31.18, 121.43);
    catalogue.insert(&app).await;

    let by_name = app
        .graphql(CINEMAS_IN_CITY, json!({ "name": "万达" }))
        .await;
    assert_eq!(
        field_of(&by_name.data()["cinemas"], "name"),
        ["万达影城(徐汇店)", "万达影城(CBD店)"],
        "all cities, in city then name order (上海 sorts before 北京 by code point)"
    );
    let in_city = app
        .graphql(CINEMAS_IN_CITY, json!({ "name": "万达", "city": "上海" }))
        .await;
    assert_eq!(
        field_of(&in_city.data()["cinemas"], "name"),
        ["万达影城(徐汇店)"]
    );
    let any_case = app.graphql(CINEMAS_IN_CITY, json!({ "name": "cgv" })).await;
    assert_eq!(
        field_of(&any_case.data()["cinemas"], "name"),
        ["CGV影城(浦东店)"]
    );
    let dot = app.graphql(CINEMAS_IN_CITY, json!({ "name": "." })).await;
    assert_eq!(
        field_of(&dot.data()["cinemas"], "name"),
        ["A.B影城"],
        "'.' is not a wildcard"
    );
}

const NEAR: &str = r#"
query ($lat: Float!, $lng: Float!, $radius: Float!, $first: Int, $after: String) {
  cinemasNear(latitude: $lat, longitude: $lng, radiusMeters: $radius, first: $first, after: $after) {
    edges { cursor distanceMeters node { name location { latitude longitude } } }
    pageInfo { hasNextPage endCursor }
  }
}"#;

/// Metres per degree of latitude.
const METERS_PER_DEGREE: f64 = 111_320.0;

#[tokio::test]
async fn nearest_cinemas_come_nearest_first_with_their_distances() {
    let app = TestApp::spawn().await;
    let (lat, lng) = (31.2304, 121.4737);
    let mut catalogue = Catalogue::default();
    // Due north of the point at known distances, inserted out of order.
    for (name, meters) in [
        ("5km", 5_000.0),
        ("500m", 500.0),
        ("30km", 30_000.0),
        ("2km", 2_000.0),
    ] {
        catalogue.cinema(name, "上海", lat + meters / METERS_PER_DEGREE, lng);
    }
    catalogue.insert(&app).await;

    let response = app
        .graphql(NEAR, json!({ "lat": lat, "lng": lng, "radius": 10_000.0 }))
        .await;
    let edges = response.data()["cinemasNear"]["edges"]
        .as_array()
        .unwrap()
        .clone();
    let names: Vec<&str> = edges
        .iter()
        .map(|e| e["node"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["500m", "2km", "5km"],
        "the 30 km cinema is outside the radius"
    );
    for (edge, expected) in edges.iter().zip([500.0, 2_000.0, 5_000.0]) {
        let distance = edge["distanceMeters"].as_f64().unwrap();
        assert!(
            (distance - expected).abs() < expected * 0.01,
            "distance {distance} should be about {expected}"
        );
    }

    // One per page: the same order, no repeats.
    let mut seen = Vec::new();
    let mut after = Value::Null;
    loop {
        let page = app
            .graphql(
                NEAR,
                json!({ "lat": lat, "lng": lng, "radius": 10_000.0, "first": 1, "after": after }),
            )
            .await;
        let connection = &page.data()["cinemasNear"];
        seen.extend(
            nodes(connection)
                .iter()
                .map(|n| n["name"].as_str().unwrap().to_owned()),
        );
        if !connection["pageInfo"]["hasNextPage"].as_bool().unwrap() {
            break;
        }
        after = connection["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(seen, ["500m", "2km", "5km"]);
}

#[tokio::test]
async fn cinemas_at_the_same_distance_page_without_repeats() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    for i in 0..5 {
        catalogue.cinema(&format!("同址{i}"), "成都", 30.66, 104.06);
    }
    catalogue.insert(&app).await;
    let mut seen = HashSet::new();
    let mut after = Value::Null;
    for _ in 0..5 {
        let page = app
            .graphql(
                NEAR,
                json!({ "lat": 30.65, "lng": 104.06, "radius": 5_000.0, "first": 2, "after": after }),
            )
            .await;
        let connection = &page.data()["cinemasNear"];
        for name in field_of(connection, "name") {
            assert!(seen.insert(name.clone()), "{name} came twice");
        }
        if !connection["pageInfo"]["hasNextPage"].as_bool().unwrap() {
            break;
        }
        after = connection["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(seen.len(), 5);
}

#[tokio::test]
async fn more_ties_than_one_read_holds_page_in_id_order_with_a_second_read_only_at_the_edge() {
    // Pages of 7 cost more than the anonymous burst allows in a row.
    let limits = boxoffice::config::Limits {
        anonymous_burst: 100_000,
        ..Default::default()
    };
    let app = TestApp::spawn_with(limits).await;
    let (lat, lng) = (30.65, 104.06);
    let mut catalogue = Catalogue::default();
    // 40 cinemas at one place 1 km north, between one at 500 m and one at 3 km; their ids
    // rise in the order they are made.
    let mut ids = Vec::new();
    for i in 0..40 {
        let cinema = catalogue.cinema(
            &format!("同址{i}"),
            "成都",
            lat + 1_000.0 / METERS_PER_DEGREE,
            lng,
        );
        ids.push((cinema.id.bytes(), global_id("Cinema", cinema.id)));
    }
    catalogue.cinema("近", "成都", lat + 500.0 / METERS_PER_DEGREE, lng);
    catalogue.cinema("远", "成都", lat + 3_000.0 / METERS_PER_DEGREE, lng);
    catalogue.insert(&app).await;
    ids.sort();
    let ids: Vec<String> = ids.into_iter().map(|(_, id)| id).collect();
    let near_with_ids = NEAR.replace("node { name", "node { id name");
    let (mut names, mut tied, mut finds) = (Vec::new(), Vec::new(), Vec::new());
    let mut after = Value::Null;
    loop {
        app.store.commands().start();
        let page = app
            .graphql(
                &near_with_ids,
                json!({ "lat": lat, "lng": lng, "radius": 5_000.0, "first": 7, "after": after }),
            )
            .await;
        finds.push(app.store.commands().take().len());
        let connection = &page.data()["cinemasNear"];
        eprintln!(
            "PAGE {:?} {}",
            field_of(connection, "name"),
            connection["pageInfo"]
        );
        assert!(finds.len() < 10, "{finds:?}");
        for node in nodes(connection) {
            let name = node["name"].as_str().unwrap().to_owned();
            if name.starts_with("同址") {
                tied.push(node["id"].as_str().unwrap().to_owned());
            }
            names.push(name);
        }
        if !connection["pageInfo"]["hasNextPage"].as_bool().unwrap() {
            break;
        }
        after = connection["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(names.len(), 42, "{names:?}");
    assert_eq!((names[0].as_str(), names[41].as_str()), ("近", "远"));
    assert_eq!(tied, ids, "the ties in id order, each once");
    // A page ending among the ties, with more ties than it reads beyond the page, reads again
    // (four times as many); never more than twice.
    assert!(finds.iter().all(|&n| (1..=2).contains(&n)), "{finds:?}");
    assert!(finds.contains(&2), "{finds:?}");
}

#[tokio::test]
async fn a_cinema_shows_its_halls_with_layouts_and_its_showtimes_in_a_time_range() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let cinema = catalogue.cinema("博纳影城", "北京", 39.9, 116.4);
    let other = catalogue.cinema("别家影城", "北京", 39.9, 116.4);
    let hall = catalogue.hall(&cinema, "1号厅", &["SS_SS", "WS_SV", "CC___"]);
    catalogue.hall(&cinema, "2号厅", &["SSSS"]);
    let other_hall = catalogue.hall(&other, "1号厅", &["SSSS"]);
    let movie = catalogue.movie("流浪地球3", &["科幻"]);
    let soon = catalogue.showtime(&cinema, &hall, &movie, 2, &[("maoyan", 4000)]);
    let later = catalogue.showtime(&cinema, &hall, &movie, 30, &[("maoyan", 4000)]);
    catalogue.showtime(&other, &other_hall, &movie, 2, &[("maoyan", 4000)]);
    catalogue.insert(&app).await;

    let query = r#"query ($id: ID!, $before: DateTime) {
      cinema(id: $id) {
        name
        halls(first: 8) { edges { node { name capacity layout { width rows { label seats { label number column kind } } } } } }
        all: showtimes { edges { node { id } } }
        soon: showtimes(startsBefore: $before) { edges { node { id } } }
      }
    }"#;
    let before = (chrono::Utc::now() + chrono::Duration::hours(24)).to_rfc3339();
    let response = app
        .graphql(
            query,
            json!({ "id": global_id("Cinema", cinema.id), "before": before }),
        )
        .await;
    let data = &response.data()["cinema"];
    assert_eq!(data["name"], "博纳影城");
    let halls = nodes(&data["halls"]);
    assert_eq!(field_of(&data["halls"], "name"), ["1号厅", "2号厅"]);
    assert_eq!(halls[0]["capacity"], 10);
    assert_eq!(halls[0]["layout"]["width"], 5);
    let row_b = &halls[0]["layout"]["rows"][1];
    assert_eq!(row_b["label"], "B");
    assert_eq!(
        row_b["seats"],
        json!([
            { "label": "B1", "number": 1, "column": 0, "kind": "WHEELCHAIR" },
            { "label": "B2", "number": 2, "column": 1, "kind": "STANDARD" },
            { "label": "B4", "number": 4, "column": 3, "kind": "STANDARD" },
            { "label": "B5", "number": 5, "column": 4, "kind": "VIP" },
        ])
    );
    assert_eq!(
        field_of(&data["all"], "id"),
        [
            global_id("Showtime", soon.id),
            global_id("Showtime", later.id)
        ]
    );
    assert_eq!(
        field_of(&data["soon"], "id"),
        [global_id("Showtime", soon.id)]
    );
}

#[tokio::test]
async fn unknown_ids_are_null_and_malformed_ids_are_bad_input() {
    let app = TestApp::spawn().await;
    let query = "query ($id: ID!) { cinema(id: $id) { name } node(id: $id) { id } }";
    let unknown = global_id("Cinema", bson::oid::ObjectId::new());
    let response = app.graphql(query, json!({ "id": unknown })).await;
    assert_eq!(response.data(), &json!({ "cinema": null, "node": null }));

    let response = app
        .graphql("{ cinema(id: \"nope\") { name } }", json!({}))
        .await;
    assert_eq!(response.error_code(), "BAD_USER_INPUT");
    assert!(response
        .error_message()
        .contains("not an id this API issued"));

    let movie_id = global_id("Movie", bson::oid::ObjectId::new());
    let response = app
        .graphql(
            "query ($id: ID!) { cinema(id: $id) { name } }",
            json!({ "id": movie_id }),
        )
        .await;
    assert_eq!(response.error_code(), "BAD_USER_INPUT");
    assert!(response
        .error_message()
        .contains("id of a Movie, not of a Cinema"));
}

#[tokio::test]
async fn node_fetches_every_kind_of_object() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let cinema = catalogue.cinema("大地影院", "广州", 23.13, 113.26);
    let hall = catalogue.hall(&cinema, "3号厅", &["SSS"]);
    let movie = catalogue.movie("长安三万里", &["动画"]);
    let review = catalogue.review(&movie, 5, 9);
    let showtime = catalogue.showtime(&cinema, &hall, &movie, 3, &[("maoyan", 3900)]);
    catalogue.insert(&app).await;

    let query = r#"query ($id: ID!) { node(id: $id) {
        __typename id
        ... on Cinema { name } ... on Hall { name } ... on Movie { title }
        ... on Review { text } ... on Showtime { language } } }"#;
    for (kind, id, field, value) in [
        ("Cinema", cinema.id.0, "name", "大地影院"),
        ("Hall", hall.id.0, "name", "3号厅"),
        ("Movie", movie.id.0, "title", "长安三万里"),
        ("Review", review.id.0, "text", "好看"),
        ("Showtime", showtime.id.0, "language", "国语"),
    ] {
        let global = global_id(kind, id);
        let response = app.graphql(query, json!({ "id": global })).await;
        let node = &response.data()["node"];
        assert_eq!(node["__typename"], kind);
        assert_eq!(node["id"], global.as_str());
        assert_eq!(node[field], value, "{kind}");
    }
}
