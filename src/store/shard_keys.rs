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

#[cfg(test)]
mod tests {
    use super::*;

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
