//! `extendHold` under faults: a stalled first attempt taken over on a second gateway, a crash
//! after the write, a killed gateway process, a frozen database. One key, one extension, one
//! answer: the expiry moves by the extension exactly once.

use std::time::{Duration, Instant};

use boxoffice::store::{CrashPoint, PausePoint};
use serde_json::json;

use crate::fencing::{stalled_first_and_retry, two_gateways, LEASE};
use crate::helpers::mongodb_uri;
use crate::hold_extension::{hold, time, EXTEND};
use crate::processes::GatewayProcess;

const FIVE_MINUTES: chrono::TimeDelta = chrono::TimeDelta::minutes(5);

#[tokio::test]
async fn a_stalled_first_extension_and_its_retry_extend_once_and_answer_alike() {
    let (sale, other) = two_gateways().await;
    let (id, expires_at) = hold(&sale, &["A1", "A2"]).await;
    let variables = json!({ "id": id, "key": "longer-1" });
    let (late, retry, waited) =
        stalled_first_and_retry(&sale, &other, PausePoint::AfterClaim, EXTEND, variables).await;
    assert!(
        waited >= LEASE / 2,
        "the retry waited for the lease: {waited:?}"
    );
    assert_eq!(late.data(), retry.data(), "one key, one answer");
    assert_eq!(
        time(&retry.data()["extendHold"]["expiresAt"]),
        expires_at + FIVE_MINUTES
    );
    let inventory = sale.inventory().await;
    assert_eq!(
        inventory.holds[0].expires_at,
        expires_at + FIVE_MINUTES,
        "moved once"
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn an_extension_retried_after_a_crash_answers_the_extension_that_was_made() {
    let (sale, _other) = two_gateways().await;
    let (id, expires_at) = hold(&sale, &["B1"]).await;
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::ExtendAfterWrite);
    let variables = json!({ "id": id, "key": "longer-2" });
    let crashed = sale
        .app
        .graphql_as(&sale.maoyan, EXTEND, variables.clone())
        .await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    let until = expires_at + FIVE_MINUTES;
    assert_eq!(
        sale.inventory().await.holds[0].expires_at,
        until,
        "written before the crash"
    );

    let retried = sale
        .app
        .graphql_as(&sale.maoyan, EXTEND, variables.clone())
        .await;
    assert_eq!(time(&retried.data()["extendHold"]["expiresAt"]), until);
    let again = sale.app.graphql_as(&sale.maoyan, EXTEND, variables).await;
    assert_eq!(again.data(), retried.data(), "replayed");
    let unkeyed = sale
        .app
        .graphql_as(&sale.maoyan, EXTEND, json!({ "id": id }))
        .await;
    assert_eq!(
        unkeyed.error_code(),
        "BAD_USER_INPUT",
        "another request: once only"
    );
    assert_eq!(
        sale.inventory().await.holds[0].expires_at,
        until,
        "moved once"
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn an_extension_whose_gateway_was_killed_after_the_write_is_answered_by_another() {
    let (sale, _other) = two_gateways().await;
    let (id, expires_at) = hold(&sale, &["C1", "C2"]).await;
    let mut process = GatewayProcess::start_with_env(
        &mongodb_uri(),
        sale.app.store.database_name(),
        &["--key-lease-ms", "800"],
        &[("BOXOFFICE_TEST_DELAY_AFTER_EXTEND_MS", "60000")],
    );
    let variables = json!({ "id": id, "key": "longer-3" });
    let request = process.post_in_background(&sale.maoyan, EXTEND, variables.clone());
    let started = Instant::now();
    while sale.inventory().await.holds[0].extended_by.is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never extended"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    process.kill();
    assert!(
        request.await.unwrap().is_err(),
        "the killed gateway never answered"
    );

    let retried = sale.app.graphql_as(&sale.maoyan, EXTEND, variables).await;
    let until = expires_at + FIVE_MINUTES;
    assert_eq!(time(&retried.data()["extendHold"]["expiresAt"]), until);
    assert_eq!(
        sale.inventory().await.holds[0].expires_at,
        until,
        "moved once"
    );
    sale.check_invariants().await;
}
