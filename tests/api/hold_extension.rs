//! `extendHold`: a buyer's hold lasts longer, once, up to a bound; its seats stay HELD past
//! the first expiry and are freed on time at the new one; racing extensions extend it once.

use std::sync::Arc;
use std::time::Duration;

use boxoffice::domain::seat::SeatState;
use boxoffice::holds::rules::HoldPolicy;
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use crate::live_client::LiveClient;
use crate::sale::{sale, sale_with, Sale};

pub const EXTEND: &str = "mutation ($id: ID!, $key: String) {
    extendHold(holdId: $id, idempotencyKey: $key) { id expiresAt extended status seats { label } } }";
const HOLD_READ: &str = "query ($id: ID!) { hold(id: $id) { expiresAt extended } }";

pub fn time(value: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(value.as_str().expect("a date-time"))
        .unwrap()
        .to_utc()
}

/// Holds `seats` as maoyan; returns the hold's id and expiry.
pub async fn hold(sale: &Sale, seats: &[&str]) -> (Value, DateTime<Utc>) {
    let placed = sale.hold(&sale.maoyan, seats).await;
    let placed = &placed.data()["holdSeats"];
    (placed["id"].clone(), time(&placed["expiresAt"]))
}

fn policy(ttl: Duration, extension: Duration) -> HoldPolicy {
    HoldPolicy {
        max_seats: 6,
        ttl,
        extension,
    }
}

#[tokio::test]
async fn a_hold_is_extended_once_by_the_extension_and_keeps_its_seats() {
    let sale = sale().await;
    let (id, expires_at) = hold(&sale, &["A1", "A2"]).await;
    let before = sale.inventory().await;

    sale.app.store.commands().start();
    let extended = sale
        .app
        .graphql_as(&sale.maoyan, EXTEND, json!({ "id": id }))
        .await;
    let sent = crate::round_trips::names(&sale.app.store.commands().take());
    assert_eq!(
        sent,
        [
            "find seat_inventory",
            "find showtimes",
            "update seat_inventory"
        ],
        "two reads side by side, one conditional update"
    );
    let extended = &extended.data()["extendHold"];
    assert_eq!(extended["id"], id);
    assert_eq!(
        time(&extended["expiresAt"]),
        expires_at + chrono::Duration::minutes(5),
        "the default extension: five minutes"
    );
    assert_eq!(
        (&extended["extended"], &extended["status"]),
        (&json!(true), &json!("ACTIVE"))
    );
    assert_eq!(
        extended["seats"],
        json!([{ "label": "A1" }, { "label": "A2" }])
    );

    let after = sale.inventory().await;
    assert_eq!(after.counts, before.counts, "no seat moved");
    assert_eq!(after.version, before.version, "the seat map did not change");
    let read = sale
        .app
        .graphql_as(&sale.maoyan, HOLD_READ, json!({ "id": id }))
        .await;
    assert_eq!(read.data()["hold"]["expiresAt"], extended["expiresAt"]);
    assert_eq!(read.data()["hold"]["extended"], true);

    // Once only; only its own channel; well-formed ids.
    let again = sale
        .app
        .graphql_as(&sale.maoyan, EXTEND, json!({ "id": id }))
        .await;
    assert_eq!(again.error_code(), "BAD_USER_INPUT");
    assert!(
        again.error_message().contains("at most once"),
        "{}",
        again.error_message()
    );
    let other = sale
        .app
        .graphql_as(&sale.wechat, EXTEND, json!({ "id": id }))
        .await;
    assert_eq!(other.error_code(), "NOT_FOUND");
    let anonymous = sale.app.graphql(EXTEND, json!({ "id": id })).await;
    assert_eq!(anonymous.error_code(), "UNAUTHENTICATED");
    let malformed = sale
        .app
        .graphql_as(&sale.maoyan, EXTEND, json!({ "id": "nonsense" }))
        .await;
    assert_eq!(malformed.error_code(), "BAD_USER_INPUT");
    assert_eq!(
        sale.inventory().await.holds[0].expires_at,
        time(&extended["expiresAt"]),
        "refusals changed nothing"
    );

    // An extended hold is confirmed like any other; then there is nothing to extend.
    let order = sale.confirm(&sale.maoyan, &id).await;
    assert_eq!(order.data()["confirmHold"]["status"], "CONFIRMED");
    let gone = sale
        .app
        .graphql_as(&sale.maoyan, EXTEND, json!({ "id": id }))
        .await;
    assert_eq!(gone.error_code(), "NOT_FOUND");
    sale.check_invariants().await;
}

#[tokio::test]
async fn an_extension_never_reaches_past_the_start_and_an_expired_hold_is_not_extended() {
    let sale = sale_with(policy(
        Duration::from_millis(400),
        Duration::from_secs(30 * 24 * 3600),
    ))
    .await;
    let (id, _) = hold(&sale, &["A1"]).await;
    let extended = sale
        .app
        .graphql_as(&sale.maoyan, EXTEND, json!({ "id": id }))
        .await;
    let starts_at = sale.inventory().await.starts_at;
    assert_eq!(
        time(&extended.data()["extendHold"]["expiresAt"]),
        starts_at,
        "a month's extension ends at the showtime's start"
    );

    let (lapsing, _) = hold(&sale, &["A2"]).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    let late = sale
        .app
        .graphql_as(&sale.maoyan, EXTEND, json!({ "id": lapsing }))
        .await;
    assert_eq!(late.error_code(), "HOLD_EXPIRED");
    let inventory = sale.inventory().await;
    let lapsed = inventory.holds.iter().find(|h| h.seats == ["A2"]).unwrap();
    assert_eq!(lapsed.extended_by, None, "the refusal changed nothing");
}

#[tokio::test]
async fn an_extended_hold_outlives_its_first_expiry_and_is_freed_on_time_at_its_new_one() {
    let sale = sale_with(policy(Duration::from_secs(1), Duration::from_secs(1))).await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    client.watch_seat_map("1", &sale.showtime).await;
    let (id, first_expiry) = hold(&sale, &["A5", "A6"]).await;
    assert_eq!(client.event("1").await["counts"]["held"], 2);
    let extended = sale
        .app
        .graphql_as(&sale.maoyan, EXTEND, json!({ "id": id }))
        .await;
    let new_expiry = time(&extended.data()["extendHold"]["expiresAt"]);
    assert_eq!(new_expiry, first_expiry + chrono::Duration::seconds(1));

    // Past the first expiry, by more than the on-time expirer's retries take.
    let wait = (first_expiry - Utc::now()).to_std().unwrap_or_default();
    tokio::time::sleep(wait + Duration::from_millis(400)).await;
    assert_eq!(
        sale.states(&["A5", "A6"]).await,
        [SeatState::Held, SeatState::Held],
        "still held after the first expiry"
    );
    // No sweeper runs in the tests' gateways: the on-time expiry frees them at the new one.
    let freed = client.event("1").await;
    let late = Utc::now() - new_expiry;
    assert_eq!(freed["counts"]["available"], 6 + 6 + 4);
    assert!(
        late >= chrono::Duration::zero(),
        "freed {late} before its expiry"
    );
    assert!(
        late < chrono::Duration::seconds(1),
        "freed {late} after its expiry"
    );
    let confirm = sale.confirm(&sale.maoyan, &id).await;
    assert_eq!(confirm.error_code(), "HOLD_EXPIRED");
    sale.check_invariants().await;
}

#[tokio::test]
async fn many_extensions_of_one_hold_at_once_on_two_gateways_extend_it_once() {
    let sale = Arc::new(sale().await);
    let other = Arc::new(sale.app.another_gateway().await);
    for round in 0..3 {
        let seat = format!("B{}", round + 1);
        let (id, expires_at) = hold(&sale, &[seat.as_str()]).await;
        let tasks: Vec<_> = (0..16)
            .map(|i| {
                let (sale, other, id) = (Arc::clone(&sale), Arc::clone(&other), id.clone());
                tokio::spawn(async move {
                    let gateway = if i % 2 == 0 { &sale.app } else { &*other };
                    let answer = gateway
                        .graphql_as(&sale.maoyan, EXTEND, json!({ "id": id }))
                        .await;
                    match answer.0.get("errors") {
                        None => Ok(time(&answer.data()["extendHold"]["expiresAt"])),
                        Some(_) => Err(answer.error_code().to_owned()),
                    }
                })
            })
            .collect();
        let mut extended = Vec::new();
        for task in tasks {
            match task.await.unwrap() {
                Ok(until) => extended.push(until),
                Err(code) => assert_eq!(code, "BAD_USER_INPUT", "round {round}"),
            }
        }
        let until = expires_at + chrono::Duration::minutes(5);
        assert_eq!(extended, [until], "round {round}: one extension");
        let inventory = sale.inventory().await;
        let stored = inventory.holds.iter().find(|h| h.seats == [seat.clone()]);
        assert_eq!(stored.unwrap().expires_at, until, "moved once");
    }
    sale.check_invariants().await;
}

#[tokio::test]
async fn an_extension_racing_a_confirmation_or_a_release_never_keeps_seats_held() {
    let sale = Arc::new(sale().await);
    let other = Arc::new(sale.app.another_gateway().await);
    let release = "mutation ($id: ID!) { releaseHold(holdId: $id) }";
    for round in 0..6 {
        let seat = format!("A{}", round + 1);
        let (id, _) = hold(&sale, &[seat.as_str()]).await;
        let ends = {
            let (sale, id) = (Arc::clone(&sale), id.clone());
            tokio::spawn(async move {
                if round % 2 == 0 {
                    let order = sale.confirm(&sale.maoyan, &id).await;
                    order.data()["confirmHold"]["status"].clone()
                } else {
                    let released = sale
                        .app
                        .graphql_as(&sale.maoyan, release, json!({ "id": id }))
                        .await;
                    released.data()["releaseHold"].clone()
                }
            })
        };
        let extends = {
            let (sale, other, id) = (Arc::clone(&sale), Arc::clone(&other), id.clone());
            tokio::spawn(async move {
                other
                    .graphql_as(&sale.maoyan, EXTEND, json!({ "id": id }))
                    .await
            })
        };
        let ended = ends.await.unwrap();
        let extension = extends.await.unwrap();
        if round % 2 == 0 {
            assert_eq!(ended, "CONFIRMED", "round {round}");
        } else {
            assert_eq!(ended, json!([seat]), "round {round}");
        }
        if extension.0.get("errors").is_some() {
            assert_eq!(extension.error_code(), "NOT_FOUND", "round {round}");
        }
        let inventory = sale.inventory().await;
        assert!(
            inventory.holds.is_empty(),
            "round {round}: {:?}",
            inventory.holds
        );
        assert_eq!(inventory.counts.held, 0, "round {round}");
    }
    let inventory = sale.inventory().await;
    assert_eq!(inventory.counts.sold, 3);
    sale.check_invariants().await;
    sale.check_orders_agree_with_seats().await;
}
