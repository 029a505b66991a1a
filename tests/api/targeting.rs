//! The hot paths held to the sharding design (`store::shard_keys`, docs/sharding.md): every
//! command they send to a collection the design shards names the shard key in each of its
//! filters (for a hashed key, an equality or `$in`; for a ranged one, any condition on its
//! first field; at the top, in a top `$and`, or in every branch of an `$or`), so that `mongos`
//! sends it to the shards that hold those documents; every document inserted into one carries
//! its shard key; what is not is a listed broadcast, with its bound. Read from the commands the
//! driver sent (the command log), background work (the event relay) included.

use bson::{Bson, Document};
use serde_json::{json, Value};

use boxoffice::store::shard_keys::{placement, Placement};
use boxoffice::store::SentCommand;

use crate::admissions::{admit, codes, door, operator, starting_in};
use crate::concessions::{order_items, product};
use crate::events::EVENTS;
use crate::sale::{sale, Sale};
use crate::vouchers::{hold_with, one_code, platform};

/// Commands that go to every shard, each bounded: (collection, command, a field its filter
/// names, why). docs/sharding.md says how each would be targeted.
const BROADCASTS: &[(&str, &str, &str, &str)] = &[(
    "orders",
    "find",
    "pickupKey",
    "collectItems finds an order by its pickup code's key: one per order with items, each \
     shard reading at most one document through the sparse `pickup_key` index",
)];

const SHOWTIMES: &str = "{ showtimes(first: 20) { edges { node { id startsAt
    seatMap { counts { available sold } } } } } }";
const SEAT_MAP: &str = "query ($id: ID!) { showtime(id: $id) { seatMap {
    counts { sold } rows { label seats { label state } } } } }";
const HOLD: &str = "mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) { id } }";
const EXTEND: &str = "mutation ($id: ID!) { extendHold(holdId: $id) { id expiresAt } }";
const RELEASE: &str = "mutation ($id: ID!) { releaseHold(holdId: $id) }";
const CONFIRM: &str = "mutation ($hold: ID!, $key: String) { confirmHold(input: {
    holdId: $hold, idempotencyKey: $key, customer: { name: \"李四\", contact: \"li@example.cn\" } }) {
    id } }";
const CANCEL: &str = "mutation ($id: ID!, $key: String) {
    cancelOrder(orderId: $id, idempotencyKey: $key) { id status refunded { amount } } }";
const COLLECT: &str = "mutation ($code: String!) { collectItems(input: { pickupCode: $code }) {
    orderId } }";

/// Whether `filter` chooses by `field` as a shard key must be named: equality or `$in` when
/// `hashed`, any condition otherwise; at the top, in a top `$and`, or in every `$or` branch.
fn names(filter: &Document, field: &str, hashed: bool) -> bool {
    if let Some(value) = filter.get(field) {
        let condition = match value {
            Bson::Document(condition) if condition.keys().all(|k| k.starts_with('$')) => {
                Some(condition)
            }
            _ => None,
        };
        let targeted = match condition {
            None => true,
            Some(condition) => {
                !hashed || condition.contains_key("$eq") || condition.contains_key("$in")
            }
        };
        if targeted {
            return true;
        }
    }
    let branches = |operator: &str| {
        (filter.get_array(operator).into_iter().flatten()).filter_map(Bson::as_document)
    };
    branches("$and").any(|part| names(part, field, hashed))
        || (filter.contains_key("$or") && branches("$or").all(|part| names(part, field, hashed)))
}

/// What of `sent` would go to every shard (or insert a document missing its shard key),
/// described, but the listed broadcasts.
fn untargeted(sent: &[SentCommand]) -> Vec<String> {
    let mut found = Vec::new();
    for command in sent {
        let Some(collection) = command.collection.as_deref() else {
            continue;
        };
        let Some(placement) = placement(collection) else {
            continue;
        };
        let (field, hashed) = match placement {
            Placement::Unsharded(_) => continue,
            Placement::Hashed(field) => (field, true),
            Placement::Ranged(fields) => (fields[0], false),
        };
        let listed = |filter: &Document| {
            (BROADCASTS.iter()).any(|(c, name, field, _)| {
                *c == collection && *name == command.name && filter.contains_key(*field)
            })
        };
        if command.name == "insert" {
            for document in command.inserted_documents() {
                let key = placement.fields();
                if !key.iter().all(|field| document.contains_key(*field)) {
                    found.push(format!(
                        "insert into {collection} without {key:?}: {document}"
                    ));
                }
            }
            continue;
        }
        for filter in command.filters().into_iter().flatten() {
            if !names(filter, field, hashed) && !listed(filter) {
                found.push(format!("{} {collection} {filter}", command.name));
            }
        }
    }
    found
}

#[test]
fn a_filter_names_a_shard_key_by_equality_in_or_a_range_when_ranged() {
    let filter = |json: Value| bson::to_document(&json).unwrap();
    let id = bson::oid::ObjectId::new();
    assert!(names(&filter(json!({ "_id": id.to_hex() })), "_id", true));
    assert!(names(
        &filter(json!({ "_id": { "$in": [1, 2] } })),
        "_id",
        true
    ));
    assert!(names(
        &filter(json!({ "$and": [{ "a": 1 }, { "_id": 3 }] })),
        "_id",
        true
    ));
    assert!(names(
        &filter(json!({ "$or": [{ "_id": 1 }, { "_id": 2 }] })),
        "_id",
        true
    ));
    assert!(!names(
        &filter(json!({ "$or": [{ "_id": 1 }, { "a": 2 }] })),
        "_id",
        true
    ));
    assert!(!names(&filter(json!({ "_id": { "$gt": 1 } })), "_id", true));
    assert!(names(
        &filter(json!({ "channel": "a", "sequence": { "$gt": 1 } })),
        "channel",
        false
    ));
    assert!(names(
        &filter(json!({ "channel": { "$gte": "a" } })),
        "channel",
        false
    ));
    assert!(!names(
        &filter(json!({ "sequence": { "$gt": 1 } })),
        "channel",
        false
    ));
    assert!(!names(&filter(json!({})), "_id", true));
}

/// Runs `query` as `key` with the command log on; what it sent (its background work too).
async fn sent_by(
    sale: &Sale,
    key: &str,
    query: &str,
    variables: Value,
) -> (Value, Vec<SentCommand>) {
    sale.app.store.commands().start_with_background();
    let answer = sale.app.graphql_as(key, query, variables).await;
    // The live relay appends the events of the change within its round.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    (answer.data().clone(), sale.app.store.commands().take())
}

#[tokio::test]
async fn the_hot_paths_send_every_command_of_a_sharded_collection_to_its_shard() {
    let sale = sale().await;
    let operator = operator(&sale).await;
    let north = door(&sale, &operator, "North").await;
    let platform = platform(&sale).await;
    let voucher = one_code(&sale, &platform, json!({ "amountOff": 500 }), 5).await;
    let popcorn = product(&sale, &operator, "爆米花", 2_000, Some(10)).await;
    starting_in(&sale, 30).await;
    let maoyan = sale.maoyan.clone();
    let mut refused: Vec<String> = Vec::new();
    let mut checked = 0;
    let mut check = |what: &str, sent: &[SentCommand]| {
        checked += sent.len();
        refused.extend(
            untargeted(sent)
                .into_iter()
                .map(|line| format!("{what}: {line}")),
        );
    };

    let (_, sent) = sent_by(&sale, &maoyan, SHOWTIMES, json!({})).await;
    check("showtimes page", &sent);
    let (_, sent) = sent_by(&sale, &maoyan, SEAT_MAP, json!({ "id": sale.showtime })).await;
    check("seat map", &sent);

    let named = json!({ "input": { "showtimeId": sale.showtime, "seats": ["A1", "A2"],
        "idempotencyKey": "targeted-hold" } });
    let (held, sent) = sent_by(&sale, &maoyan, HOLD, named).await;
    check("hold", &sent);
    let hold = held["holdSeats"]["id"].clone();
    let (_, sent) = sent_by(&sale, &maoyan, EXTEND, json!({ "id": hold })).await;
    check("extend", &sent);
    let confirm = json!({ "hold": hold, "key": "targeted-pay" });
    let (order, sent) = sent_by(&sale, &maoyan, CONFIRM, confirm).await;
    check("confirm", &sent);
    let order = order["confirmHold"]["id"].clone();

    let best = json!({ "input": { "showtimeId": sale.showtime, "best": { "count": 2 } } });
    let (held, sent) = sent_by(&sale, &maoyan, HOLD, best).await;
    check("best hold", &sent);
    let (_, sent) = sent_by(
        &sale,
        &maoyan,
        RELEASE,
        json!({ "id": held["holdSeats"]["id"] }),
    )
    .await;
    check("release", &sent);

    let cancel = json!({ "id": order, "key": "targeted-cancel" });
    let (_, sent) = sent_by(&sale, &maoyan, CANCEL, cancel).await;
    check("cancel with a refund", &sent);

    sale.app.store.commands().start_with_background();
    let held = hold_with(&sale, &maoyan, &["B1"], &voucher, None).await;
    check("voucher hold", &sale.app.store.commands().take());
    let confirm = json!({ "hold": held.data()["holdSeats"]["id"], "key": "targeted-voucher" });
    let (paid, sent) = sent_by(&sale, &maoyan, CONFIRM, confirm).await;
    check("voucher confirm", &sent);

    let (_, code) = codes(&sale, &paid["confirmHold"]["id"]).await.remove(0);
    sale.app.store.commands().start_with_background();
    admit(&sale.app, &north.key, &code, None).await.data();
    check("admit", &sale.app.store.commands().take());

    let with_items = order_items(&sale, &["A5"], &[(&popcorn, 2)]).await;
    let pickup = with_items["pickupCode"].as_str().unwrap().to_owned();
    let (_, sent) = sent_by(&sale, &north.key, COLLECT, json!({ "code": pickup })).await;
    check("collect items", &sent);

    let (page, sent) = sent_by(&sale, &maoyan, EVENTS, json!({ "first": 2 })).await;
    check("events", &sent);
    let after = page["events"]["pageInfo"]["endCursor"].clone();
    let (_, sent) = sent_by(
        &sale,
        &maoyan,
        EVENTS,
        json!({ "after": after, "first": 5 }),
    )
    .await;
    check("events after a cursor", &sent);

    assert!(checked > 40, "commands checked: {checked}");
    assert!(refused.is_empty(), "{refused:#?}");
}

/// Transactions that touch documents of several shard key values, each listed with its
/// reason: (the sharded collections it touches, why). docs/sharding.md, appendix A.
const CROSS_SHARD_TRANSACTIONS: &[(&[&str], &str)] = &[
    (
        &["orders"],
        "the sales projection (T1) counts a batch of orders at once: background, batched",
    ),
    (
        &["idempotency_keys", "seat_inventory"],
        "an operator's fenced write (T2): the key's fence and the showtime's seats, rare",
    ),
];

/// The shard key values a command names for a sharded collection: (collection, value).
fn key_values(command: &SentCommand) -> Vec<(String, String)> {
    let Some(collection) = command.collection.clone() else {
        return Vec::new();
    };
    let field = match placement(&collection) {
        Some(Placement::Hashed(field)) => field,
        Some(Placement::Ranged(fields)) => fields[0],
        _ => return Vec::new(),
    };
    let mut values: Vec<(String, String)> = (command.inserted_documents().into_iter())
        .filter_map(|document| document.get(field).map(|value| value.to_string()))
        .map(|value| (collection.clone(), value))
        .collect();
    for filter in command.filters().into_iter().flatten() {
        let value = value_of(filter, field).map_or("(every shard)".into(), Bson::to_string);
        values.push((collection.clone(), value));
    }
    values
}

/// What `filter` requires of `field`: at the top or in a top `$and`.
fn value_of<'a>(filter: &'a Document, field: &str) -> Option<&'a Bson> {
    filter.get(field).or_else(|| {
        (filter.get_array("$and").into_iter().flatten())
            .filter_map(Bson::as_document)
            .find_map(|part| value_of(part, field))
    })
}

#[tokio::test]
async fn every_transaction_stays_on_one_shard_key_value_or_is_listed() {
    let sale = sale().await;
    let operator = operator(&sale).await;
    sale.app.store.commands().start_with_background();
    // The booking paths open none (each is one conditional write per document).
    let order = sale.order(&sale.maoyan, &["A1", "A2"]).await;
    let cancel = json!({ "id": order, "key": "transactions-cancel" });
    sale.app
        .graphql_as(&sale.maoyan, CANCEL, cancel)
        .await
        .data();
    let booking = sale.app.store.commands().take();
    let in_one: Vec<_> = (booking.iter())
        .filter(|command| command.transaction().is_some())
        .collect();
    assert!(
        in_one.is_empty(),
        "booking opened a transaction: {in_one:#?}"
    );

    // The background and operators' paths that do: the sales projection, a fenced seat block,
    // a price change.
    sale.app.store.commands().start_with_background();
    sale.order(&sale.maoyan, &["A3"]).await;
    boxoffice::sales::project_sales(&sale.app.store)
        .await
        .unwrap();
    sale.block(
        &operator,
        &["B1"],
        json!({ "idempotencyKey": "transactions-block" }),
    )
    .await
    .data();
    let sent = sale.app.store.commands().take();
    let mut transactions: std::collections::BTreeMap<(String, i64), Vec<&SentCommand>> =
        Default::default();
    for command in &sent {
        if let Some(transaction) = command.transaction() {
            transactions.entry(transaction).or_default().push(command);
        }
    }
    assert!(
        transactions.len() >= 2,
        "transactions seen: {}",
        transactions.len()
    );
    for commands in transactions.values() {
        let mut touched: Vec<(String, String)> =
            commands.iter().flat_map(|c| key_values(c)).collect();
        touched.sort();
        touched.dedup();
        if touched.len() <= 1 {
            continue;
        }
        let mut collections: Vec<&str> = touched.iter().map(|(c, _)| c.as_str()).collect();
        collections.dedup();
        assert!(
            (CROSS_SHARD_TRANSACTIONS.iter()).any(|(listed, _)| *listed == collections.as_slice()),
            "a transaction touching {touched:?} is not listed"
        );
    }
}
