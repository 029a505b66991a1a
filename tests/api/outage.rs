//! The database going away: a gateway answers UNAVAILABLE (HTTP 503 with `Retry-After`) within
//! its timeout instead of stalling, says so on `/health`, and serves again by itself once the
//! database is back. Each test runs a database server of its own, to stop and kill.

use std::time::{Duration, Instant};

use boxoffice::store::DatabaseOptions;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::processes::OwnDatabase;
use crate::sale::{sale_on, Sale, HOLD};

/// The gateway's database timeout in these tests.
const TIMEOUT: Duration = Duration::from_millis(1000);
/// What a request may take beyond its timeout (scheduling, the HTTP round trip).
const SLACK: Duration = Duration::from_millis(1500);

async fn sale_on_own_database(database: &OwnDatabase) -> Sale {
    let options = DatabaseOptions {
        timeout: TIMEOUT,
        ..DatabaseOptions::default()
    };
    sale_on(
        TestApp::spawn_on(&database.uri(), &options).await,
        &["SSSSSS"; 2],
    )
    .await
}

/// Posts a keyed hold of `seats` as maoyan; returns the HTTP status, `Retry-After`, the body
/// and how long it took.
async fn hold(sale: &Sale, seats: &[&str], key: &str) -> (u16, Option<String>, Value, Duration) {
    let input = json!({ "showtimeId": sale.showtime, "seats": seats, "idempotencyKey": key });
    let started = Instant::now();
    let response = sale
        .app
        .client
        .post(sale.app.url("/graphql"))
        .bearer_auth(&sale.maoyan)
        .json(&json!({ "query": HOLD, "variables": { "input": input } }))
        .send()
        .await
        .expect("the gateway answers");
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap().to_owned());
    let body = response.json().await.expect("a JSON body");
    (status, retry_after, body, started.elapsed())
}

fn code(body: &Value) -> &str {
    body["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or("")
}

async fn health(app: &TestApp) -> (u16, Duration) {
    let started = Instant::now();
    let status = app.get("/health").await.status().as_u16();
    (status, started.elapsed())
}

#[tokio::test]
async fn a_database_that_stops_answering_gives_unavailable_in_time_and_the_next_request_works() {
    let database = OwnDatabase::start();
    let sale = sale_on_own_database(&database).await;
    let (status, _, body, _) = hold(&sale, &["A1"], "before").await;
    assert_eq!(status, 200, "{body}");

    database.freeze();
    let (status, retry_after, body, took) = hold(&sale, &["A2", "A3"], "during").await;
    assert_eq!((status, code(&body)), (503, "UNAVAILABLE"), "{body}");
    assert_eq!(retry_after.as_deref(), Some("1"));
    assert!(took < TIMEOUT + SLACK, "answered in {took:?}");
    let (status, took) = health(&sale.app).await;
    assert_eq!(status, 503);
    assert!(took < TIMEOUT + SLACK, "health answered in {took:?}");

    database.thaw();
    let (status, _, body, _) = hold(&sale, &["B1"], "after").await;
    assert_eq!(status, 200, "the next request works: {body}");
    assert_eq!(health(&sale.app).await.0, 200);
    // The request that failed, retried with its key, has one effect: whatever its first
    // attempt did while the database was frozen is found or fenced off, never doubled.
    let (status, _, body, _) = hold(&sale, &["A2", "A3"], "during").await;
    assert_eq!(status, 200, "{body}");
    let (_, _, again, _) = hold(&sale, &["A2", "A3"], "during").await;
    assert_eq!(again, body, "replayed");
    let inventory = sale.inventory().await;
    assert_eq!(inventory.counts.held, 4, "A1, A2, A3 and B1, each once");
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_killed_and_restarted_database_is_used_again_without_restarting_the_gateway() {
    let mut database = OwnDatabase::start();
    let sale = sale_on_own_database(&database).await;
    let showtimes = "{ showtimes(first: 1) { edges { node { id } } } }";
    assert!(sale
        .app
        .graphql(showtimes, json!({}))
        .await
        .0
        .get("errors")
        .is_none());

    database.kill();
    let started = Instant::now();
    let (status, body) = sale.app.post_json(&json!({ "query": showtimes })).await;
    let took = started.elapsed();
    assert_eq!((status, code(&body)), (503, "UNAVAILABLE"), "{body}");
    assert!(took < TIMEOUT + SLACK, "answered in {took:?}");
    assert_eq!(health(&sale.app).await.0, 503);

    database.restart();
    // (The test server may lose what it had not flushed when killed: ask for nothing that
    // depends on it.)
    let (status, body) = sale.app.post_json(&json!({ "query": showtimes })).await;
    assert_eq!(status, 200, "the next request works: {body}");
    assert_eq!(health(&sale.app).await.0, 200);
}

#[tokio::test]
async fn a_confirm_that_met_a_frozen_database_is_retried_into_one_order() {
    let database = OwnDatabase::start();
    let sale = sale_on_own_database(&database).await;
    let hold = sale.hold_id(&sale.maoyan, &["A1", "A2"]).await;
    let confirm = "mutation ($hold: ID!) { confirmHold(input: { holdId: $hold,
        customer: { name: \"张三\", contact: \"13800000000\" }, idempotencyKey: \"pay-frozen\" }) {
        id status } }";
    database.freeze();
    let (status, body) = sale
        .app
        .post_with_authorization(
            &format!("Bearer {}", sale.maoyan),
            &json!({ "query": confirm, "variables": { "hold": hold } }),
        )
        .await;
    assert_eq!((status, code(&body)), (503, "UNAVAILABLE"), "{body}");
    database.thaw();
    // The retry finds whatever the first attempt did, and makes one order of it.
    let retried = sale
        .app
        .graphql_as(&sale.maoyan, confirm, json!({ "hold": hold }))
        .await;
    assert_eq!(retried.data()["confirmHold"]["status"], "CONFIRMED");
    let again = sale
        .app
        .graphql_as(&sale.maoyan, confirm, json!({ "hold": hold }))
        .await;
    assert_eq!(again.0, retried.0, "replayed");
    assert_eq!(sale.check_orders_agree_with_seats().await.len(), 1);
    let inventory = sale.inventory().await;
    assert_eq!((inventory.counts.held, inventory.counts.sold), (0, 2));
}

#[tokio::test]
async fn an_extension_that_met_a_frozen_database_is_retried_into_one_extension() {
    let database = OwnDatabase::start();
    let sale = sale_on_own_database(&database).await;
    let hold = sale.hold(&sale.maoyan, &["B1", "B2"]).await;
    let hold = &hold.data()["holdSeats"];
    let (id, expires_at) = (
        hold["id"].clone(),
        crate::hold_extension::time(&hold["expiresAt"]),
    );
    let extend = crate::hold_extension::EXTEND;
    let variables = json!({ "id": id, "key": "longer-frozen" });
    database.freeze();
    let (status, body) = sale
        .app
        .post_with_authorization(
            &format!("Bearer {}", sale.maoyan),
            &json!({ "query": extend, "variables": variables }),
        )
        .await;
    assert_eq!((status, code(&body)), (503, "UNAVAILABLE"), "{body}");
    database.thaw();
    // Whatever the frozen server did with the first attempt, the retry makes one extension.
    let retried = sale.app.graphql_as(&sale.maoyan, extend, variables).await;
    let until = expires_at + chrono::TimeDelta::minutes(5);
    let answered = crate::hold_extension::time(&retried.data()["extendHold"]["expiresAt"]);
    assert_eq!(answered, until);
    let inventory = sale.inventory().await;
    assert_eq!(inventory.holds[0].expires_at, until, "moved once");
    assert_eq!(inventory.counts.held, 2);
}

#[tokio::test]
async fn a_partial_cancellation_that_met_a_frozen_database_is_retried_into_one_refund() {
    let database = OwnDatabase::start();
    let sale = sale_on_own_database(&database).await;
    let order = sale.order(&sale.maoyan, &["A4", "A5", "A6"]).await;
    let cancel = crate::refunds::CANCEL_SEATS;
    let variables = json!({ "id": order, "seats": ["A5"], "key": "refund-frozen" });
    database.freeze();
    let (status, body) = sale
        .app
        .post_with_authorization(
            &format!("Bearer {}", sale.maoyan),
            &json!({ "query": cancel, "variables": variables }),
        )
        .await;
    assert_eq!((status, code(&body)), (503, "UNAVAILABLE"), "{body}");
    database.thaw();
    // Whatever the frozen server did with the first attempt, the retry makes one refund.
    let retried = sale.app.graphql_as(&sale.maoyan, cancel, variables).await;
    let retried = &retried.data()["cancelOrder"];
    assert_eq!(retried["refunds"].as_array().unwrap().len(), 1);
    assert_eq!(retried["refunded"]["amount"], 4000);
    let inventory = sale.inventory().await;
    assert_eq!((inventory.counts.sold, inventory.counts.available), (2, 10));
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_scan_that_met_a_frozen_database_is_retried_into_one_admission() {
    let database = OwnDatabase::start();
    let sale = sale_on_own_database(&database).await;
    crate::admissions::starting_in_on(&database.uri(), &sale, 30).await;
    let order = sale.order(&sale.maoyan, &["B3"]).await;
    let code_of_ticket = crate::admissions::codes(&sale, &order).await.remove(0).1;
    let operator = crate::admissions::operator(&sale).await;
    let north = crate::admissions::door(&sale, &operator, "North").await;
    // Its key is known to the gateway before the database freezes.
    let other = crate::admissions::codes(&sale, &sale.order(&sale.maoyan, &["B4"]).await).await;
    crate::admissions::admit(&sale.app, &north.key, &other[0].1, None)
        .await
        .data();

    let variables = json!({ "code": code_of_ticket, "key": "scan-frozen" });
    database.freeze();
    let (status, body) = sale
        .app
        .post_with_authorization(
            &format!("Bearer {}", north.key),
            &json!({ "query": crate::admissions::ADMIT, "variables": variables }),
        )
        .await;
    assert_eq!((status, code(&body)), (503, "UNAVAILABLE"), "{body}");
    database.thaw();
    // Whatever the frozen server did with the first attempt, the retry admits once.
    let retried = crate::admission_races::admit_until_up(&sale.app, &north.key, &variables).await;
    assert_eq!(retried.data()["admitTicket"]["seat"], "B3");
    let again = crate::admissions::admit(&sale.app, &north.key, &code_of_ticket, None).await;
    assert_eq!(again.error_code(), "ALREADY_ADMITTED");
    assert_eq!(sale.inventory().await.admitted, 2, "B4, then B3 once");
}

/// A door key made while the database is frozen: the answer is UNAVAILABLE (and its key lost
/// with it), and whatever was stored shows in `doorKeys`, to be revoked.
#[tokio::test]
async fn a_door_key_made_against_a_frozen_database_is_listed_to_be_revoked() {
    let database = OwnDatabase::start();
    let sale = sale_on_own_database(&database).await;
    let operator = crate::admissions::operator(&sale).await;
    let list = || async {
        let listed = sale
            .app
            .graphql_as(
                &operator,
                crate::admissions::DOOR_KEYS,
                json!({ "cinema": sale.cinema }),
            )
            .await;
        listed.data()["doorKeys"].as_array().unwrap().clone()
    };
    assert!(list().await.is_empty());
    let variables = json!({ "cinema": sale.cinema, "door": "North" });
    database.freeze();
    let (status, body) = sale
        .app
        .post_with_authorization(
            &format!("Bearer {operator}"),
            &json!({ "query": crate::admissions::CREATE_DOOR, "variables": variables }),
        )
        .await;
    assert_eq!((status, code(&body)), (503, "UNAVAILABLE"), "{body}");
    assert!(
        !body.to_string().contains("bop_"),
        "no key in the refusal: {body}"
    );
    database.thaw();
    let mut left = list().await;
    for _ in 0..50 {
        if !left.is_empty() {
            break;
        }
        // The frozen server may still be writing the key it was sent.
        tokio::time::sleep(Duration::from_millis(20)).await;
        left = list().await;
    }
    assert!(left.len() <= 1, "at most the one key: {left:?}");
    for key in &left {
        let revoked = sale
            .app
            .graphql_as(
                &operator,
                "mutation ($cinema: ID!, $code: String!) { revokeDoorKey(input: { cinemaId: $cinema, code: $code }) { code } }",
                json!({ "cinema": sale.cinema, "code": key["code"] }),
            )
            .await;
        assert_eq!(revoked.data()["revokeDoorKey"]["code"], key["code"]);
    }
    assert!(list().await.is_empty(), "nothing left that nobody holds");
    crate::admissions::door(&sale, &operator, "North").await;
    assert_eq!(list().await.len(), 1);
}

#[tokio::test]
async fn a_hold_with_products_that_met_a_frozen_database_reserves_its_units_once() {
    let database = OwnDatabase::start();
    let sale = sale_on_own_database(&database).await;
    let wanda = crate::admissions::operator(&sale).await;
    let popcorn = crate::concessions::product(&sale, &wanda, "爆米花", 2_500, Some(10)).await;
    let hold = "mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) {
        id items { quantity } } }";
    let input = json!({ "showtimeId": sale.showtime, "seats": ["A1"], "idempotencyKey": "snack-frozen",
                        "items": [{ "productId": popcorn, "quantity": 2 }] });
    database.freeze();
    let (status, body) = sale
        .app
        .post_with_authorization(
            &format!("Bearer {}", sale.maoyan),
            &json!({ "query": hold, "variables": { "input": input } }),
        )
        .await;
    assert_eq!((status, code(&body)), (503, "UNAVAILABLE"), "{body}");
    database.thaw();
    // The retry makes one hold; whatever the frozen attempt reserved for a hold it never
    // placed is given back by the reconciler, so the units are taken once.
    let retried = sale
        .app
        .graphql_as(&sale.maoyan, hold, json!({ "input": input }))
        .await;
    assert_eq!(retried.data()["holdSeats"]["items"][0]["quantity"], 2);
    let later = boxoffice::store::now() + chrono::Duration::hours(1);
    boxoffice::concessions::settle_stock(
        &sale.app.store,
        boxoffice::assembly::stock_reconciler(),
        later,
    )
    .await
    .unwrap();
    let db = mongodb::Client::with_uri_str(database.uri())
        .await
        .unwrap()
        .database(sale.app.store.database_name());
    let product = db
        .collection::<bson::Document>("products")
        .find_one(bson::doc! {})
        .await
        .unwrap()
        .unwrap();
    assert_eq!(product.get_i64("stock").unwrap(), 8);
    assert_eq!(product.get_array("pending").unwrap().len(), 1, "{product}");
    assert_eq!(sale.inventory().await.holds.len(), 1);
}
