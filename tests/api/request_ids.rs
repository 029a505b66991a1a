//! `x-request-id`: a client's sane id comes back on the answer, whatever answered (an
//! operation, a refusal, a WebSocket upgrade); an absent or insane one is replaced by one made
//! by the gateway.

use serde_json::json;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::helpers::TestApp;

const ID: &str = "x-request-id";

async fn post_with(
    app: &TestApp,
    id: Option<&str>,
    auth: Option<&str>,
    body: Vec<u8>,
) -> (u16, String) {
    let mut request = app
        .client
        .post(app.url("/graphql"))
        .header("content-type", "application/json")
        .body(body);
    if let Some(id) = id {
        request = request.header(ID, id);
    }
    if let Some(auth) = auth {
        request = request.header("authorization", auth);
    }
    let response = request.send().await.unwrap();
    let echoed = response.headers()[ID].to_str().unwrap().to_owned();
    (response.status().as_u16(), echoed)
}

fn generated(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

#[tokio::test]
async fn every_answer_carries_the_request_id() {
    let app = TestApp::spawn().await;
    let query = serde_json::to_vec(&json!({ "query": "{ __typename }" })).unwrap();
    assert_eq!(
        post_with(&app, Some("client-1.a_b"), None, query.clone()).await,
        (200, "client-1.a_b".to_owned())
    );
    let (_, made) = post_with(&app, None, None, query.clone()).await;
    assert!(generated(&made), "{made}");
    let (_, other) = post_with(&app, None, None, query.clone()).await;
    assert_ne!(made, other);
    for insane in ["has space", &"a".repeat(65), "quote\"d"] {
        let (_, replaced) = post_with(&app, Some(insane), None, query.clone()).await;
        assert!(generated(&replaced), "{insane}: {replaced}");
    }
    // Refusals: a wrong key (401), a body over the limit (413).
    let (status, echoed) = post_with(&app, Some("r-401"), Some("Bearer bo_wrong"), query).await;
    assert_eq!((status, echoed.as_str()), (401, "r-401"));
    let big = vec![b' '; 70_000];
    let (status, echoed) = post_with(&app, Some("r-413"), None, big).await;
    assert_eq!((status, echoed.as_str()), (413, "r-413"));
    // Other routes.
    let response = app
        .client
        .get(app.url("/health/live"))
        .header(ID, "probe-1")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()[ID], "probe-1");
    // The WebSocket upgrade's 101.
    let mut request = app
        .url("/graphql")
        .replacen("http://", "ws://", 1)
        .into_client_request()
        .unwrap();
    let headers = request.headers_mut();
    headers.insert(
        "sec-websocket-protocol",
        "graphql-transport-ws".parse().unwrap(),
    );
    headers.insert(ID, "ws-1".parse().unwrap());
    let (_, response) = tokio_tungstenite::connect_async(request).await.unwrap();
    assert_eq!(response.status().as_u16(), 101);
    assert_eq!(response.headers()[ID], "ws-1");
}
