//! What the GraphQL executor (async-graphql 8) does that clients see: omitted variables,
//! errors of non-null fields, mutation fields run one after another.

use serde_json::{json, Value};

use crate::catalogue_writes::movie_input;
use crate::helpers::TestApp;
use crate::sale::sale;

#[tokio::test]
async fn an_omitted_variable_leaves_an_input_field_to_its_default() {
    let sale = sale().await;
    let query = "mutation ($showtime: ID!, $kind: SeatKind) {
        holdSeats(input: { showtimeId: $showtime, best: { count: 2, kind: $kind } }) {
        seats { kind } } }";
    let omitted = sale
        .app
        .graphql_as(&sale.maoyan, query, json!({ "showtime": sale.showtime }))
        .await;
    assert_eq!(
        omitted.data()["holdSeats"]["seats"],
        json!([{ "kind": "STANDARD" }, { "kind": "STANDARD" }]),
        "`kind: SeatKind! = STANDARD` applies"
    );
    let given = sale
        .app
        .graphql_as(
            &sale.maoyan,
            query,
            json!({ "showtime": sale.showtime, "kind": "COUPLE" }),
        )
        .await;
    assert_eq!(
        given.data()["holdSeats"]["seats"],
        json!([{ "kind": "COUPLE" }, { "kind": "COUPLE" }])
    );
    // An explicit null is not an omission: a non-null input field refuses it.
    let null = sale
        .app
        .graphql_as(
            &sale.maoyan,
            query,
            json!({ "showtime": sale.showtime, "kind": null }),
        )
        .await;
    assert_eq!(null.error_code(), "BAD_USER_INPUT", "{:#}", null.0);
    assert_eq!(
        sale.inventory().await.counts.held,
        4,
        "the refused one held none"
    );
}

#[tokio::test]
async fn an_omitted_page_size_is_the_default_page() {
    let app = TestApp::spawn().await;
    let query = "query ($first: Int) { cinemas(first: $first) { edges { cursor } } }";
    let response = app.graphql(query, json!({})).await;
    assert_eq!(response.data()["cinemas"]["edges"], json!([]));
}

#[tokio::test]
async fn an_error_in_a_non_null_field_nulls_its_parent_as_the_specification_says() {
    let app = TestApp::spawn().await;
    let response = app
        .graphql(
            "{ kind: __typename cinemas(first: 1, after: \"no cursor\") { edges { cursor } } }",
            json!({}),
        )
        .await;
    assert_eq!(response.error_code(), "BAD_USER_INPUT", "{:#}", response.0);
    assert_eq!(response.errors()[0]["path"], json!(["cinemas"]));
    // `cinemas` is non-null: its error nulls `data` (async-graphql 7 left the key out and
    // kept `kind`, an answer the schema does not allow).
    assert_eq!(response.0["data"], Value::Null, "{:#}", response.0);
}

#[tokio::test]
async fn a_failing_mutation_field_stops_the_fields_after_it() {
    let app = TestApp::spawn().await;
    let platform = app.operator_key("platform", None).await;
    let mut bad = movie_input();
    bad["runtimeMinutes"] = json!(0);
    bad["idempotencyKey"] = json!("bad");
    let mut good = movie_input();
    good["title"] = json!("不该创建");
    good["idempotencyKey"] = json!("good");
    let query = "mutation ($bad: CreateMovieInput!, $good: CreateMovieInput!) {
        first: createMovie(input: $bad) { id } second: createMovie(input: $good) { id } }";
    let response = app
        .graphql_as(&platform, query, json!({ "bad": bad, "good": good }))
        .await;
    assert_eq!(response.error_code(), "BAD_USER_INPUT", "{:#}", response.0);
    assert_eq!(response.errors()[0]["path"], json!(["first"]));
    assert_eq!(response.0["data"], Value::Null);
    let movies = app
        .graphql(
            "{ movies(first: 10) { edges { node { title } } } }",
            json!({}),
        )
        .await;
    assert_eq!(
        movies.data()["movies"]["edges"],
        json!([]),
        "the second field never ran"
    );
    // Each alone: the second is a good request.
    let alone = app
        .graphql_as(
            &platform,
            "mutation ($good: CreateMovieInput!) { createMovie(input: $good) { title } }",
            json!({ "good": good }),
        )
        .await;
    assert_eq!(alone.data()["createMovie"]["title"], "不该创建");
}
