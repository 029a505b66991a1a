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

/// Records in database `config` of the test server, as a cluster's `config.collections` does,
/// that `collection` of `database` is sharded on `key`.
async fn shard_in(config: &str, database: &str, collection: &str, key: bson::Document) {
    let client = mongodb::Client::with_uri_str(mongodb_uri()).await.unwrap();
    client
        .database(config)
        .collection::<Document>("collections")
        .insert_one(bson::doc! { "_id": format!("{database}.{collection}"), "key": key })
        .await
        .unwrap();
}

#[tokio::test]
async fn the_collections_keys_are_read_from_config_and_held_to_the_design() {
    let app = TestApp::spawn().await;
    let database = app.store.database_name().to_owned();
    let config = format!("{database}_config");
    shard_in(
        &config,
        &database,
        "seat_inventory",
        bson::doc! { "_id": "hashed" },
    )
    .await;
    shard_in(&config, &database, "orders", bson::doc! { "channel": 1 }).await;
    // Another database's collections are not this gateway's.
    shard_in(&config, "elsewhere", "events", bson::doc! { "sequence": 1 }).await;
    let check = app.store.sharding_check(&config).await.unwrap();
    assert_eq!(check.refusals.len(), 1, "{check:?}");
    assert!(
        check.refusals[0].starts_with("`orders` is sharded on"),
        "{check:?}"
    );
    assert!(check
        .warnings
        .iter()
        .any(|w| w.starts_with("`events` is not sharded")));
    assert!(!check
        .warnings
        .iter()
        .any(|w| w.starts_with("`seat_inventory`")));
}

#[test]
fn a_gateway_started_on_a_cluster_sharded_otherwise_refuses_naming_the_collection() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let database = crate::helpers::fresh_database_name();
    // The server's own `config` database, as a cluster's: this test's database alone.
    runtime.block_on(shard_in(
        "config",
        &database,
        "orders",
        bson::doc! { "channel": 1 },
    ));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_boxoffice"))
        .env("MONGODB_URI", mongodb_uri())
        .env("BOXOFFICE_DATABASE", &database)
        .env("RUST_LOG", "warn")
        .args(["serve", "--bind", "127.0.0.1:0", "--sharded"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the gateway started on a cluster sharded otherwise");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success());
    assert!(stderr.contains("`orders` is sharded on"), "{stderr}");
}
