//! `/health/live` and `/health/ready`: ready only while the database answers in time and has
//! every index the gateway creates; live whatever the database does.

use std::time::Duration;

use boxoffice::store::DatabaseOptions;
use serde_json::Value;

use crate::helpers::{mongodb_uri, TestApp};
use crate::processes::OwnDatabase;

async fn probe(app: &TestApp, path: &str) -> (u16, Value) {
    let response = app.get(path).await;
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn ready_until_an_index_is_dropped() {
    let app = TestApp::spawn().await;
    assert_eq!(probe(&app, "/health/ready").await.0, 200);
    assert_eq!(probe(&app, "/health/live").await.0, 200);
    assert_eq!(probe(&app, "/health").await.0, 200);

    let client = mongodb::Client::with_uri_str(mongodb_uri()).await.unwrap();
    let orders = client
        .database(app.store.database_name())
        .collection::<bson::Document>("orders");
    orders.drop_index("status_sales").await.unwrap();

    let (status, body) = probe(&app, "/health/ready").await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(
        body["missingIndexes"],
        serde_json::json!(["orders.status_sales"])
    );
    assert_eq!(body["database"], "ok");
    assert_eq!(probe(&app, "/health/live").await.0, 200);

    app.store.ensure_indexes().await.unwrap();
    assert_eq!(probe(&app, "/health/ready").await.0, 200);
}

#[tokio::test]
async fn not_ready_while_the_database_is_frozen() {
    let database = OwnDatabase::start();
    let options = DatabaseOptions {
        timeout: Duration::from_millis(500),
        ..DatabaseOptions::default()
    };
    let app = TestApp::spawn_on(&database.uri(), &options).await;
    assert_eq!(probe(&app, "/health/ready").await.0, 200);

    database.freeze();
    let started = std::time::Instant::now();
    let (status, body) = probe(&app, "/health/ready").await;
    assert_eq!(status, 503, "{body}");
    assert_ne!(body["database"], "ok", "{body}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(probe(&app, "/health/live").await.0, 200);
    database.thaw();
    // The driver finds the server again after the timeouts (its pool was cleared).
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while probe(&app, "/health/ready").await.0 != 200 {
        assert!(std::time::Instant::now() < deadline, "not ready again");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
