//! Operator keys: who they are, what they may read, and what they may not call.

use serde_json::json;

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::TestApp;

const AUDIT: &str = "query($operator: String) { auditLog(operator: $operator, first: 5) { edges { node { operator operation } } } }";
const HOLD: &str =
    r#"mutation($id: ID!) { holdSeats(input: {showtimeId: $id, seats: ["A1"]}) { id } }"#;

#[tokio::test]
async fn only_the_platform_operator_reads_the_audit_log() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let channel = catalogue.channel("maoyan", "猫眼");
    let cinema = catalogue.cinema("万达影城", "北京", 39.9, 116.4);
    catalogue.insert(&app).await;
    let platform = app.operator_key("platform", None).await;
    let chain = app
        .operator_key("wanda", Some(&[global_id("Cinema", cinema.id)]))
        .await;

    let read = app.graphql_as(&platform, AUDIT, json!({})).await;
    assert_eq!(read.data()["auditLog"]["edges"], json!([]));

    let refused = app.graphql_as(&chain, AUDIT, json!({})).await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    assert!(refused.error_message().contains("platform operator"));
    let refused = app.graphql_as(channel.as_str(), AUDIT, json!({})).await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    assert!(refused.error_message().contains("sales channel cannot"));
    let refused = app.graphql(AUDIT, json!({})).await;
    assert_eq!(refused.error_code(), "UNAUTHENTICATED");
}

#[tokio::test]
async fn an_operator_key_is_not_a_channel_key() {
    let app = TestApp::spawn().await;
    let platform = app.operator_key("platform", None).await;
    let showtime = global_id("Showtime", [1; 12]);
    let refused = app
        .graphql_as(&platform, HOLD, json!({ "id": showtime }))
        .await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    assert!(refused.error_message().contains("not an operator's"));

    let (status, body) = app
        .post_with_authorization(
            &format!("Bearer bop_{}", "A".repeat(43)),
            &json!({ "query": "{ __typename }" }),
        )
        .await;
    assert_eq!(status, 401, "{body}");
}

#[tokio::test]
async fn an_operator_is_created_only_over_cinemas_that_exist() {
    let app = TestApp::spawn().await;
    let missing = global_id("Cinema", [9; 12]);
    let error =
        boxoffice::catalogue::create_operator(&app.store, "wanda", "万达", Some(&[missing]))
            .await
            .unwrap_err();
    assert_eq!(error.code().as_str(), "BAD_USER_INPUT");
    assert!(error.client_message().contains("does not exist"));
    let error = boxoffice::catalogue::create_operator(
        &app.store,
        "wanda",
        "万达",
        Some(&[global_id("Movie", [9; 12])]),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code().as_str(), "BAD_USER_INPUT");
    let error = boxoffice::catalogue::create_operator(&app.store, "Wanda", "万达", None)
        .await
        .unwrap_err();
    assert!(error.client_message().contains("operator code"));
    app.operator_key("wanda", None).await;
    let error = boxoffice::catalogue::create_operator(&app.store, "wanda", "万达", None)
        .await
        .unwrap_err();
    assert!(error.client_message().contains("exists already"));
}
