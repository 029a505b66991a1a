//! Cheap refusals (issue 48): a hold of seats this gateway just saw taken is refused on that
//! view, before its key is claimed: no command without a key, the key's record alone with
//! one. And what the view may not hide: this gateway's own releases (counted in it), holds
//! that expire, and (after `SEEN_FOR`) another gateway's releases.

use std::sync::Arc;
use std::time::Duration;

use boxoffice::config::{BookingArgs, Limits};
use boxoffice::holds::{ShowtimeLocks, SEEN_FOR};
use boxoffice::AppState;
use serde_json::{json, Value};

use crate::helpers::{GqlResponse, TestApp};
use crate::round_trips::names;
use crate::sale::{sale_on, Sale, HOLD};

const RELEASE: &str = "mutation ($id: ID!) { releaseHold(holdId: $id) }";

/// A gateway whose views refuse for ten minutes: the counts below do not depend on how fast
/// the machine runs.
fn views_kept_long(state: AppState) -> AppState {
    AppState {
        showtime_locks: Arc::new(ShowtimeLocks::with_views_kept_for(Duration::from_secs(600))),
        ..state
    }
}

/// The same, with holds of 2 seconds.
fn views_kept_long_holds_short(state: AppState) -> AppState {
    let mut policy = BookingArgs::default().hold_policy();
    policy.ttl = Duration::from_secs(2);
    AppState {
        hold_policy: policy,
        ..views_kept_long(state)
    }
}

/// Holds `input`'s seats as `key`; the answer and the commands it sent, sorted.
async fn hold_counting(sale: &Sale, key: &str, input: Value) -> (GqlResponse, Vec<String>) {
    let mut input = input;
    input["showtimeId"] = json!(sale.showtime);
    sale.app.store.commands().start();
    let response = (sale.app)
        .graphql_as(key, HOLD, json!({ "input": input }))
        .await;
    let commands = sale.app.store.commands().take();
    (response, names(&commands))
}

fn all_four(sale: &Sale) -> Value {
    json!({ "showtimeId": sale.showtime, "best": { "count": 4 } })
}

#[tokio::test]
async fn a_hold_of_seats_the_gateway_just_saw_taken_costs_no_command_or_only_its_keys_record() {
    let app = TestApp::spawn_configured(Limits::default(), views_kept_long).await;
    let sale = sale_on(app, &["SSSS"]).await;
    // Each channel's API key is looked up once, then remembered.
    for key in [&sale.maoyan, &sale.wechat] {
        sale.app
            .graphql_as(key, "{ __typename }", json!({}))
            .await
            .data();
    }
    let (held, _) = hold_counting(&sale, &sale.maoyan, all_four(&sale)).await;
    let hold = held.data()["holdSeats"]["id"].clone();

    let (best, commands) =
        hold_counting(&sale, &sale.maoyan, json!({ "best": { "count": 2 } })).await;
    assert_eq!(best.error_code(), "SEAT_UNAVAILABLE");
    assert_eq!(
        commands,
        Vec::<String>::new(),
        "refused on the view, no command"
    );

    let named = json!({ "seats": ["A2", "A3"] });
    let (refused, commands) = hold_counting(&sale, &sale.wechat, named).await;
    assert_eq!(refused.error_code(), "SEAT_UNAVAILABLE");
    assert_eq!(
        refused.errors()[0]["extensions"]["seats"],
        json!(["A2", "A3"])
    );
    assert_eq!(commands, Vec::<String>::new());

    let keyed = json!({ "best": { "count": 1 }, "idempotencyKey": "k-1" });
    let (first, commands) = hold_counting(&sale, &sale.maoyan, keyed.clone()).await;
    assert_eq!(first.error_code(), "SEAT_UNAVAILABLE");
    assert_eq!(
        commands,
        ["insert idempotency_keys"],
        "the key's record, nothing else"
    );
    let (again, _) = hold_counting(&sale, &sale.maoyan, keyed).await;
    assert_eq!(
        again.errors(),
        first.errors(),
        "a replay gets the first answer"
    );

    // The gateway's own release counts in the view at once: it goes on refusing what it
    // still cannot serve (5 seats of 4), with no command, and serves what it now can.
    let released = (sale.app)
        .graphql_as(&sale.maoyan, RELEASE, json!({ "id": hold }))
        .await;
    assert_eq!(released.data()["releaseHold"].as_array().unwrap().len(), 4);
    let five = json!({ "best": { "count": 5 } });
    let (refused, commands) = hold_counting(&sale, &sale.wechat, five).await;
    assert_eq!(refused.error_code(), "SEAT_UNAVAILABLE");
    assert_eq!(
        commands,
        Vec::<String>::new(),
        "the view outlived the release"
    );
    let (held, _) = hold_counting(&sale, &sale.wechat, json!({ "best": { "count": 2 } })).await;
    assert_eq!(
        held.data()["holdSeats"]["seats"].as_array().unwrap().len(),
        2
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_view_stops_refusing_when_a_hold_it_shows_expires() {
    let app = TestApp::spawn_configured(Limits::default(), views_kept_long_holds_short).await;
    let sale = sale_on(app, &["SSSS"]).await;
    let (held, _) = hold_counting(&sale, &sale.maoyan, all_four(&sale)).await;
    held.data();
    let (refused, _) = hold_counting(&sale, &sale.wechat, json!({ "best": { "count": 2 } })).await;
    assert_eq!(refused.error_code(), "SEAT_UNAVAILABLE");
    // Past the hold's expiry its seats are free to the next hold, though the view would
    // otherwise refuse for ten minutes more.
    tokio::time::sleep(Duration::from_millis(2_300)).await;
    let (held, _) = hold_counting(&sale, &sale.wechat, json!({ "best": { "count": 2 } })).await;
    assert_eq!(
        held.data()["holdSeats"]["seats"].as_array().unwrap().len(),
        2
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn seats_another_gateway_freed_are_held_here_once_the_view_has_lapsed() {
    let sale = crate::sale::sale_in_hall(BookingArgs::default().hold_policy(), &["SSSS"]).await;
    let other = sale.app.another_gateway().await;
    let (held, _) = hold_counting(&sale, &sale.maoyan, all_four(&sale)).await;
    let hold = held.data()["holdSeats"]["id"].clone();
    let released = other
        .graphql_as(&sale.maoyan, RELEASE, json!({ "id": hold }))
        .await;
    assert_eq!(released.data()["releaseHold"].as_array().unwrap().len(), 4);
    // This gateway could not see that release: its view may refuse for SEEN_FOR, no longer.
    tokio::time::sleep(SEEN_FOR + Duration::from_millis(50)).await;
    let (held, _) = hold_counting(&sale, &sale.wechat, json!({ "best": { "count": 2 } })).await;
    assert_eq!(
        held.data()["holdSeats"]["seats"].as_array().unwrap().len(),
        2
    );
    sale.check_invariants().await;
}
