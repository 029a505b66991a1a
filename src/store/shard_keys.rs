//! Where every collection lives on a sharded cluster: its shard key, or unsharded (on the
//! database's primary shard) and why. Declared once, beside `names`; docs/sharding.md explains
//! each choice and gives the commands, and `tests/api/sharding.rs` holds the indexes to it
//! (every unique index of a sharded collection starts with its shard key).
//!
//! On a replica set none of this is used: the gateway runs the same commands either way.

use super::names::*;

/// How a collection is placed on a sharded cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Sharded on these fields, ascending, in this order (ranged).
    Ranged(&'static [&'static str]),
    /// Sharded on the hash of this field.
    Hashed(&'static str),
    /// Left unsharded on the primary shard, for this reason.
    Unsharded(&'static str),
}

impl Placement {
    /// The shard key's fields, in order (none when unsharded).
    pub fn fields(self) -> Vec<&'static str> {
        match self {
            Placement::Ranged(fields) => fields.to_vec(),
            Placement::Hashed(field) => vec![field],
            Placement::Unsharded(_) => Vec::new(),
        }
    }
}

/// The catalogue's reason: small, written by operators, read through its own indexes.
const CATALOGUE: &str = "catalogue: thousands to a few million documents, written by \
operators; its transactions (a hall's schedule, a price revision) stay on one shard";

/// Every collection's placement, in the order of `names::ALL`.
pub const PLACEMENTS: [(&str, Placement); 31] = [
    (CINEMAS, Placement::Unsharded(CATALOGUE)),
    (THEATERS, Placement::Unsharded(CATALOGUE)),
    (MOVIES, Placement::Unsharded(CATALOGUE)),
    (MOVIE_DETAILS, Placement::Unsharded(CATALOGUE)),
    (
        REVIEWS,
        Placement::Unsharded("hundreds per movie; read newest first by movie"),
    ),
    (
        SHOWTIMES,
        Placement::Unsharded(
            "a hall's schedule is one transaction with its hall; a week is a few GiB; the \
             lists read it by cinema, city, movie, channel and time, no one key targets them",
        ),
    ),
    (SEAT_INVENTORY, Placement::Hashed("_id")),
    (CHANNELS, Placement::Unsharded(CATALOGUE)),
    (ORDERS, Placement::Hashed("_id")),
    (IDEMPOTENCY_KEYS, Placement::Hashed("_id")),
    (
        CINEMA_SALES_HOURLY,
        Placement::Unsharded(
            "the sales projection's transaction writes it with `movies`: on one shard with \
             them, the transaction spans only the orders' shards",
        ),
    ),
    (
        GATEWAYS,
        Placement::Unsharded("one document per running gateway"),
    ),
    (REGIONS, Placement::Unsharded(CATALOGUE)),
    (
        OPERATORS,
        Placement::Unsharded(
            "a few thousand operators and door keys; a key's hash is unique across all of them",
        ),
    ),
    (
        AUDIT_LOG,
        Placement::Unsharded(
            "operators' writes and refunds, one entry each; read newest first across all",
        ),
    ),
    (SHOWTIME_PRICE_REVISIONS, Placement::Unsharded(CATALOGUE)),
    (TICKET_TYPES, Placement::Unsharded(CATALOGUE)),
    (EVENTS, Placement::Ranged(&["channel"])),
    (
        WEBHOOK_ENDPOINTS,
        Placement::Unsharded(
            "at most a few endpoints per channel; a channel's cap holds by a unique slot \
             across all of them",
        ),
    ),
    (
        WEBHOOK_DELIVERIES,
        Placement::Ranged(&["endpoint", "sequence"]),
    ),
    (WANT_TO_SEE, Placement::Hashed("_id")),
    (WANT_TO_SEE_BY_MOVIE, Placement::Hashed("movie")),
    (WANT_TO_SEE_COUNTS, Placement::Hashed("_id")),
    (TALLIES, Placement::Hashed("_id")),
    (
        VOUCHER_BATCHES,
        Placement::Unsharded("one per batch an operator makes"),
    ),
    (VOUCHER_CODES, Placement::Hashed("_id")),
    (VOUCHER_REDEMPTIONS, Placement::Ranged(&["voucher"])),
    (VOUCHER_CUSTOMERS, Placement::Hashed("_id")),
    (
        PRODUCTS,
        Placement::Unsharded("tens per cinema; a product's stock is one document whatever the key"),
    ),
    (
        WAITING_LIST,
        Placement::Unsharded("one entry per party waiting for a sold-out showtime"),
    ),
    (
        WAITING_LIST_SEQ,
        Placement::Unsharded("one counter per showtime with a line"),
    ),
];

/// Where `collection` is placed; `None` for a name that is not a collection's.
pub fn placement(collection: &str) -> Option<Placement> {
    PLACEMENTS
        .iter()
        .find(|(name, _)| *name == collection)
        .map(|(_, placement)| *placement)
}

/// The shard key a collection placed as `placement` is sharded with, as `config.collections`
/// writes it (`{_id: "hashed"}`, `{channel: 1}`); None when it stays unsharded.
pub fn key_document(placement: Placement) -> Option<bson::Document> {
    match placement {
        Placement::Unsharded(_) => None,
        Placement::Hashed(field) => Some(bson::doc! { field: "hashed" }),
        Placement::Ranged(fields) => {
            Some(fields.iter().map(|f| (f.to_string(), 1.into())).collect())
        }
    }
}

/// What a sharded deployment's collections say of the design.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ShardingCheck {
    /// Collections sharded otherwise than the design (the gateway does not start).
    pub refusals: Vec<String>,
    /// Collections the design shards that are not (the gateway starts, and says so).
    pub warnings: Vec<String>,
}

/// Checks the sharded collections of the gateway's database (`sharded`: each name, without
/// the database, and its key as `config.collections` holds it) against [`PLACEMENTS`].
pub fn check_deployment(sharded: &[(String, bson::Document)]) -> ShardingCheck {
    let mut check = ShardingCheck::default();
    for (name, placement) in PLACEMENTS {
        let found = sharded.iter().find(|(collection, _)| collection == name);
        let expected = key_document(placement);
        match (found, expected) {
            (None, None) => {}
            (None, Some(expected)) => check.warnings.push(format!(
                "`{name}` is not sharded; the design shards it on {expected} (docs/sharding.md)"
            )),
            (Some((_, key)), None) => check.refusals.push(format!(
                "`{name}` is sharded on {key}; the design keeps it unsharded: {}",
                match placement {
                    Placement::Unsharded(reason) => reason,
                    _ => "",
                }
            )),
            (Some((_, key)), Some(expected)) if !same_key(key, &expected) => {
                check.refusals.push(format!(
                    "`{name}` is sharded on {key}; the design's key is {expected}, which its \
                     queries and unique indexes are written for (docs/sharding.md)"
                ))
            }
            (Some(_), Some(_)) => {}
        }
    }
    check
}

/// Whether two keys are the same fields in the same order, each hashed or ranged alike (a
/// ranged field may be written 1, 1.0 or 1 as a long).
fn same_key(found: &bson::Document, expected: &bson::Document) -> bool {
    let kind = |value: &bson::Bson| match value {
        bson::Bson::String(text) => Some(text.clone()),
        other => other
            .as_f64()
            .or_else(|| other.as_i64().map(|n| n as f64))
            .or_else(|| other.as_i32().map(f64::from))
            .map(|n| n.to_string()),
    };
    found.len() == expected.len()
        && found
            .iter()
            .zip(expected)
            .all(|((f, fv), (e, ev))| f == e && kind(fv) == kind(ev))
}

impl super::Store {
    /// Whether the server is `mongos` (its `hello` says `isdbgrid`).
    pub async fn is_mongos(&self) -> Result<bool, crate::error::ApiError> {
        let hello = self.db.run_command(bson::doc! { "hello": 1 }).await?;
        Ok(hello.get_str("msg") == Ok("isdbgrid"))
    }

    /// Checks how this database's collections are sharded against the design, read from the
    /// `collections` collection of database `config` (`config` on a cluster; tests name
    /// another).
    pub async fn sharding_check(
        &self,
        config: &str,
    ) -> Result<ShardingCheck, crate::error::ApiError> {
        use futures::TryStreamExt;

        let prefix = format!("{}.", self.database_name());
        let filter = bson::doc! {
            "_id": { "$regex": format!("^{}", regex_escape(&prefix)) },
            "dropped": { "$ne": true },
        };
        let found: Vec<bson::Document> = (self.db.client().database(config))
            .collection::<bson::Document>("collections")
            .find(filter)
            .projection(bson::doc! { "_id": 1, "key": 1 })
            .limit(1_000)
            .await?
            .try_collect()
            .await?;
        let sharded: Vec<(String, bson::Document)> = (found.iter())
            .filter_map(|entry| {
                let name = entry.get_str("_id").ok()?.strip_prefix(&prefix)?;
                Some((name.to_owned(), entry.get_document("key").ok()?.clone()))
            })
            .collect();
        Ok(check_deployment(&sharded))
    }
}

/// `text` with the characters a regular expression gives a meaning escaped.
fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.^$|?*+()[]{}".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deployment_sharded_as_designed_passes_and_another_key_is_refused() {
        let designed: Vec<(String, bson::Document)> = (PLACEMENTS.iter())
            .filter_map(|(name, placement)| Some((name.to_string(), key_document(*placement)?)))
            .collect();
        assert_eq!(check_deployment(&designed), ShardingCheck::default());

        let mut other = designed.clone();
        other.retain(|(name, _)| name != EVENTS);
        for (name, key) in &mut other {
            if name == ORDERS {
                *key = bson::doc! { "channel": 1, "_id": 1 };
            }
        }
        other.push((CINEMAS.to_string(), bson::doc! { "_id": "hashed" }));
        let check = check_deployment(&other);
        assert_eq!(check.refusals.len(), 2, "{check:?}");
        assert!(check
            .refusals
            .iter()
            .any(|r| r.starts_with("`orders` is sharded on")));
        assert!(check
            .refusals
            .iter()
            .any(|r| r.starts_with("`cinemas` is sharded on")));
        assert_eq!(check.warnings.len(), 1, "{check:?}");
        assert!(check.warnings[0].starts_with("`events` is not sharded"));
        // A ranged field as MongoDB may write it: 1 as a double or a long.
        let mut written = designed;
        for (name, key) in &mut written {
            if name == WEBHOOK_DELIVERIES {
                *key = bson::doc! { "endpoint": 1.0, "sequence": 1_i64 };
            }
        }
        assert_eq!(check_deployment(&written), ShardingCheck::default());
    }

    #[test]
    fn every_collection_is_placed_once_in_the_order_of_all() {
        let placed: Vec<&str> = PLACEMENTS.iter().map(|(name, _)| *name).collect();
        assert_eq!(placed, ALL.to_vec());
    }

    #[test]
    fn a_shard_key_names_a_field_at_most_once_and_hashes_one_field() {
        for (name, placement) in PLACEMENTS {
            let fields = placement.fields();
            let mut unique = fields.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), fields.len(), "{name}");
            if let Placement::Unsharded(reason) = placement {
                assert!(!reason.trim().is_empty(), "{name} needs its reason");
            }
        }
    }
}
