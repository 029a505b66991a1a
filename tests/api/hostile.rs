//! Hostile requests are refused before any work, with a code, and change nothing.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::sale::{sale, HOLD};

/// A keyed-less hold of A1 and A2 as a request body.
fn hold_body(showtime: &str) -> Value {
    json!({ "query": HOLD, "variables": { "input": { "showtimeId": showtime, "seats": ["A1", "A2"] } } })
}

#[tokio::test]
async fn a_mutation_not_sent_as_json_is_refused_with_415_and_runs_not() {
    let sale = sale().await;
    let body = serde_json::to_vec(&hold_body(&sale.showtime)).unwrap();
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        None,
    ] {
        let mut request = sale
            .app
            .client
            .post(sale.app.url("/graphql"))
            .bearer_auth(&sale.maoyan)
            .body(body.clone());
        if let Some(content_type) = content_type {
            request = request.header("content-type", content_type);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 415, "{content_type:?}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["errors"][0]["extensions"]["code"], "BAD_USER_INPUT");
    }
    assert_eq!(sale.inventory().await.counts.held, 0, "nothing was held");
    // The same body as JSON (with a charset) runs.
    let response = sale
        .app
        .client
        .post(sale.app.url("/graphql"))
        .bearer_auth(&sale.maoyan)
        .header("content-type", "application/json; charset=utf-8")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(sale.inventory().await.counts.held, 2);
}

#[tokio::test]
async fn two_authorization_headers_are_refused_and_change_nothing() {
    let sale = sale().await;
    let response = sale
        .app
        .client
        .post(sale.app.url("/graphql"))
        .header("authorization", format!("Bearer {}", sale.maoyan))
        .header("authorization", format!("Bearer {}", sale.wechat))
        .json(&hold_body(&sale.showtime))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["errors"][0]["extensions"]["code"], "UNAUTHENTICATED");
    assert_eq!(sale.inventory().await.counts.held, 0);
}

#[tokio::test]
async fn a_body_declared_over_the_limit_is_refused_before_it_is_sent() {
    let sale = sale().await;
    let mut stream = tokio::net::TcpStream::connect(sale.app.address)
        .await
        .unwrap();
    // 20 MB announced; only the headers and a few bytes are ever sent.
    let head = format!(
        "POST /graphql HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
         content-length: 20000000\r\n\r\n{{\"query\":",
        sale.app.address
    );
    let started = Instant::now();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = vec![0; 4096];
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut answer))
        .await
        .expect("an answer without sending the body")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("larger than 65536 bytes"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn malformed_bodies_are_explained_in_the_request_s_terms_not_the_code_s() {
    let sale = sale().await;
    for (body, expected) in [
        (&b"{\"query\": "[..], "not valid JSON (line 1, column 10)"),
        (&b"{\"query\": 42}"[..], "an object with a `query` string"),
        (&b"[1, 2]"[..], "an object with a `query` string"),
    ] {
        let (status, answer) = sale.app.post_raw(body.to_vec()).await;
        assert_eq!(status, 400);
        let message = answer["errors"][0]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{message}");
        for internal in ["enum", "struct", "BatchRequest", "variant", "serde"] {
            assert!(!message.contains(internal), "{message}");
        }
    }
}

#[tokio::test]
async fn names_with_control_characters_are_refused_and_change_nothing() {
    let sale = sale().await;
    let hold = sale.hold_id(&sale.maoyan, &["A1", "A2"]).await;
    let confirm = "mutation ($hold: ID!, $name: String!, $contact: String!) { confirmHold(input: {
        holdId: $hold, customer: { name: $name, contact: $contact } }) { id } }";
    for (name, contact) in [
        ("张\u{0}三", "13800000000"),
        ("张三\u{7}", "13800000000"),
        ("\u{1b}[2J张三", "13800000000"),
        ("张三", "138\r\n00000000"),
    ] {
        let variables = json!({ "hold": hold, "name": name, "contact": contact });
        let response = sale.app.graphql_as(&sale.maoyan, confirm, variables).await;
        assert_eq!(response.error_code(), "BAD_USER_INPUT", "{name:?}");
        assert!(
            response.error_message().contains("control character"),
            "{}",
            response.error_message()
        );
    }
    let inventory = sale.inventory().await;
    assert_eq!((inventory.counts.held, inventory.counts.sold), (2, 0));
    assert!(sale.all_orders(&sale.maoyan).await.is_empty());
}

#[tokio::test]
async fn a_panicking_resolver_gets_internal_and_the_gateway_goes_on() {
    let sale = sale().await;
    sale.app.store.faults().panic_next_resolver();
    let response = sale
        .app
        .client
        .post(sale.app.url("/graphql"))
        .bearer_auth(&sale.maoyan)
        .json(&hold_body(&sale.showtime))
        .send()
        .await
        .expect("an answer, not a dropped connection");
    assert_eq!(response.status(), 500);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["errors"][0]["extensions"]["code"], "INTERNAL");
    assert_eq!(body["errors"][0]["message"], "internal error");
    assert_eq!(sale.inventory().await.counts.held, 0);
    // The next request is served.
    sale.hold(&sale.maoyan, &["A1", "A2"]).await.data();
}

#[tokio::test]
async fn a_wrong_key_refused_once_is_refused_again_without_a_database_look_up() {
    let sale = sale().await;
    let wrong = boxoffice::domain::api_key::ApiKey::generate(&mut rand::rng());
    let (authorization, body) = (
        format!("Bearer {}", wrong.as_str()),
        json!({ "query": "{ __typename }" }),
    );
    let ask = || sale.app.post_with_authorization(&authorization, &body);
    sale.app.store.commands().start();
    assert_eq!(ask().await.0, 401);
    assert_eq!(sale.app.store.commands().take().len(), 1, "looked up once");
    for _ in 0..5 {
        assert_eq!(ask().await.0, 401);
    }
    assert!(
        sale.app.store.commands().take().is_empty(),
        "and then remembered"
    );
}

#[tokio::test]
async fn aliased_seat_mutations_are_refused_and_hold_nothing() {
    let sale = sale().await;
    let hold = |alias: &str, seat: &str| {
        format!(
            "{alias}: holdSeats(input: {{ showtimeId: \"{}\", seats: [\"{seat}\"] }}) {{ id }}",
            sale.showtime
        )
    };
    // Two in one operation, directly or through a fragment on Mutation.
    let two = format!("mutation {{ {} {} }}", hold("a", "A1"), hold("b", "A2"));
    let hidden = format!(
        "mutation {{ {} ...More }} fragment More on Mutation {{ {} }}",
        hold("a", "A1"),
        hold("b", "A2")
    );
    for query in [two, hidden] {
        let response = sale.app.graphql_as(&sale.maoyan, &query, json!({})).await;
        assert_eq!(response.error_code(), "BAD_USER_INPUT", "{query}");
        assert!(response.error_message().contains("changes seats 2 times"));
    }
    // A hundred, as an attacker sent them: refused for its aliases before anything runs.
    let hundred: Vec<String> = (0..100).map(|i| hold(&format!("h{i}"), "A1")).collect();
    let query = format!("mutation {{ {} }}", hundred.join(" "));
    let response = sale.app.graphql_as(&sale.maoyan, &query, json!({})).await;
    assert_eq!(response.error_code(), "QUERY_TOO_COMPLEX");
    assert_eq!(sale.inventory().await.counts.held, 0, "nothing was held");
}

#[tokio::test]
async fn aliases_directives_and_tokens_are_capped_before_anything_runs() {
    let app = crate::helpers::TestApp::spawn().await;
    let aliased = |n: usize| {
        let fields: Vec<String> = (0..n).map(|i| format!("a{i}: __typename")).collect();
        format!("{{ {} }}", fields.join(" "))
    };
    assert!(app
        .graphql(&aliased(15), json!({}))
        .await
        .0
        .get("errors")
        .is_none());
    let response = app.graphql(&aliased(16), json!({})).await;
    assert_eq!(response.error_code(), "QUERY_TOO_COMPLEX");
    assert!(response.error_message().contains("16 aliases"));

    // CVE-2024-47614's shape: thousands of directives on one field.
    let directives = " @include(if: true)".repeat(2000);
    let response = app
        .graphql(&format!("{{ __typename{directives} }}"), json!({}))
        .await;
    assert_eq!(response.error_code(), "QUERY_TOO_COMPLEX");

    let tokens = "{ ".to_owned() + &"__typename ".repeat(2500) + "}";
    let started = Instant::now();
    let response = app.graphql(&tokens, json!({})).await;
    assert_eq!(response.error_code(), "QUERY_TOO_COMPLEX");
    assert!(response.error_message().contains("more than 2000 tokens"));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn reviews_fanned_out_through_their_movies_cost_what_they_build() {
    let app = crate::helpers::TestApp::spawn().await;
    // Each level multiplies by the 10 embedded reviews: 4 levels under 20 movies would build
    // 200,000 reviews. Refused before it runs.
    let level = |inner: &str| format!("recentReviews {{ rating movie {{ {inner} }} }}");
    let nested = level(&level(&level("recentReviews { rating }")));
    let query = format!("{{ movies(first: 20) {{ edges {{ node {{ {nested} }} }} }} }}");
    let response = app.graphql(&query, json!({})).await;
    assert_eq!(
        response.error_code(),
        "QUERY_TOO_COMPLEX",
        "{:#}",
        response.0
    );
    // One level, as a frontend asks for it, is fine.
    let query = "{ movies(first: 20) { edges { node { title recentReviews { rating text } } } } }";
    app.graphql(query, json!({})).await.data();
}

#[tokio::test]
async fn an_anonymous_client_is_rate_limited_by_its_address() {
    let limits = boxoffice::config::Limits {
        anonymous_requests_per_second: 1,
        anonymous_burst: 3,
        ..boxoffice::config::Limits::default()
    };
    let app = crate::helpers::TestApp::spawn_with(limits).await;
    let query = json!({ "query": "{ __typename }" });
    for _ in 0..3 {
        assert_eq!(app.post_json(&query).await.0, 200);
    }
    let response = app
        .client
        .post(app.url("/graphql"))
        .json(&query)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    assert!(response.headers().contains_key("retry-after"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["errors"][0]["extensions"]["code"], "RATE_LIMITED");
    assert!(body["errors"][0]["message"]
        .as_str()
        .unwrap()
        .contains("client 127.0.0.1"));
}

#[tokio::test]
async fn introspection_can_be_turned_off() {
    let query = json!({ "query": "{ __schema { types { name } } }" });
    let on = crate::helpers::TestApp::spawn().await;
    assert!(on.post_json(&query).await.1["data"]["__schema"]["types"].is_array());
    let limits = boxoffice::config::Limits {
        introspection: false,
        ..boxoffice::config::Limits::default()
    };
    let off = crate::helpers::TestApp::spawn_with(limits).await;
    // The schema is not disclosed: introspection answers null.
    let (_, body) = off.post_json(&query).await;
    assert_eq!(body["data"]["__schema"], Value::Null, "{body}");
    let type_query = json!({ "query": "{ __type(name: \"Query\") { fields { name } } }" });
    let (_, body) = off.post_json(&type_query).await;
    assert_eq!(body["data"]["__type"], Value::Null, "{body}");
    // Data queries still run.
    let (status, body) = off.post_json(&json!({ "query": "{ __typename }" })).await;
    assert_eq!(
        (status, &body["data"]["__typename"]),
        (200, &json!("Query"))
    );
}

#[tokio::test]
async fn only_configured_origins_may_call_from_a_browser() {
    let closed = crate::helpers::TestApp::spawn().await;
    let open =
        crate::helpers::TestApp::spawn_configured(boxoffice::config::Limits::default(), |state| {
            state.with_cors_origins(vec!["https://tickets.example.com".parse().unwrap()])
        })
        .await;
    let preflight = |app: &crate::helpers::TestApp, origin: &'static str| {
        app.client
            .request(reqwest::Method::OPTIONS, app.url("/graphql"))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "content-type, authorization",
            )
            .send()
    };
    let allowed = preflight(&open, "https://tickets.example.com")
        .await
        .unwrap();
    assert_eq!(
        allowed.headers()["access-control-allow-origin"],
        "https://tickets.example.com"
    );
    for (app, origin) in [
        (&open, "https://evil.example.net"),
        (&closed, "https://tickets.example.com"),
    ] {
        let refused = preflight(app, origin).await.unwrap();
        assert!(
            !refused
                .headers()
                .contains_key("access-control-allow-origin"),
            "{origin}: {:?}",
            refused.headers()
        );
    }
}

#[tokio::test]
async fn get_runs_queries_with_cache_control_and_refuses_mutations() {
    let sale = sale().await;
    let get = |query: &str, key: Option<&str>| {
        let mut request = sale
            .app
            .client
            .get(sale.app.url("/graphql"))
            .query(&[("query", query)]);
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        request.send()
    };
    let cinemas = "{ cinemas(first: 5) { edges { node { name } } } }";
    let response = get(cinemas, None).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "max-age=60");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["data"]["cinemas"]["edges"][0]["node"]["name"], "影城");

    // Seat maps change by the second: never cached.
    let seats = format!(
        "{{ node(id: \"{}\") {{ ... on Showtime {{ seatMap {{ counts {{ available }} }} }} }} }}",
        sale.showtime
    );
    let response = get(&seats, None).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["cache-control"], "no-cache");
    // A channel's answers are its own.
    let response = get(cinemas, Some(&sale.maoyan)).await.unwrap();
    assert_eq!(response.headers()["cache-control"], "private, no-store");

    let mutation = format!(
        "mutation {{ holdSeats(input: {{ showtimeId: \"{}\", seats: [\"A1\"] }}) {{ id }} }}",
        sale.showtime
    );
    let response = get(&mutation, Some(&sale.maoyan)).await.unwrap();
    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["allow"], "POST");
    assert_eq!(sale.inventory().await.counts.held, 0, "nothing was held");

    // A browser opening the endpoint gets the playground.
    let page = sale
        .app
        .client
        .get(sale.app.url("/graphql"))
        .header("accept", "text/html,application/xhtml+xml")
        .send()
        .await
        .unwrap();
    assert!(page.text().await.unwrap().contains("<html"));
}

#[tokio::test]
async fn persisted_queries_are_sent_by_hash_and_still_limited() {
    use sha2::{Digest, Sha256};
    let app = crate::helpers::TestApp::spawn().await;
    let sha = |query: &str| -> String {
        Sha256::digest(query.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let by_hash = |hash: &str| json!({ "extensions": { "persistedQuery": { "version": 1, "sha256Hash": hash } } });
    let query = "{ cinemas(first: 1) { edges { cursor } } }";
    let (status, body) = app.post_json(&by_hash(&sha(query))).await;
    assert_eq!(status, 200);
    assert_eq!(
        body["errors"][0]["extensions"]["code"],
        "PERSISTED_QUERY_NOT_FOUND"
    );
    assert_eq!(body["errors"][0]["message"], "PersistedQueryNotFound");
    let mut with_query = by_hash(&sha(query));
    with_query["query"] = json!(query);
    let (status, body) = app.post_json(&with_query).await;
    assert_eq!((status, body.get("errors")), (200, None), "{body}");
    let (status, body) = app.post_json(&by_hash(&sha(query))).await;
    assert_eq!((status, body.get("errors")), (200, None), "{body}");
    assert!(body["data"]["cinemas"]["edges"].is_array());
    // By GET too, as Apollo clients send them.
    let extensions = by_hash(&sha(query))["extensions"].to_string();
    let response = app
        .client
        .get(app.url("/graphql"))
        .query(&[("extensions", extensions.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.json::<Value>().await.unwrap()["data"]["cinemas"].is_object());

    // A wrong hash is refused; a persisted query is held to every limit.
    let mut wrong = by_hash(&sha("{ other }"));
    wrong["query"] = json!(query);
    assert_eq!(app.post_json(&wrong).await.0, 400);
    let aliased: Vec<String> = (0..16).map(|i| format!("a{i}: __typename")).collect();
    let aliased = format!("{{ {} }}", aliased.join(" "));
    let mut send = by_hash(&sha(&aliased));
    send["query"] = json!(aliased);
    let (_, body) = app.post_json(&send).await;
    assert_eq!(body["errors"][0]["extensions"]["code"], "QUERY_TOO_COMPLEX");
    let (_, body) = app.post_json(&by_hash(&sha(&aliased))).await;
    assert_eq!(body["errors"][0]["extensions"]["code"], "QUERY_TOO_COMPLEX");
}

#[tokio::test]
async fn seat_maps_cost_as_many_seats_as_the_largest_hall() {
    let app = crate::helpers::TestApp::spawn().await;
    let page = |first: usize| {
        format!(
            "{{ showtimes(first: {first}) {{ edges {{ node {{ seatMap {{
                rows {{ label seats {{ label kind state }} }} }} }} }} }} }}"
        )
    };
    // One full seat map costs about 1,000 seats × 3 fields: a dozen fit the default limit.
    assert!(app
        .graphql(&page(12), json!({}))
        .await
        .0
        .get("errors")
        .is_none());
    let response = app.graphql(&page(100), json!({})).await;
    assert_eq!(response.error_code(), "QUERY_TOO_COMPLEX");
    // Counts alone stay cheap for a whole page.
    let counts =
        "{ showtimes(first: 100) { edges { node { seatMap { counts { available } } } } } }";
    assert!(app
        .graphql(counts, json!({}))
        .await
        .0
        .get("errors")
        .is_none());
}

#[tokio::test]
async fn malformed_get_and_persisted_query_requests_get_a_code() {
    let app = crate::helpers::TestApp::spawn().await;
    let response = app
        .client
        .get(app.url("/graphql"))
        .query(&[("query", "{ __typename }"), ("variables", "{not json")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["errors"][0]["extensions"]["code"], "BAD_USER_INPUT");
    for extension in [
        json!({ "version": 2, "sha256Hash": "00" }),
        json!({ "sha256Hash": 42 }),
    ] {
        let request =
            json!({ "query": "{ __typename }", "extensions": { "persistedQuery": extension } });
        let (status, body) = app.post_json(&request).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["errors"][0]["extensions"]["code"], "BAD_USER_INPUT");
    }
}
