//! Fields come back in the order the query asks for them, whichever resolves first.

use serde_json::json;

use crate::fixtures::Catalogue;
use crate::helpers::TestApp;

/// Positions of `keys` in `text`, as `"key":` first appears.
fn positions(text: &str, keys: &[&str]) -> Vec<usize> {
    keys.iter()
        .map(|key| {
            text.find(&format!("\"{key}\":"))
                .unwrap_or_else(|| panic!("{key} missing in {text}"))
        })
        .collect()
}

#[tokio::test]
async fn fields_follow_the_query_not_the_order_their_resolvers_finish() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    for i in 0..3 {
        let cinema = catalogue.cinema(&format!("影城{i}"), "上海", 31.2, 121.4);
        let hall = catalogue.hall(&cinema, "1号厅", &["SSSS"]);
        let movie = catalogue.movie(&format!("电影{i}"), &["剧情"]);
        catalogue.showtime(&cinema, &hall, &movie, 1 + i as i64, &[("maoyan", 4000)]);
    }
    catalogue.insert(&app).await;
    // `seatMap` and `cinema` wait for a loader's round trip; `id` and `startsAt` do not, and
    // would come first if fields were written as they finish. A fragment's fields stand where
    // it is spread, an alias where it is written.
    let query = "{ showtimes(first: 3) { edges { node {
        seatMap { counts { available capacity } } ...Hall id place: cinema { name city }
        ... on Showtime { startsAt } } } } }
        fragment Hall on Showtime { hall { name } }";
    for _ in 0..5 {
        let text = app
            .client
            .post(app.url("/graphql"))
            .json(&json!({ "query": query }))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let nodes: Vec<&str> = text.split("{\"node\":").skip(1).collect();
        assert_eq!(nodes.len(), 3, "{text}");
        for node in nodes {
            let found = positions(node, &["seatMap", "hall", "id", "place", "startsAt"]);
            assert!(found.is_sorted(), "out of order: {node}");
            let counts = positions(node, &["available", "capacity"]);
            assert!(counts.is_sorted(), "out of order: {node}");
        }
    }
}
