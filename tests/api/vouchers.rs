//! Vouchers: operators make batches of codes (shown once, stored hashed, the same codes on a
//! retry), channels redeem them in `holdSeats`, and each redemption counts exactly once: a
//! hold reserves it, a release, an expiry or a whole refund gives it back, a confirmation
//! makes it final, and no more than the cap are ever taken.

use std::time::Duration;

use boxoffice::config::BookingArgs;
use boxoffice::holds::rules::HoldPolicy;
use boxoffice::store::CrashPoint;
use chrono::Utc;
use futures::TryStreamExt;
use serde_json::{json, Value};

use crate::helpers::GqlResponse;
use crate::orders::CANCEL;
use crate::refunds::CANCEL_SEATS;
use crate::sale::{sale, sale_with, Sale};

pub const CREATE: &str = "mutation ($input: CreateVoucherBatchInput!) {
    createVoucherBatch(input: $input) { codes batch { id name prefix codeCount
    effect { kind amount percent ticketType } maxRedemptions maxPerCustomer enabled
    reserved redeemed } } }";
const BATCHES: &str = "query { voucherBatches { id name codeCount reserved redeemed enabled } }";
const DISABLE: &str = "mutation ($id: ID!) { disableVoucherBatch(id: $id) { id enabled } }";
pub const HOLD: &str = "mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) {
    id total { amount } discount { amount } seats { label price { amount } } } }";
const CONFIRM: &str = "mutation ($hold: ID!) { confirmHold(input: { holdId: $hold,
    customer: { name: \"张三\", contact: \"13800000000\" } }) {
    id status total { amount } discount { amount } seats { price { amount } } } }";
const RELEASE: &str = "mutation ($id: ID!) { releaseHold(holdId: $id) }";

/// A batch's input: `count` codes valid from an hour ago for a day, `max` redemptions each.
pub fn batch(effect: Value, count: i64, max: i64) -> Value {
    let now = Utc::now();
    json!({
        "name": "双十二",
        "count": count,
        "effect": effect,
        "validFrom": (now - chrono::Duration::hours(1)).to_rfc3339(),
        "validUntil": (now + chrono::Duration::days(1)).to_rfc3339(),
        "maxRedemptions": max,
    })
}

/// The platform operator's key on the sale's database.
pub async fn platform(sale: &Sale) -> String {
    sale.app.operator_key("platform", None).await
}

/// Makes a batch as `operator`; returns its id and codes.
pub async fn make(sale: &Sale, operator: &str, input: Value) -> (String, Vec<String>) {
    let made = sale
        .app
        .graphql_as(operator, CREATE, json!({ "input": input }))
        .await;
    let created = &made.data()["createVoucherBatch"];
    let codes = created["codes"].as_array().unwrap();
    let codes = codes
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    (created["batch"]["id"].as_str().unwrap().to_owned(), codes)
}

/// One code of a new batch of `max` redemptions with `effect`.
pub async fn one_code(sale: &Sale, operator: &str, effect: Value, max: i64) -> String {
    make(sale, operator, batch(effect, 1, max))
        .await
        .1
        .remove(0)
}

/// Holds `seats` with voucher `code` (and `customer`, when given) as channel `key`.
pub async fn hold_with(
    sale: &Sale,
    key: &str,
    seats: &[&str],
    code: &str,
    customer: Option<&str>,
) -> GqlResponse {
    let mut input = json!({ "showtimeId": sale.showtime, "seats": seats, "voucher": code });
    if let Some(customer) = customer {
        input["customerId"] = json!(customer);
    }
    sale.app
        .graphql_as(key, HOLD, json!({ "input": input }))
        .await
}

/// (reserved, redeemed) of batch `id`, as its operator lists it.
pub async fn counts(sale: &Sale, operator: &str, id: &str) -> (i64, i64) {
    let listed = sale.app.graphql_as(operator, BATCHES, json!({})).await;
    let batches = listed.data()["voucherBatches"].as_array().unwrap().clone();
    let batch = batches.iter().find(|b| b["id"] == id).expect("listed");
    (
        batch["reserved"].as_i64().unwrap(),
        batch["redeemed"].as_i64().unwrap(),
    )
}

fn reason(response: &GqlResponse) -> String {
    assert_eq!(response.error_code(), "VOUCHER_REFUSED", "{:#}", response.0);
    response.errors()[0]["extensions"]["reason"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Every document of every collection of the sale's database, as extended JSON text.
async fn whole_database(sale: &Sale) -> String {
    let db = mongodb::Client::with_uri_str(crate::helpers::mongodb_uri())
        .await
        .unwrap()
        .database(sale.app.store.database_name());
    let mut text = String::new();
    for name in db.list_collection_names().await.unwrap() {
        let docs: Vec<bson::Document> = db
            .collection::<bson::Document>(&name)
            .find(bson::doc! {})
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        for doc in docs {
            text.push_str(&bson::Bson::Document(doc).into_relaxed_extjson().to_string());
        }
    }
    text
}

#[tokio::test]
async fn a_batch_shows_its_codes_once_stores_none_and_a_retry_shows_the_same() {
    let sale = sale().await;
    let operator = platform(&sale).await;
    let mut input = batch(json!({ "percentOff": 10 }), 200, 5);
    input["prefix"] = json!("sum-mer");
    input["idempotencyKey"] = json!("batch-1");
    let (id, codes) = make(&sale, &operator, input.clone()).await;
    assert_eq!(codes.len(), 200);
    let distinct: std::collections::HashSet<&String> = codes.iter().collect();
    assert_eq!(distinct.len(), 200, "every code its own");
    for code in &codes {
        assert!(code.starts_with("SUMMER") && code.len() == 18, "{code}");
    }
    let (again, same) = make(&sale, &operator, input).await;
    assert_eq!(
        (again, same),
        (id.clone(), codes.clone()),
        "the retry's answer"
    );
    // Made once, and recorded once in the audit log.
    let audit = sale
        .app
        .graphql_as(
            &operator,
            "{ auditLog(first: 20) { edges { node { operation subject } } } }",
            json!({}),
        )
        .await;
    let entries = audit.data()["auditLog"]["edges"]
        .as_array()
        .unwrap()
        .clone();
    let made: Vec<&Value> = entries
        .iter()
        .filter(|e| e["node"]["operation"] == "createVoucherBatch")
        .collect();
    assert_eq!(made.len(), 1, "{entries:?}");
    assert_eq!(made[0]["node"]["subject"], id.as_str());
    // Nothing in the database is a code: not the codes' documents, not the key's record, not
    // the audit log.
    let everything = whole_database(&sale).await;
    for code in &codes {
        assert!(!everything.contains(code.as_str()), "{code} is stored");
        assert!(!everything.contains(&code[6..]), "{code} is stored");
    }
    let listed = sale.app.graphql_as(&operator, BATCHES, json!({})).await;
    assert_eq!(
        listed.data()["voucherBatches"],
        json!([{ "id": id, "name": "双十二", "codeCount": 200, "reserved": 0,
                 "redeemed": 0, "enabled": true }])
    );
    // Another operator does not see it.
    let other = sale
        .app
        .operator_key("other", Some(std::slice::from_ref(&sale.cinema)))
        .await;
    let theirs = sale.app.graphql_as(&other, BATCHES, json!({})).await;
    assert_eq!(theirs.data()["voucherBatches"], json!([]));
}

#[tokio::test]
async fn bad_batches_are_refused_with_a_code_and_make_nothing() {
    let sale = sale().await;
    let operator = platform(&sale).await;
    let chain = sale.app.operator_key("chain", Some(&[])).await;
    let with = |change: Value| {
        let mut input = batch(json!({ "amountOff": 500 }), 10, 5);
        for (field, value) in change.as_object().unwrap() {
            input[field] = value.clone();
        }
        input
    };
    let now = Utc::now();
    for (input, code) in [
        (with(json!({ "count": 0 })), "BAD_USER_INPUT"),
        (with(json!({ "count": 10_001 })), "BAD_USER_INPUT"),
        (with(json!({ "prefix": "SPRING" })), "BAD_USER_INPUT"),
        (with(json!({ "prefix": "ABCDEFGHJ" })), "BAD_USER_INPUT"),
        (with(json!({ "name": "x".repeat(81) })), "BAD_USER_INPUT"),
        (with(json!({ "maxRedemptions": 0 })), "BAD_USER_INPUT"),
        (
            with(json!({ "maxPerCustomer": 21, "maxRedemptions": 100 })),
            "BAD_USER_INPUT",
        ),
        (
            with(json!({ "effect": { "percentOff": 101 } })),
            "BAD_USER_INPUT",
        ),
        (
            with(json!({ "effect": { "amountOff": 0 } })),
            "BAD_USER_INPUT",
        ),
        (
            with(json!({ "effect": { "amountOff": 100, "percentOff": 10 } })),
            "BAD_USER_INPUT",
        ),
        (
            with(json!({ "validUntil": (now - chrono::Duration::days(2)).to_rfc3339() })),
            "BAD_USER_INPUT",
        ),
        (
            with(json!({ "validUntil": (now + chrono::Duration::days(400)).to_rfc3339() })),
            "BAD_USER_INPUT",
        ),
        (
            with(json!({ "cinemaId": sale.cinema, "movieId": sale.cinema })),
            "BAD_USER_INPUT",
        ),
        (
            with(json!({ "movieId": crate::fixtures::global_id("Movie", [9u8; 12]) })),
            "NOT_FOUND",
        ),
    ] {
        let refused = sale
            .app
            .graphql_as(&operator, CREATE, json!({ "input": input }))
            .await;
        assert_eq!(refused.error_code(), code, "{input}");
    }
    // A chain may not make vouchers for another's cinema or showtime; a channel none at all.
    for narrowed in [
        json!({ "cinemaId": sale.cinema }),
        json!({ "showtimeId": sale.showtime }),
    ] {
        let refused = sale
            .app
            .graphql_as(&chain, CREATE, json!({ "input": with(narrowed) }))
            .await;
        assert_eq!(refused.error_code(), "FORBIDDEN");
    }
    let channel = sale
        .app
        .graphql_as(&sale.maoyan, CREATE, json!({ "input": with(json!({})) }))
        .await;
    assert_eq!(channel.error_code(), "FORBIDDEN");
    for collection in ["voucher_batches", "voucher_codes"] {
        let n = crate::catalogue_writes::count(&sale.app, collection).await;
        assert_eq!(n, 0, "{collection}");
    }
}

#[tokio::test]
async fn a_voucher_prices_each_seat_and_the_order_keeps_the_price() {
    let sale = sale().await;
    let operator = platform(&sale).await;
    // ¥40 on maoyan: 33% off is 13.20 off each seat.
    for (effect, each) in [
        (json!({ "percentOff": 33 }), 2_680),
        (json!({ "amountOff": 1_500 }), 2_500),
        (json!({ "amountOff": 9_000 }), 0),
        (json!({ "fixedPrice": 1_990 }), 1_990),
        (json!({ "fixedPrice": 5_000 }), 4_000),
    ] {
        let code = one_code(&sale, &operator, effect.clone(), 5).await;
        let held = hold_with(&sale, &sale.maoyan, &["A1", "A2"], &code, None).await;
        let hold = &held.data()["holdSeats"];
        assert_eq!(hold["total"]["amount"], 2 * each, "{effect}");
        assert_eq!(hold["discount"]["amount"], 2 * (4_000 - each), "{effect}");
        for seat in hold["seats"].as_array().unwrap() {
            assert_eq!(seat["price"]["amount"], each, "{effect}");
        }
        let release = json!({ "id": hold["id"] });
        sale.app
            .graphql_as(&sale.maoyan, RELEASE, release)
            .await
            .data();
    }
    // The code is read as typed, in lower case with dashes too.
    let (batch_id, codes) = make(&sale, &operator, batch(json!({ "percentOff": 33 }), 1, 5)).await;
    let typed = codes[0].to_lowercase();
    let typed = format!("{}-{}", &typed[..6], &typed[6..]);
    let held = hold_with(&sale, &sale.wechat, &["B1"], &typed, None).await;
    let hold = held.data()["holdSeats"]["id"].clone();
    // ¥38 on wechat: 33% is 12.54 off.
    let confirmed = sale
        .app
        .graphql_as(&sale.wechat, CONFIRM, json!({ "hold": hold }))
        .await;
    let order = &confirmed.data()["confirmHold"];
    assert_eq!(order["status"], "CONFIRMED");
    assert_eq!(order["total"]["amount"], 2_546);
    assert_eq!(order["discount"]["amount"], 1_254);
    assert_eq!(counts(&sale, &operator, &batch_id).await, (0, 1));
    // Sales figures count what was paid.
    boxoffice::sales::project_sales(&sale.app.store)
        .await
        .unwrap();
    let figures = sale
        .app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { movie { sales { revenue { amount } } } } }",
            json!({ "id": sale.showtime }),
        )
        .await;
    assert_eq!(
        figures.data()["showtime"]["movie"]["sales"]["revenue"]["amount"],
        2_546
    );
}

#[tokio::test]
async fn a_voucher_is_refused_with_its_reason_and_the_refusal_changes_nothing() {
    let sale = sale().await;
    let operator = platform(&sale).await;
    let off = json!({ "amountOff": 100 });
    let later = {
        let mut input = batch(off.clone(), 1, 5);
        input["validFrom"] = json!((Utc::now() + chrono::Duration::hours(1)).to_rfc3339());
        make(&sale, &operator, input).await.1.remove(0)
    };
    // A chain's voucher is for its own cinemas only (this chain has none).
    let chain = sale.app.operator_key("chain", Some(&[])).await;
    let elsewhere = make(&sale, &chain, batch(off.clone(), 1, 5))
        .await
        .1
        .remove(0);
    let here = {
        let mut input = batch(off.clone(), 1, 5);
        input["showtimeId"] = json!(sale.showtime);
        make(&sale, &operator, input).await.1.remove(0)
    };
    let (disabled_batch, mut disabled) = make(&sale, &operator, batch(off.clone(), 1, 5)).await;
    let disabled = disabled.remove(0);
    let done = sale
        .app
        .graphql_as(&operator, DISABLE, json!({ "id": disabled_batch }))
        .await;
    assert_eq!(done.data()["disableVoucherBatch"]["enabled"], false);
    let per_customer = {
        let mut input = batch(off.clone(), 1, 5);
        input["maxPerCustomer"] = json!(1);
        make(&sale, &operator, input).await.1.remove(0)
    };
    for (code, expected) in [
        ("ABCDEFGH2345", "UNKNOWN"),
        (later.as_str(), "NOT_YET_VALID"),
        (disabled.as_str(), "DISABLED"),
        (per_customer.as_str(), "CUSTOMER_NEEDED"),
        (elsewhere.as_str(), "OUT_OF_SCOPE"),
    ] {
        let refused = hold_with(&sale, &sale.maoyan, &["A1"], code, None).await;
        assert_eq!(reason(&refused), expected, "{code}");
    }
    // A voucher narrowed to this showtime is good here.
    hold_with(&sale, &sale.maoyan, &["A6"], &here, None)
        .await
        .data();
    let not_a_code = hold_with(&sale, &sale.maoyan, &["A1"], "0000", None).await;
    assert_eq!(not_a_code.error_code(), "BAD_USER_INPUT");
    let long = "x".repeat(100_000);
    let huge = hold_with(&sale, &sale.maoyan, &["A1"], &long, None).await;
    assert_eq!(huge.error_code(), "BAD_USER_INPUT");
    assert_eq!(
        sale.states(&["A1"]).await,
        [boxoffice::domain::seat::SeatState::Available]
    );
}

#[tokio::test]
async fn the_caps_count_holds_and_a_release_gives_a_redemption_back() {
    let sale = sale().await;
    let operator = platform(&sale).await;
    let (batch_id, mut codes) =
        make(&sale, &operator, batch(json!({ "amountOff": 100 }), 1, 2)).await;
    let code = codes.remove(0);
    let first = hold_with(&sale, &sale.maoyan, &["A1"], &code, None).await;
    hold_with(&sale, &sale.wechat, &["A2"], &code, None)
        .await
        .data();
    assert_eq!(counts(&sale, &operator, &batch_id).await, (2, 0));
    let third = hold_with(&sale, &sale.maoyan, &["A3"], &code, None).await;
    assert_eq!(reason(&third), "USED_UP");
    let id = first.data()["holdSeats"]["id"].clone();
    sale.app
        .graphql_as(&sale.maoyan, RELEASE, json!({ "id": id }))
        .await
        .data();
    assert_eq!(counts(&sale, &operator, &batch_id).await, (1, 0));
    hold_with(&sale, &sale.maoyan, &["A3"], &code, None)
        .await
        .data();
    // A refused hold of seats that are taken gives its redemption back at once.
    let mut input = batch(json!({ "amountOff": 100 }), 1, 1);
    input["maxPerCustomer"] = json!(1);
    let (capped, mut codes) = make(&sale, &operator, input).await;
    let code = codes.remove(0);
    let taken = hold_with(&sale, &sale.maoyan, &["A1", "A2"], &code, Some("c-1")).await;
    assert_eq!(taken.error_code(), "SEAT_UNAVAILABLE");
    assert_eq!(counts(&sale, &operator, &capped).await, (0, 0));
    hold_with(&sale, &sale.maoyan, &["B1"], &code, Some("c-1"))
        .await
        .data();
    let again = hold_with(&sale, &sale.maoyan, &["B2"], &code, Some("c-1")).await;
    assert!(
        ["CUSTOMER_LIMIT", "USED_UP"].contains(&reason(&again).as_str()),
        "{:#}",
        again.0
    );
}

#[tokio::test]
async fn each_customer_has_its_own_cap_within_its_channel() {
    let sale = sale().await;
    let operator = platform(&sale).await;
    let mut input = batch(json!({ "amountOff": 100 }), 1, 10);
    input["maxPerCustomer"] = json!(2);
    let code = make(&sale, &operator, input).await.1.remove(0);
    hold_with(&sale, &sale.maoyan, &["A1"], &code, Some("alice"))
        .await
        .data();
    let second = hold_with(&sale, &sale.maoyan, &["A2"], &code, Some("alice")).await;
    let third = hold_with(&sale, &sale.maoyan, &["A3"], &code, Some("alice")).await;
    assert_eq!(reason(&third), "CUSTOMER_LIMIT");
    // Another customer, and the same id on another channel, are other customers.
    hold_with(&sale, &sale.maoyan, &["A3"], &code, Some("bob"))
        .await
        .data();
    hold_with(&sale, &sale.wechat, &["A4"], &code, Some("alice"))
        .await
        .data();
    // Released, alice's redemption is hers to use again.
    let id = second.data()["holdSeats"]["id"].clone();
    sale.app
        .graphql_as(&sale.maoyan, RELEASE, json!({ "id": id }))
        .await
        .data();
    hold_with(&sale, &sale.maoyan, &["A5"], &code, Some("alice"))
        .await
        .data();
}

#[tokio::test]
async fn an_expired_hold_gives_its_redemption_back() {
    let policy = HoldPolicy {
        ttl: Duration::from_secs(1),
        ..BookingArgs::default().hold_policy()
    };
    let sale = sale_with(policy).await;
    let operator = platform(&sale).await;
    let (batch_id, mut codes) =
        make(&sale, &operator, batch(json!({ "amountOff": 100 }), 1, 1)).await;
    let code = codes.remove(0);
    hold_with(&sale, &sale.maoyan, &["A1"], &code, None)
        .await
        .data();
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    // The sweeper's expiry gives it back.
    boxoffice::holds::sweep_expired_holds(&sale.app.store, &boxoffice::assembly::hold_endings())
        .await
        .unwrap();
    assert_eq!(counts(&sale, &operator, &batch_id).await, (0, 0));
    let held = hold_with(&sale, &sale.maoyan, &["A2"], &code, None).await;
    held.data();
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    // So does the expiry a next hold makes of the seats it takes.
    let next = hold_with(&sale, &sale.wechat, &["A2"], &code, None).await;
    assert_eq!(next.data()["holdSeats"]["seats"][0]["label"], "A2");
    assert_eq!(counts(&sale, &operator, &batch_id).await, (1, 0));
}

#[tokio::test]
async fn a_whole_refund_gives_the_redemption_back_and_a_partial_one_keeps_it() {
    let sale = sale().await;
    let operator = platform(&sale).await;
    let (batch_id, mut codes) =
        make(&sale, &operator, batch(json!({ "amountOff": 100 }), 1, 1)).await;
    let code = codes.remove(0);
    let held = hold_with(&sale, &sale.maoyan, &["A1", "A2"], &code, None).await;
    let hold = held.data()["holdSeats"]["id"].clone();
    let confirmed = sale
        .app
        .graphql_as(&sale.maoyan, CONFIRM, json!({ "hold": hold }))
        .await;
    let order = confirmed.data()["confirmHold"]["id"].clone();
    assert_eq!(counts(&sale, &operator, &batch_id).await, (0, 1));
    let partial = json!({ "id": order, "seats": ["A1"], "key": null });
    sale.app
        .graphql_as(&sale.maoyan, CANCEL_SEATS, partial)
        .await
        .data();
    assert_eq!(counts(&sale, &operator, &batch_id).await, (0, 1));
    let refused = hold_with(&sale, &sale.maoyan, &["B1"], &code, None).await;
    assert_eq!(reason(&refused), "USED_UP");
    sale.app
        .graphql_as(&sale.maoyan, CANCEL, json!({ "id": order }))
        .await
        .data();
    assert_eq!(counts(&sale, &operator, &batch_id).await, (0, 0));
    hold_with(&sale, &sale.maoyan, &["B1"], &code, None)
        .await
        .data();
}

#[tokio::test]
async fn a_hold_that_died_after_reserving_leaves_its_redemption_to_the_reconciler() {
    let sale = sale().await;
    let operator = platform(&sale).await;
    let (batch_id, mut codes) =
        make(&sale, &operator, batch(json!({ "amountOff": 100 }), 1, 1)).await;
    let code = codes.remove(0);
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::HoldAfterVoucherReserved);
    let crashed = hold_with(&sale, &sale.maoyan, &["A1"], &code, None).await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    assert_eq!(counts(&sale, &operator, &batch_id).await, (1, 0));
    let used_up = hold_with(&sale, &sale.maoyan, &["A2"], &code, None).await;
    assert_eq!(reason(&used_up), "USED_UP");
    // Before its check is due the reconciler leaves it; after, it fences the hold that was
    // never placed and gives the redemption back.
    let store = &sale.app.store;
    let now = boxoffice::store::now();
    assert_eq!(
        boxoffice::vouchers::settle_redemptions(
            store,
            boxoffice::assembly::orders_of_hold(),
            &boxoffice::assembly::hold_endings(),
            now
        )
        .await
        .unwrap(),
        0
    );
    let due = now + chrono::Duration::hours(1);
    assert_eq!(
        boxoffice::vouchers::settle_redemptions(
            store,
            boxoffice::assembly::orders_of_hold(),
            &boxoffice::assembly::hold_endings(),
            due
        )
        .await
        .unwrap(),
        1
    );
    assert_eq!(counts(&sale, &operator, &batch_id).await, (0, 0));
    assert_eq!(sale.inventory().await.fenced_holds.len(), 1);
    hold_with(&sale, &sale.maoyan, &["A2"], &code, None)
        .await
        .data();
    sale.check_invariants().await;
}

#[tokio::test]
async fn the_reconciler_redeems_a_confirmed_order_and_leaves_a_live_hold() {
    let sale = sale().await;
    let operator = platform(&sale).await;
    let (batch_id, mut codes) =
        make(&sale, &operator, batch(json!({ "amountOff": 100 }), 1, 5)).await;
    let code = codes.remove(0);
    let live = hold_with(&sale, &sale.maoyan, &["A1"], &code, None).await;
    live.data();
    let held = hold_with(&sale, &sale.maoyan, &["A2"], &code, None).await;
    let hold = held.data()["holdSeats"]["id"].clone();
    // The confirmation dies after the sale, before the order says CONFIRMED and before the
    // redemption is made final.
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::ConfirmAfterSell);
    let crashed = sale
        .app
        .graphql_as(&sale.maoyan, CONFIRM, json!({ "hold": hold }))
        .await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    assert_eq!(counts(&sale, &operator, &batch_id).await, (2, 0));
    let due = boxoffice::store::now() + chrono::Duration::hours(1);
    boxoffice::vouchers::settle_redemptions(
        &sale.app.store,
        boxoffice::assembly::orders_of_hold(),
        &boxoffice::assembly::hold_endings(),
        due,
    )
    .await
    .unwrap();
    // The live hold's redemption stays reserved; the sold one's order is PENDING, so it
    // waits for the orders' reconciler, whose confirmation redeems it.
    assert_eq!(counts(&sale, &operator, &batch_id).await, (2, 0));
    boxoffice::orders::settle_orders(&sale.app.store, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(counts(&sale, &operator, &batch_id).await, (1, 1));
}

#[tokio::test]
async fn the_largest_batch_is_made_and_every_code_redeems() {
    let sale = sale().await;
    let operator = platform(&sale).await;
    let started = std::time::Instant::now();
    let (id, codes) = make(
        &sale,
        &operator,
        batch(json!({ "amountOff": 100 }), 10_000, 1),
    )
    .await;
    println!("10,000 codes in {:?}", started.elapsed());
    assert_eq!(codes.len(), 10_000);
    let distinct: std::collections::HashSet<&String> = codes.iter().collect();
    assert_eq!(distinct.len(), 10_000);
    let stored = crate::catalogue_writes::count(&sale.app, "voucher_codes").await;
    assert_eq!(stored, 10_000);
    // The first and the last code each redeem.
    for (code, seat) in [(&codes[0], "A1"), (&codes[9_999], "A2")] {
        hold_with(&sale, &sale.maoyan, &[seat], code, None)
            .await
            .data();
    }
    assert_eq!(counts(&sale, &operator, &id).await, (2, 0));
}

#[tokio::test]
async fn a_hold_expired_on_time_for_a_watched_showtime_gives_its_redemption_back() {
    let policy = HoldPolicy {
        ttl: Duration::from_secs(1),
        ..BookingArgs::default().hold_policy()
    };
    let sale = sale_with(policy).await;
    let operator = platform(&sale).await;
    let (batch_id, mut codes) =
        make(&sale, &operator, batch(json!({ "amountOff": 100 }), 1, 1)).await;
    let code = codes.remove(0);
    let mut client = crate::live_client::LiveClient::connect(&sale.app, None).await;
    client.watch_seat_map("1", &sale.showtime).await;
    hold_with(&sale, &sale.maoyan, &["A1"], &code, None)
        .await
        .data();
    assert_eq!(client.event("1").await["counts"]["held"], 1);
    // No sweeper runs in the tests' gateways: the live hub expires it at `expiresAt`.
    assert_eq!(client.event("1").await["counts"]["held"], 0);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while counts(&sale, &operator, &batch_id).await != (0, 0) {
        assert!(std::time::Instant::now() < deadline, "never given back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Confirms with an idempotency key (for a retry that takes the key over).
const CONFIRM_WITH_KEY: &str = "mutation ($hold: ID!, $key: String) { confirmHold(input: {
    holdId: $hold, customer: { name: \"张三\", contact: \"13800000000\" }, idempotencyKey: $key })
    { id status } }";

/// Holds `seat` as maoyan with voucher `code` and 2 units of `product`; the hold's id.
async fn hold_carrying(sale: &Sale, seat: &str, code: &str, product: &str) -> Value {
    let input = json!({
        "showtimeId": sale.showtime,
        "seats": [seat],
        "voucher": code,
        "items": [{ "productId": product, "quantity": 2 }],
    });
    let held = sale
        .app
        .graphql_as(&sale.maoyan, HOLD, json!({ "input": input }))
        .await;
    held.data()["holdSeats"]["id"].clone()
}

/// Confirms `hold` under idempotency key `key`, stopped after its seats were sold: the order
/// is left PENDING, and nothing told of the sale.
async fn confirm_stopped_after_the_sale(sale: &Sale, hold: &Value, key: &str) {
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::ConfirmAfterSell);
    let confirm = json!({ "hold": hold, "key": key });
    let stopped = (sale.app)
        .graphql_as(&sale.maoyan, CONFIRM_WITH_KEY, confirm)
        .await;
    assert_eq!(stopped.error_code(), "INTERNAL");
}

#[tokio::test]
async fn a_sale_is_told_through_holds_whichever_path_confirms_the_order() {
    // Orders names neither vouchers nor concessions for a sale: it tells holds, whose handlers
    // (`ended_holds.rs` of each) redeem the voucher and sell the units the hold carried. Told
    // by a confirmation's batch, by a retry that takes the key over, and by the reconciler.
    use crate::concessions::{product, stock_of};
    let sale = sale().await;
    let operator = platform(&sale).await;
    let (batch_id, codes) = make(&sale, &operator, batch(json!({ "amountOff": 100 }), 1, 5)).await;
    let wanda = crate::admissions::operator(&sale).await;
    let popcorn = product(&sale, &wanda, "爆米花", 2_500, Some(6)).await;

    let hold = hold_carrying(&sale, "A1", &codes[0], &popcorn).await;
    assert_eq!(counts(&sale, &operator, &batch_id).await, (1, 0));
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(4), 0, 1));
    let confirmed = sale
        .app
        .graphql_as(&sale.maoyan, CONFIRM, json!({ "hold": hold }))
        .await;
    assert_eq!(confirmed.data()["confirmHold"]["status"], "CONFIRMED");
    assert_eq!(counts(&sale, &operator, &batch_id).await, (0, 1), "batch");
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(4), 2, 0), "batch");

    let hold = hold_carrying(&sale, "A2", &codes[0], &popcorn).await;
    confirm_stopped_after_the_sale(&sale, &hold, "k2").await;
    assert_eq!(counts(&sale, &operator, &batch_id).await, (1, 1));
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(2), 2, 1));
    let retry = json!({ "hold": hold, "key": "k2" });
    let retried = (sale.app)
        .graphql_as(&sale.maoyan, CONFIRM_WITH_KEY, retry)
        .await;
    assert_eq!(retried.data()["confirmHold"]["status"], "CONFIRMED");
    assert_eq!(counts(&sale, &operator, &batch_id).await, (0, 2), "retry");
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(2), 4, 0), "retry");

    let hold = hold_carrying(&sale, "A3", &codes[0], &popcorn).await;
    confirm_stopped_after_the_sale(&sale, &hold, "k3").await;
    assert_eq!(counts(&sale, &operator, &batch_id).await, (1, 2));
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(0), 4, 1));
    let settled = boxoffice::orders::settle_orders(&sale.app.store, Duration::ZERO).await;
    assert_eq!(settled.unwrap(), 1);
    assert_eq!(
        counts(&sale, &operator, &batch_id).await,
        (0, 3),
        "reconciler"
    );
    assert_eq!(
        stock_of(&sale, &popcorn).await,
        (Some(0), 6, 0),
        "reconciler"
    );
}
