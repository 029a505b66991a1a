//! Per-channel rate limits: a channel over its limit gets 429 RATE_LIMITED with when to come
//! back, and nothing runs; other channels and anonymous readers are not held back. The
//! gateway's buckets run on a manual clock the tests advance, so a slow machine (a request
//! taking longer than a token takes to come back) changes nothing.

use std::sync::Arc;
use std::time::Duration;

use boxoffice::config::Limits;
use boxoffice::domain::clock::ManualClock;
use boxoffice::store::documents::RateLimitDoc;
use serde_json::{json, Value};

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::TestApp;

const CURRENT: &str = "{ currentChannel { code } }";

struct Limited {
    app: TestApp,
    /// The clock of the gateway's rate limits: time passes only when a test advances it.
    clock: Arc<ManualClock>,
    maoyan: String,
    wechat: String,
    /// A channel whose record sets its own limit: 1 a second, burst 1.
    strict: String,
    showtime: String,
}

/// A gateway whose default channel limit is 2 operations a second, in bursts of 3.
async fn limited() -> Limited {
    let limits = Limits {
        channel_requests_per_second: 2,
        channel_burst: 3,
        ..Limits::default()
    };
    let clock = Arc::new(ManualClock::default());
    let app = TestApp::spawn_with_clock(limits, Arc::clone(&clock)).await;
    let mut catalogue = Catalogue::default();
    let maoyan = catalogue.channel("maoyan", "猫眼电影");
    let wechat = catalogue.channel("wechat", "微信电影票");
    let own = RateLimitDoc {
        per_second: 1,
        burst: 1,
    };
    let strict = catalogue.channel_with_limit("strict", "严格", Some(own));
    let cinema = catalogue.cinema("影城", "上海", 31.2, 121.4);
    let hall = catalogue.hall(&cinema, "1号厅", &["SSSSSS"]);
    let movie = catalogue.movie("电影", &["剧情"]);
    let showtime = catalogue.showtime(&cinema, &hall, &movie, 2, &[("maoyan", 4000)]);
    catalogue.insert(&app).await;
    Limited {
        app,
        clock,
        maoyan: maoyan.as_str().to_owned(),
        wechat: wechat.as_str().to_owned(),
        strict: strict.as_str().to_owned(),
        showtime: global_id("Showtime", showtime.id),
    }
}

/// Posts `body` as the channel with `key`; returns the status, `Retry-After` and the body.
async fn post(app: &TestApp, key: &str, body: Value) -> (u16, Option<String>, Value) {
    let response = app
        .client
        .post(app.url("/graphql"))
        .bearer_auth(key)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap().to_owned());
    (status, retry_after, response.json().await.unwrap())
}

#[tokio::test]
async fn a_channel_over_its_limit_is_told_when_to_come_back() {
    let limited = limited().await;
    let app = &limited.app;
    for _ in 0..3 {
        let (status, _, body) = post(app, &limited.maoyan, json!({ "query": CURRENT })).await;
        assert_eq!(
            (status, &body["data"]["currentChannel"]["code"]),
            (200, &json!("maoyan"))
        );
    }
    let (status, retry_after, body) = post(app, &limited.maoyan, json!({ "query": CURRENT })).await;
    assert_eq!(status, 429);
    let error = &body["errors"][0];
    assert_eq!(error["extensions"]["code"], "RATE_LIMITED");
    let wait = error["extensions"]["retryAfterMs"].as_u64().unwrap();
    assert_eq!(wait, 500, "at 2 a second a token is back in 500 ms");
    assert_eq!(retry_after.as_deref(), Some("1"));

    // Other channels have their own buckets; anonymous reads are not limited here.
    let (status, _, _) = post(app, &limited.wechat, json!({ "query": CURRENT })).await;
    assert_eq!(status, 200);
    for _ in 0..5 {
        assert!(app
            .graphql(CURRENT, json!({}))
            .await
            .0
            .get("errors")
            .is_none());
    }

    // Not before the wait is over; then the channel is served again.
    limited.clock.advance(Duration::from_millis(wait - 1));
    let (status, _, body) = post(app, &limited.maoyan, json!({ "query": CURRENT })).await;
    assert_eq!(status, 429, "1 ms early: {body}");
    assert_eq!(body["errors"][0]["extensions"]["retryAfterMs"], 1);
    limited.clock.advance(Duration::from_millis(1));
    let (status, _, _) = post(app, &limited.maoyan, json!({ "query": CURRENT })).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_refused_mutation_changes_nothing_and_a_batch_costs_its_length() {
    let limited = limited().await;
    let app = &limited.app;
    // A batch of 3 spends the whole burst.
    let batch = json!([{ "query": CURRENT }, { "query": CURRENT }, { "query": CURRENT }]);
    let (status, _, body) = post(app, &limited.maoyan, batch).await;
    assert_eq!((status, body.as_array().map(Vec::len)), (200, Some(3)));
    let hold =
        "mutation ($id: ID!) { holdSeats(input: { showtimeId: $id, seats: [\"A1\"] }) { id } }";
    let body = json!({ "query": hold, "variables": { "id": limited.showtime } });
    let (status, _, refused) = post(app, &limited.maoyan, body).await;
    assert_eq!(status, 429);
    assert_eq!(refused["errors"][0]["extensions"]["code"], "RATE_LIMITED");
    let seats = "query ($id: ID!) { showtime(id: $id) { seatMap { counts { available held } } } }";
    let read = app.graphql(seats, json!({ "id": limited.showtime })).await;
    assert_eq!(
        read.data()["showtime"]["seatMap"]["counts"],
        json!({ "available": 6, "held": 0 })
    );
}

#[tokio::test]
async fn a_channel_record_can_set_its_own_limit() {
    let limited = limited().await;
    let app = &limited.app;
    let (status, _, _) = post(app, &limited.strict, json!({ "query": CURRENT })).await;
    assert_eq!(status, 200);
    let (status, _, body) = post(app, &limited.strict, json!({ "query": CURRENT })).await;
    assert_eq!(status, 429, "burst 1: the second request waits: {body}");
    let wait = body["errors"][0]["extensions"]["retryAfterMs"]
        .as_u64()
        .unwrap();
    assert_eq!(wait, 1000, "at 1 a second the wait is a second");
}
