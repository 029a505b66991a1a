//! Idempotency keys on holdSeats, confirmHold and cancelOrder.

use std::collections::HashSet;
use std::sync::Arc;

use futures::future::join_all;
use serde_json::{json, Value};

use crate::sale::{sale, Sale};

const HOLD: &str =
    "mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) { id seats { label } } }";
const CONFIRM: &str = "mutation ($hold: ID!, $key: String) { confirmHold(input: {
    holdId: $hold, idempotencyKey: $key, customer: { name: \"李四\", contact: \"li@example.cn\" } }) { id status } }";
const CANCEL: &str = "mutation ($id: ID!, $key: String) { cancelOrder(orderId: $id, idempotencyKey: $key) { id status } }";

impl Sale {
    async fn hold_with_key(
        &self,
        key: &str,
        seats: &[&str],
        idempotency_key: &str,
    ) -> crate::helpers::GqlResponse {
        let input = json!({ "showtimeId": self.showtime, "seats": seats, "idempotencyKey": idempotency_key });
        self.app
            .graphql_as(key, HOLD, json!({ "input": input }))
            .await
    }
}

#[tokio::test]
async fn a_retried_hold_has_one_effect_and_the_first_answer() {
    let sale = sale().await;
    let first = sale
        .hold_with_key(&sale.maoyan, &["A1", "A2"], "retry-1")
        .await;
    let retry = sale
        .hold_with_key(&sale.maoyan, &["A1", "A2"], "retry-1")
        .await;
    assert_eq!(first.data(), retry.data());
    let inventory = sale.inventory().await;
    assert_eq!(inventory.holds.len(), 1);
    assert_eq!(inventory.counts.held, 2);
}

#[tokio::test]
async fn the_same_key_with_another_request_is_refused_and_changes_nothing() {
    let sale = sale().await;
    sale.hold_with_key(&sale.maoyan, &["A1"], "k").await.data();
    let other = sale.hold_with_key(&sale.maoyan, &["A2"], "k").await;
    assert_eq!(other.error_code(), "IDEMPOTENCY_KEY_REUSED");
    assert_eq!(sale.inventory().await.counts.held, 1);
    // Keys belong to their channel: another channel may use the same one.
    sale.hold_with_key(&sale.wechat, &["A2"], "k").await.data();
    assert_eq!(sale.inventory().await.counts.held, 2);
}

#[tokio::test]
async fn concurrent_requests_with_one_key_make_one_hold() {
    let sale = Arc::new(sale().await);
    let answers = join_all((0..20).map(|_| {
        let sale = Arc::clone(&sale);
        async move {
            sale.hold_with_key(&sale.maoyan, &["B1", "B2"], "burst")
                .await
        }
    }))
    .await;
    let ids: HashSet<String> = answers
        .iter()
        .map(|answer| {
            answer.data()["holdSeats"]["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(ids.len(), 1, "every request got the same hold");
    let inventory = sale.inventory().await;
    assert_eq!(inventory.holds.len(), 1);
    assert_eq!(inventory.counts.held, 2);
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_refusal_is_replayed_too() {
    let sale = sale().await;
    let blocker = sale.hold(&sale.wechat, &["C1", "C2"]).await.data()["holdSeats"]["id"].clone();
    let refused = sale
        .hold_with_key(&sale.maoyan, &["C1", "C2"], "late")
        .await;
    assert_eq!(refused.error_code(), "SEAT_UNAVAILABLE");
    sale.app
        .graphql_as(
            &sale.wechat,
            "mutation ($id: ID!) { releaseHold(holdId: $id) }",
            json!({ "id": blocker }),
        )
        .await
        .data();
    let retry = sale
        .hold_with_key(&sale.maoyan, &["C1", "C2"], "late")
        .await;
    assert_eq!(
        retry.error_code(),
        "SEAT_UNAVAILABLE",
        "the same answer as the first time"
    );
    assert_eq!(
        retry.errors()[0]["extensions"]["seats"],
        json!(["C1", "C2"])
    );
    assert_eq!(sale.inventory().await.counts.held, 0);
}

#[tokio::test]
async fn confirm_and_cancel_retries_have_one_effect() {
    let sale = sale().await;
    let hold = sale.hold(&sale.maoyan, &["A5", "A6"]).await.data()["holdSeats"]["id"].clone();
    let confirm = |key: &'static str| {
        let hold = hold.clone();
        let sale = &sale;
        async move {
            sale.app
                .graphql_as(&sale.maoyan, CONFIRM, json!({ "hold": hold, "key": key }))
                .await
        }
    };
    let first = confirm("pay-1").await;
    let again = confirm("pay-1").await;
    assert_eq!(first.data(), again.data());
    let order: Value = first.data()["confirmHold"]["id"].clone();

    let cancel = |key: &'static str| {
        let order = order.clone();
        let sale = &sale;
        async move {
            sale.app
                .graphql_as(&sale.maoyan, CANCEL, json!({ "id": order, "key": key }))
                .await
        }
    };
    let cancelled = cancel("refund-1").await;
    assert_eq!(cancelled.data()["cancelOrder"]["status"], "CANCELLED");
    let retried = cancel("refund-1").await;
    assert_eq!(retried.data(), cancelled.data());
    let inventory = sale.inventory().await;
    assert_eq!((inventory.counts.sold, inventory.counts.held), (0, 0));
}

#[tokio::test]
async fn keys_are_kept_at_least_a_day_and_validated() {
    let sale = sale().await;
    let too_long = "x".repeat(101);
    let refused = sale.hold_with_key(&sale.maoyan, &["A1"], &too_long).await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert_eq!(sale.inventory().await.counts.held, 0);

    let uri = std::env::var("BOXOFFICE_TEST_MONGODB_URI").unwrap();
    let client = mongodb::Client::with_uri_str(&uri).await.unwrap();
    let indexes: Vec<bson::Document> = {
        use futures::TryStreamExt;
        client
            .database(sale.app.store.database_name())
            .collection::<bson::Document>("idempotency_keys")
            .list_indexes()
            .await
            .unwrap()
            .map_ok(|index| bson::to_document(&index).unwrap())
            .try_collect()
            .await
            .unwrap()
    };
    let ttl = indexes
        .iter()
        .find_map(|index| {
            index
                .get_document("options")
                .ok()?
                .get("expireAfterSeconds")
                .cloned()
        })
        .or_else(|| {
            indexes
                .iter()
                .find_map(|index| index.get("expireAfterSeconds").cloned())
        })
        .expect("a TTL index");
    let seconds = match ttl {
        bson::Bson::Int32(n) => n as i64,
        bson::Bson::Int64(n) => n,
        other => panic!("{other:?}"),
    };
    assert!(seconds >= 24 * 3600, "{seconds}");
}

/// The gateway that answered a key replays it from memory: the replay sends no command to the
/// keys and is the first answer, and the key with another request is refused, also without
/// one (an answered record never changes). A gateway that never saw the answer reads it from
/// the database, and answers the same.
#[tokio::test]
async fn a_replay_on_the_gateway_that_answered_it_costs_no_command() {
    let sale = sale().await;
    let other = sale.app.another_gateway().await;
    let first = sale
        .hold_with_key(&sale.maoyan, &["A1", "A2"], "memo")
        .await;
    let refused = sale.hold_with_key(&sale.maoyan, &["A2"], "memo-late").await;
    assert_eq!(refused.error_code(), "SEAT_UNAVAILABLE");

    let keys = |sent: Vec<boxoffice::store::SentCommand>| -> Vec<String> {
        (sent.into_iter())
            .filter(|command| command.collection.as_deref() == Some("idempotency_keys"))
            .map(|command| command.name)
            .collect()
    };
    sale.app.store.commands().start();
    let again = sale
        .hold_with_key(&sale.maoyan, &["A1", "A2"], "memo")
        .await;
    let refused_again = sale.hold_with_key(&sale.maoyan, &["A2"], "memo-late").await;
    let reused = sale.hold_with_key(&sale.maoyan, &["A3"], "memo").await;
    assert_eq!(keys(sale.app.store.commands().take()), Vec::<String>::new());
    assert_eq!(again.data(), first.data());
    assert_eq!(refused_again.error_code(), "SEAT_UNAVAILABLE");
    assert_eq!(
        refused_again.errors()[0]["extensions"]["seats"],
        json!(["A2"])
    );
    assert_eq!(reused.error_code(), "IDEMPOTENCY_KEY_REUSED");

    other.store.commands().start();
    let input =
        json!({ "showtimeId": sale.showtime, "seats": ["A1", "A2"], "idempotencyKey": "memo" });
    let elsewhere = other
        .graphql_as(&sale.maoyan, HOLD, json!({ "input": input }))
        .await;
    assert_eq!(keys(other.store.commands().take()), ["insert", "find"]);
    assert_eq!(elsewhere.data(), first.data());
    let inventory = sale.inventory().await;
    assert_eq!((inventory.holds.len(), inventory.counts.held), (1, 2));
}
