//! MongoDB round trips per request depend on the depth of the query, never on list length:
//! extended-reference fields cost nothing, other fields of referenced objects cost one batched
//! `find` per collection.

use boxoffice::store::SentCommand;
use serde_json::json;

use crate::fixtures::Catalogue;
use crate::helpers::{nodes, TestApp};

/// `n` showtimes spread over `n` cinemas, `n` halls and `n` movies, so every reference differs.
async fn app_with_showtimes(n: usize) -> TestApp {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    for i in 0..n {
        let cinema = catalogue.cinema(&format!("影城{i}"), "上海", 31.2, 121.4);
        let hall = catalogue.hall(&cinema, "1号厅", &["SSSS", "SS_SS"]);
        let movie = catalogue.movie(&format!("电影{i}"), &["剧情"]);
        catalogue.showtime(&cinema, &hall, &movie, 1 + i as i64, &[("maoyan", 4000)]);
    }
    catalogue.insert(&app).await;
    app
}

/// Runs `query` and returns the commands it sent.
async fn commands_of(app: &TestApp, query: &str) -> Vec<SentCommand> {
    app.store.commands().start();
    let response = app.graphql(query, json!({})).await;
    let commands = app.store.commands().take();
    let showtimes = nodes(&response.data()["showtimes"]);
    assert!(!showtimes.is_empty());
    commands
}

fn names(commands: &[SentCommand]) -> Vec<String> {
    let mut names: Vec<String> = commands
        .iter()
        .map(|c| format!("{} {}", c.name, c.collection.as_deref().unwrap_or("")))
        .collect();
    names.sort();
    names
}

const REFERENCES_ONLY: &str = "{ showtimes(first: 50) { edges { node {
    id startsAt price(channel: \"maoyan\") { amount }
    cinema { name city } movie { title runtimeMinutes } hall { name format } } } } }";

const WITH_LOADED_FIELDS: &str = "{ showtimes(first: 50) { edges { node {
    id cinema { name location { latitude longitude } }
    movie { title details { plot } }
    seatMap { counts { available } } } } } }";

#[tokio::test]
async fn extended_reference_fields_cost_one_query_for_a_page_of_50() {
    let app = app_with_showtimes(50).await;
    let commands = commands_of(&app, REFERENCES_ONLY).await;
    assert_eq!(names(&commands), ["find showtimes"]);
}

#[tokio::test]
async fn referenced_fields_cost_one_query_per_collection_whatever_the_page_size() {
    let expected = [
        "find cinemas",
        "find movie_details",
        "find seat_inventory",
        "find showtimes",
    ];
    for n in [5, 50] {
        let app = app_with_showtimes(n).await;
        let commands = commands_of(&app, WITH_LOADED_FIELDS).await;
        assert_eq!(names(&commands), expected, "with {n} showtimes");
    }
}
