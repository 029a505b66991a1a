//! The indexes held to the sharding design (`store::shard_keys`, docs/sharding.md): on a
//! sharded cluster a unique index is enforced across shards only when it starts with the
//! collection's shard key (MongoDB refuses to shard a collection with one that does not), so
//! every unique index the gateway creates on a collection the design shards must. Read from
//! the server after the gateway created its indexes, not from the code that declares them.

use bson::Document;
use futures::TryStreamExt;

use boxoffice::store::names;
use boxoffice::store::shard_keys::{placement, Placement};

use crate::helpers::{mongodb_uri, TestApp};

/// The indexes of `collection` the server has (none when it does not exist).
async fn indexes_of(database: &mongodb::Database, collection: &str) -> Vec<Document> {
    match database
        .collection::<Document>(collection)
        .list_indexes()
        .await
    {
        Ok(cursor) => cursor
            .map_ok(|index| bson::to_document(&index).unwrap())
            .try_collect()
            .await
            .unwrap(),
        // NamespaceNotFound: no index was ever created on it.
        Err(error) if error.to_string().contains("NamespaceNotFound") => Vec::new(),
        Err(error) => panic!("listing {collection}'s indexes: {error}"),
    }
}

/// Why the unique index `keys` of a collection placed as `placement` would not hold on a
/// sharded cluster, if it would not.
fn unique_index_refusal(placement: Placement, keys: &[String]) -> Option<String> {
    match placement {
        Placement::Unsharded(_) => None,
        // A unique constraint cannot go with a hashed shard key: uniqueness there is `_id`'s
        // alone, which the hash keeps on one shard only when `_id` is the hashed field.
        Placement::Hashed(field) => Some(format!(
            "a unique index on a collection sharded on the hash of `{field}`"
        )),
        Placement::Ranged(fields) => {
            let starts = keys.len() >= fields.len()
                && fields.iter().zip(keys).all(|(field, key)| field == key);
            (!starts).then(|| format!("does not start with the shard key {fields:?}"))
        }
    }
}

#[test]
fn a_unique_index_must_start_with_a_ranged_shard_key() {
    let key = Placement::Ranged(&["showtime"]);
    let index = |keys: &[&str]| keys.iter().map(|k| k.to_string()).collect::<Vec<_>>();
    assert_eq!(
        unique_index_refusal(key, &index(&["showtime", "customer"])),
        None
    );
    assert!(unique_index_refusal(key, &index(&["customer", "showtime"])).is_some());
    assert!(unique_index_refusal(Placement::Hashed("_id"), &index(&["code"])).is_some());
    assert_eq!(
        unique_index_refusal(Placement::Unsharded("small"), &index(&["code"])),
        None
    );
}

#[tokio::test]
async fn every_unique_index_of_a_sharded_collection_starts_with_its_shard_key() {
    let app = TestApp::spawn().await;
    let client = mongodb::Client::with_uri_str(mongodb_uri()).await.unwrap();
    let database = client.database(app.store.database_name());
    let mut checked = 0;
    let mut refused = Vec::new();
    for collection in names::ALL {
        let placement = placement(collection).expect("every collection is placed");
        for index in indexes_of(&database, collection).await {
            let name = index.get_str("name").unwrap_or_default().to_owned();
            // `_id_`: unique on each shard; see docs/sharding.md for what relies on it.
            let unique = index
                .get_document("options")
                .ok()
                .and_then(|options| options.get_bool("unique").ok())
                .or_else(|| index.get_bool("unique").ok())
                .unwrap_or(false);
            if name == "_id_" || !unique {
                continue;
            }
            let keys: Vec<String> = index.get_document("key").unwrap().keys().cloned().collect();
            checked += 1;
            if let Some(refusal) = unique_index_refusal(placement, &keys) {
                refused.push(format!("{collection}.{name} {keys:?}: {refusal}"));
            }
        }
    }
    // The unique indexes there are: channel and operator key hashes, price revisions'
    // requests, webhook cap slots, event sequences, voucher slots, waiting-list customers.
    assert!(checked >= 7, "found the unique indexes: {checked}");
    assert!(refused.is_empty(), "{refused:#?}");
}
