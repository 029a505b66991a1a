//! Movies: by genre, by title, now showing in a city; details, recent reviews, all reviews.

use serde_json::{json, Value};

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::{field_of, TestApp};

const MOVIES: &str = r#"
query ($genre: String, $title: String, $city: String, $first: Int, $after: String) {
  movies(genre: $genre, titleContains: $title, showingInCity: $city, first: $first, after: $after) {
    edges { node { title genres } }
    pageInfo { hasNextPage endCursor }
  }
}"#;

async fn titles(app: &TestApp, variables: Value) -> Vec<String> {
    field_of(
        &app.graphql(MOVIES, variables).await.data()["movies"],
        "title",
    )
}

#[tokio::test]
async fn movies_by_genre_title_and_city() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let shanghai = catalogue.cinema("上海影城", "上海", 31.2, 121.4);
    let beijing = catalogue.cinema("北京影城", "北京", 39.9, 116.4);
    let sh_hall = catalogue.hall(&shanghai, "1号厅", &["SSSS"]);
    let bj_hall = catalogue.hall(&beijing, "1号厅", &["SSSS"]);
    let earth = catalogue.movie("流浪地球3", &["科幻", "动作"]);
    let comedy = catalogue.movie("独行月球2", &["科幻", "喜剧"]);
    let drama = catalogue.movie("人生大事", &["剧情"]);
    let gone = catalogue.movie("已下映", &["剧情"]);
    catalogue.showtime(&shanghai, &sh_hall, &earth, 3, &[("maoyan", 4000)]);
    catalogue.showtime(&shanghai, &sh_hall, &drama, 5, &[("maoyan", 4000)]);
    catalogue.showtime(&beijing, &bj_hall, &comedy, 3, &[("maoyan", 4000)]);
    // Already started: not "showing" any more.
    catalogue.showtime(&shanghai, &sh_hall, &gone, -3, &[("maoyan", 4000)]);
    catalogue.insert(&app).await;

    assert_eq!(
        titles(&app, json!({ "genre": "科幻" })).await,
        ["流浪地球3", "独行月球2"]
    );
    assert_eq!(
        titles(&app, json!({ "title": "月球" })).await,
        ["独行月球2"]
    );
    assert_eq!(
        titles(&app, json!({ "city": "上海" })).await,
        ["人生大事", "流浪地球3"]
    );
    assert_eq!(
        titles(&app, json!({ "city": "上海", "genre": "科幻" })).await,
        ["流浪地球3"]
    );
    assert!(titles(&app, json!({ "city": "拉萨" })).await.is_empty());

    let everything = titles(&app, json!({ "first": 2 })).await;
    assert_eq!(everything.len(), 2);
}

#[tokio::test]
async fn details_recent_reviews_and_every_review_newest_first() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let mut movie = catalogue.movie("满江红", &["悬疑"]);
    let reviews: Vec<_> = (0..25)
        .map(|i| catalogue.review(&movie, i * 10, 8))
        .collect();
    // The movie embeds its 10 newest reviews (subset pattern).
    movie.recent_reviews = reviews[..10].to_vec();
    catalogue.0.movies[0] = movie.clone();
    catalogue.insert(&app).await;

    let query = r#"query ($id: ID!, $after: String) {
      movie(id: $id) {
        title
        details { plot cast { name character } externalRatings { source score maxScore } }
        recentReviews { id }
        reviews(first: 20, after: $after) { edges { node { id author createdAt } } pageInfo { hasNextPage endCursor } }
      }
    }"#;
    let id = global_id("Movie", movie.id);
    let first = app.graphql(query, json!({ "id": id })).await;
    let data = &first.data()["movie"];
    assert_eq!(data["details"]["plot"], "满江红的故事。");
    assert_eq!(data["details"]["cast"][0]["character"], "主角");
    assert_eq!(data["details"]["externalRatings"][0]["source"], "豆瓣");
    let expected_recent: Vec<String> = reviews[..10]
        .iter()
        .map(|r| global_id("Review", r.id))
        .collect();
    let recent: Vec<String> = data["recentReviews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(recent, expected_recent);

    let page_one = field_of(&data["reviews"], "id");
    assert!(data["reviews"]["pageInfo"]["hasNextPage"]
        .as_bool()
        .unwrap());
    let second = app
        .graphql(
            query,
            json!({ "id": id, "after": data["reviews"]["pageInfo"]["endCursor"] }),
        )
        .await;
    let second = &second.data()["movie"]["reviews"];
    assert!(!second["pageInfo"]["hasNextPage"].as_bool().unwrap());
    let all: Vec<String> = page_one.into_iter().chain(field_of(second, "id")).collect();
    let expected: Vec<String> = reviews.iter().map(|r| global_id("Review", r.id)).collect();
    assert_eq!(
        all, expected,
        "all 25 reviews, newest first, across two pages"
    );
}

#[tokio::test]
async fn a_movie_without_details_has_null_details() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let movie = catalogue.movie("无详情", &["剧情"]);
    catalogue.0.movie_details.clear();
    catalogue.insert(&app).await;
    let response = app
        .graphql(
            "query ($id: ID!) { movie(id: $id) { title details { plot } } }",
            json!({ "id": global_id("Movie", movie.id) }),
        )
        .await;
    assert_eq!(
        response.data()["movie"],
        json!({ "title": "无详情", "details": null })
    );
}

/// A page asking for its movies' plots reads the plots, not the casts; asking one movie for
/// its plot and another for its cast (or the same movie twice) is still one `find`, of both.
#[tokio::test]
async fn details_read_only_the_fields_asked_for_in_one_find() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let first = catalogue.movie("长的电影", &["剧情"]);
    let second = catalogue.movie("另一部", &["喜剧"]);
    catalogue.insert(&app).await;
    let (first, second) = (global_id("Movie", first.id), global_id("Movie", second.id));

    let read = |query: &'static str| {
        let app = app.clone();
        let variables = json!({ "a": first, "b": second });
        async move {
            let (response, bytes) = app.graphql_reading("movie_details", query, variables).await;
            (response.data().clone(), bytes)
        }
    };
    let (plots, plot_bytes) = read(
        "query ($a: ID!, $b: ID!) { a: node(id: $a) { ... on Movie { details { plot } } }
         b: node(id: $b) { ... on Movie { details { plot } } } }",
    )
    .await;
    assert_eq!(plots["a"]["details"]["plot"], "长的电影的故事。");
    let (mixed, mixed_bytes) = read(
        "query ($a: ID!, $b: ID!) { a: node(id: $a) { ... on Movie { details { plot } } }
         b: node(id: $b) { ... on Movie { details { cast { name character } externalRatings { source } } } } }",
    )
    .await;
    assert_eq!(mixed["a"]["details"]["plot"], "长的电影的故事。");
    assert_eq!(mixed["b"]["details"]["cast"][0]["name"], "演员甲");
    assert_eq!(
        mixed["b"]["details"]["externalRatings"][0]["source"],
        "豆瓣"
    );
    println!("movie_details reply: plots {plot_bytes} B, plots with casts {mixed_bytes} B");
    // The casts and ratings of both movies (the batch reads the union), and never the
    // full plots, languages or countries.
    assert!(
        mixed_bytes > plot_bytes + 2 * 60,
        "{mixed_bytes} vs {plot_bytes}"
    );
    let (_, all_bytes) = read(
        "query ($a: ID!, $b: ID!) { a: node(id: $a) { ... on Movie { details {
            plot fullPlot languages countries cast { name } externalRatings { source } } } }
         b: node(id: $b) { ... on Movie { details { plot } } } }",
    )
    .await;
    assert!(all_bytes > mixed_bytes, "{all_bytes} vs {mixed_bytes}");
}
