//! GraphQL over HTTP: the `graphql-http` package's audit of the specification passes in full
//! against the running gateway, and the negotiation it checks (media types, status codes, 406)
//! holds for the requests that change seats too.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::sale::{sale, HOLD};

#[derive(Debug, Deserialize)]
struct AuditResult {
    id: String,
    name: String,
    status: String,
    reason: Option<String>,
}

/// Every audit of `graphql-http` (pinned in `tests/http-audit`, installed by `scripts/test`)
/// passes: each MUST, each SHOULD, and each MAY.
#[tokio::test]
async fn graphql_http_audit_passes_every_must_should_and_may() {
    let app = TestApp::spawn().await;
    let audit = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/http-audit");
    assert!(
        audit.join("node_modules/graphql-http").is_dir(),
        "the audit is not installed: run the tests with scripts/test (npm ci in tests/http-audit)"
    );
    let output = tokio::process::Command::new("node")
        .arg(audit.join("audit.mjs"))
        .arg(app.url("/graphql"))
        .current_dir(&audit)
        .output()
        .await
        .expect("node runs (scripts/test installs Node.js)");
    assert!(
        output.status.success(),
        "the audit failed to run: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let results: Vec<AuditResult> = serde_json::from_slice(&output.stdout).unwrap();
    let mut tally: BTreeMap<(String, String), usize> = BTreeMap::new();
    for result in &results {
        let level = result.name.split(' ').next().unwrap_or_default().to_owned();
        *tally.entry((level, result.status.clone())).or_default() += 1;
    }
    println!("graphql-http audit: {tally:?}");
    let failed: Vec<String> = results
        .iter()
        .filter(|result| result.status != "ok")
        .map(|r| format!("{} {} ({}): {:?}", r.id, r.name, r.status, r.reason))
        .collect();
    assert!(
        failed.is_empty(),
        "audits not passed:\n{}",
        failed.join("\n")
    );
    for level in ["MUST", "SHOULD", "MAY"] {
        assert!(
            tally.contains_key(&(level.to_owned(), "ok".to_owned())),
            "no {level} audit ran: {tally:?}"
        );
    }
}

/// POSTs `body` with `accept` (as a channel, given its key) and gives the status, content
/// type and body.
async fn post(
    app: &TestApp,
    key: Option<&str>,
    accept: &str,
    body: &Value,
) -> (u16, String, Value) {
    let mut request = app
        .client
        .post(app.url("/graphql"))
        .header("accept", accept)
        .json(body);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    (status, content_type, response.json().await.unwrap())
}

#[tokio::test]
async fn a_client_that_accepts_no_graphql_answer_gets_406_and_nothing_is_held() {
    let sale = sale().await;
    let body = json!({ "query": HOLD, "variables": { "input": {
        "showtimeId": sale.showtime, "seats": ["A1"] } } });
    for accept in [
        "text/plain",
        "application/json;q=0",
        "application/json; charset=latin1",
    ] {
        let response = sale
            .app
            .client
            .post(sale.app.url("/graphql"))
            .bearer_auth(&sale.maoyan)
            .header("accept", accept)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 406, "{accept}");
        assert_eq!(
            response.headers()["accept"],
            "application/graphql-response+json, application/json"
        );
    }
    let response = sale
        .app
        .client
        .get(sale.app.url("/graphql?query={__typename}"))
        .header("accept", "image/png")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 406);
    assert_eq!(sale.inventory().await.counts.held, 0, "nothing was held");
}

#[tokio::test]
async fn under_graphql_response_json_a_refused_mutation_is_a_400_without_data_and_holds_nothing() {
    let sale = sale().await;
    let new_type = "application/graphql-response+json";
    // Variables that do not coerce (seats must be strings), then a field that does not exist.
    let bad_variables = json!({ "query": HOLD, "variables": { "input": {
        "showtimeId": sale.showtime, "seats": [1, 2] } } });
    let unknown_field = json!({ "query": "mutation { holdAllSeats }" });
    for body in [&bad_variables, &unknown_field] {
        let (status, content_type, answer) =
            post(&sale.app, Some(&sale.maoyan), new_type, body).await;
        assert_eq!((status, content_type.as_str()), (400, new_type), "{answer}");
        assert!(answer.get("data").is_none(), "{answer}");
        assert_eq!(answer["errors"][0]["extensions"]["code"], "BAD_USER_INPUT");
        // Under application/json the same request is a 200, still without data.
        let (status, content_type, answer) =
            post(&sale.app, Some(&sale.maoyan), "application/json", body).await;
        assert_eq!((status, content_type.as_str()), (200, "application/json"));
        assert!(answer.get("data").is_none(), "{answer}");
    }
    assert_eq!(sale.inventory().await.counts.held, 0, "nothing was held");

    // A field error is an execution: 200 with its data under either type.
    let taken = json!({ "query": HOLD, "variables": { "input": {
        "showtimeId": sale.showtime, "seats": ["A1", "A1", "Z99"] } } });
    let (status, _, answer) = post(&sale.app, Some(&sale.maoyan), new_type, &taken).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.get("data").is_some(), "{answer}");
    assert!(answer["errors"][0]["path"].is_array(), "{answer}");

    // A good hold answers in the type asked for.
    let good = json!({ "query": HOLD, "variables": { "input": {
        "showtimeId": sale.showtime, "seats": ["A1"] } } });
    let (status, content_type, answer) = post(&sale.app, Some(&sale.maoyan), new_type, &good).await;
    assert_eq!((status, content_type.as_str()), (200, new_type), "{answer}");
    assert_eq!(sale.inventory().await.counts.held, 1);
}

#[tokio::test]
async fn a_request_without_a_query_is_a_400_under_either_type() {
    let app = TestApp::spawn().await;
    for accept in ["application/json", "application/graphql-response+json"] {
        for body in [
            json!({ "qeury": "{ __typename }" }),
            json!({ "query": "  " }),
        ] {
            let (status, _, answer) = post(&app, None, accept, &body).await;
            assert_eq!(status, 400, "{accept} {body}: {answer}");
            assert_eq!(answer["errors"][0]["extensions"]["code"], "BAD_USER_INPUT");
        }
    }
    // An unknown persisted query: 200 for application/json (what Apollo's link expects), 400
    // under the new type, which has no 2xx without data.
    let unknown_hash = json!({ "extensions": { "persistedQuery": { "version": 1,
        "sha256Hash": "0".repeat(64) } } });
    let (status, _, answer) = post(&app, None, "application/json", &unknown_hash).await;
    assert_eq!(status, 200);
    assert_eq!(
        answer["errors"][0]["extensions"]["code"],
        "PERSISTED_QUERY_NOT_FOUND"
    );
    let accept = "application/graphql-response+json";
    let (status, _, answer) = post(&app, None, accept, &unknown_hash).await;
    assert_eq!(status, 400);
    assert_eq!(
        answer["errors"][0]["extensions"]["code"],
        "PERSISTED_QUERY_NOT_FOUND"
    );
}
