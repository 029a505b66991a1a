//! Parsed queries are kept by their text (`graphql::document_cache`): a text sent again runs
//! the operation its request names, its variables are checked every time, and a text refused
//! once is refused again.

use serde_json::json;

use crate::helpers::{nested_list, GqlResponse, TestApp};

#[tokio::test]
async fn a_text_sent_again_runs_the_operation_its_request_names() {
    let app = TestApp::spawn().await;
    let text = "query A { a: __typename first: __typename } query B { b: __typename }";
    for _ in 0..2 {
        let (status, body) = app
            .post_json(&json!({ "query": text, "operationName": "A" }))
            .await;
        assert_eq!(status, 200);
        assert_eq!(body["data"], json!({ "a": "Query", "first": "Query" }));
        let keys: Vec<&String> = body["data"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["a", "first"], "the query's order");
        let (_, body) = app
            .post_json(&json!({ "query": text, "operationName": "B" }))
            .await;
        assert_eq!(body["data"], json!({ "b": "Query" }));
        // Two operations and no name: which one is meant is the caller's to say, every time.
        let (_, body) = app.post_json(&json!({ "query": text })).await;
        assert!(body.get("data").is_none(), "{body}");
        assert_eq!(body["errors"][0]["extensions"]["code"], "BAD_USER_INPUT");
    }
}

#[tokio::test]
async fn variables_are_checked_every_time_and_a_refused_text_is_refused_again() {
    let app = TestApp::spawn().await;
    let text = "query ($v: Int) { showtimes(first: $v) { pageInfo { hasNextPage } } }";
    let answered = app.graphql(text, json!({ "v": 1 })).await;
    assert_eq!(
        answered.data()["showtimes"]["pageInfo"]["hasNextPage"],
        false
    );
    let nested = app.graphql(text, json!({ "v": nested_list(40) })).await;
    assert_eq!(nested.error_code(), "QUERY_TOO_COMPLEX", "{:#}", nested.0);
    assert!(nested.error_message().contains("variables nest"));
    let again = app.graphql(text, json!({ "v": 1 })).await;
    assert_eq!(again.data(), answered.data());

    // Refused by the shape limits (brackets nested past 32), and by validation.
    let deep = format!(
        "{}__typename{}",
        "{ ... on Query ".repeat(40),
        "}".repeat(40)
    );
    let unknown = "{ showtimes { edges { node { noSuchField } } } }";
    for _ in 0..2 {
        let refused: GqlResponse = app.graphql(&deep, json!({})).await;
        assert_eq!(refused.error_code(), "QUERY_TOO_COMPLEX", "{:#}", refused.0);
        let invalid = app.graphql(unknown, json!({})).await;
        assert_eq!(invalid.error_code(), "BAD_USER_INPUT", "{:#}", invalid.0);
        assert!(invalid.error_message().contains("noSuchField"));
    }
}
