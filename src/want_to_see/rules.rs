//! Want-to-see lists (seed 004: "by user" and "by item" tables with keys that sort by time).
//!
//! A channel's customer (an opaque id the channel gives, never a name or a phone number)
//! marks movies. Two denormalised sides answer the two questions:
//! - by customer: one document per customer of a channel, its movies (with their titles),
//!   newest first;
//! - by movie: the movie's wanters, newest first, in buckets of [`BUCKET_SIZE`] (seed 002's
//!   bucket pattern, so a blockbuster with millions of wanters grows more buckets, never one
//!   document without bound; a movie whose first bucket filled is an outlier, flagged so).
//!
//! Each mark takes a sequence number of its movie; its bucket is `seq / BUCKET_SIZE`, fixed
//! before either side is written, so a retry or a repair writes the same bucket. Each mark and
//! unmark is an attempt with an id of its own (`op`), written on both sides: a write carries
//! the attempt it assumes in its filter, so a late attempt changes nothing of a newer one's.
//! The customer's side is written first and says what is in flight (ADDING, REMOVING); a
//! crash between the two sides leaves it so, and the repair pass finishes it.

use chrono::{DateTime, Utc};

use crate::domain::customer::CustomerId;

/// Wanters per by-movie bucket.
pub const BUCKET_SIZE: i64 = 1000;
/// Movies one customer may want to see at once.
pub const MAX_MOVIES_PER_CUSTOMER: usize = 500;
/// How the by-movie side names a customer: its channel and its id (a channel code has no `/`,
/// so the pair is unambiguous).
pub fn wanter(channel: &str, customer: &CustomerId) -> String {
    format!("{channel}/{}", customer.as_str())
}

/// The composite key that sorts by time: the instant in milliseconds, zero-padded, then `id`
/// (seed 004's `timestamp|id` column keys). Newest first is this key descending.
pub fn time_key(at: DateTime<Utc>, id: &str) -> String {
    format!("{:015}|{id}", at.timestamp_millis().max(0))
}

/// The bucket of the mark with sequence number `seq` (0-based).
pub fn bucket_of(seq: i64) -> i64 {
    seq.max(0) / BUCKET_SIZE
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn time_keys_sort_as_their_instants_then_ids() {
        let at = |s| Utc.timestamp_opt(s, 0).unwrap();
        let mut keys = vec![
            time_key(at(1_512_119_720), "i1"),
            time_key(at(1_512_099_720), "i2"),
            time_key(at(999), "i9"),
            time_key(at(1_512_099_720), "i1"),
        ];
        keys.sort();
        assert_eq!(
            keys,
            vec![
                time_key(at(999), "i9"),
                time_key(at(1_512_099_720), "i1"),
                time_key(at(1_512_099_720), "i2"),
                time_key(at(1_512_119_720), "i1"),
            ]
        );
    }

    #[test]
    fn buckets_hold_bucket_size_marks_each() {
        assert_eq!(bucket_of(0), 0);
        assert_eq!(bucket_of(BUCKET_SIZE - 1), 0);
        assert_eq!(bucket_of(BUCKET_SIZE), 1);
        assert_eq!(bucket_of(5 * BUCKET_SIZE + 7), 5);
    }

    #[test]
    fn a_wanter_names_channel_and_customer() {
        let customer = CustomerId::parse("c-1").unwrap();
        assert_eq!(wanter("maoyan", &customer), "maoyan/c-1");
    }
}
