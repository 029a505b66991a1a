//! Documents this process knows to be final, kept in memory so that reading one again costs
//! no command: an answered idempotency key's record (every write of a record requires it
//! unanswered, so an answer never changes). A client that sends a request again with its key,
//! as a third of the overload benchmark's do, is answered from here by the gateway that
//! answered or read it, where it cost a refused insert and a find (issue 48).
//!
//! Bounded in entries ([`FINAL_RECORDS_KEPT`]) and in bytes ([`FINAL_RECORD_BYTES_KEPT`]), the
//! oldest dropped first, and in time (each entry until the moment its caller gives, never past
//! the record's own life), so no caller can make it grow without bound. Records are kept as
//! their BSON bytes: a parsed document takes several times the room. One per
//! [`crate::store::Store`], so one per database a process uses.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::Serialize;

/// The most records kept.
pub const FINAL_RECORDS_KEPT: usize = 8_192;

/// The most bytes of records kept (a hold's answer, with its showtime, is about 1 to 2 KB).
pub const FINAL_RECORD_BYTES_KEPT: usize = 16 << 20;

/// How long a record is kept at most: replays come within seconds of their first sending.
pub const FINAL_RECORD_KEPT_FOR: Duration = Duration::from_secs(300);

#[derive(Default)]
pub struct FinalRecords {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    records: HashMap<String, (Vec<u8>, Instant)>,
    /// Ids in the order they were kept, to drop the oldest first.
    order: VecDeque<String>,
    /// The bytes of the records kept.
    bytes: usize,
}

impl Inner {
    fn drop_oldest(&mut self) {
        if let Some(oldest) = self.order.pop_front() {
            if let Some((record, _)) = self.records.remove(&oldest) {
                self.bytes -= record.len();
            }
        }
    }
}

impl FinalRecords {
    /// Keeps record `id` until `until` (and at most [`FINAL_RECORD_KEPT_FOR`]). A record
    /// kept already stays as it is: a final record does not change.
    pub fn keep(&self, id: &str, record: &impl Serialize, until: Instant) {
        let until = until.min(Instant::now() + FINAL_RECORD_KEPT_FOR);
        let Ok(record) = bson::to_vec(record) else {
            return;
        };
        if record.len() > FINAL_RECORD_BYTES_KEPT / 64 {
            return;
        }
        let mut inner = self.inner.lock().expect("final records lock");
        if inner.records.contains_key(id) {
            return;
        }
        while !inner.order.is_empty()
            && (inner.records.len() >= FINAL_RECORDS_KEPT
                || inner.bytes + record.len() > FINAL_RECORD_BYTES_KEPT)
        {
            inner.drop_oldest();
        }
        inner.bytes += record.len();
        inner.records.insert(id.to_owned(), (record, until));
        inner.order.push_back(id.to_owned());
    }

    /// Record `id`, if it is kept and its time has not run out.
    pub fn get<T: DeserializeOwned>(&self, id: &str) -> Option<T> {
        let mut inner = self.inner.lock().expect("final records lock");
        let now = Instant::now();
        // The oldest first: drop those whose time ran out.
        while let Some(oldest) = inner.order.front() {
            match inner.records.get(oldest) {
                Some((_, until)) if *until > now => break,
                _ => inner.drop_oldest(),
            }
        }
        match inner.records.get(id) {
            Some((record, until)) if *until > now => bson::from_slice(record).ok(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{doc, Document};

    #[test]
    fn a_record_is_kept_until_its_time_and_not_changed_once_kept() {
        let records = FinalRecords::default();
        let later = Instant::now() + Duration::from_secs(60);
        records.keep("maoyan:k1", &doc! { "outcome": 1 }, later);
        records.keep("maoyan:k1", &doc! { "outcome": 2 }, later);
        assert_eq!(records.get("maoyan:k1"), Some(doc! { "outcome": 1 }));
        assert_eq!(records.get::<Document>("maoyan:k2"), None);
        records.keep("maoyan:gone", &doc! {}, Instant::now());
        assert_eq!(records.get::<Document>("maoyan:gone"), None);
    }

    #[test]
    fn at_most_so_many_records_are_kept_the_oldest_dropped_first() {
        let records = FinalRecords::default();
        let later = Instant::now() + Duration::from_secs(60);
        for n in 0..FINAL_RECORDS_KEPT + 10 {
            records.keep(&format!("c:{n}"), &doc! { "n": n as i64 }, later);
        }
        let inner = records.inner.lock().unwrap();
        assert_eq!(inner.records.len(), FINAL_RECORDS_KEPT);
        assert_eq!(inner.order.len(), FINAL_RECORDS_KEPT);
        drop(inner);
        assert_eq!(records.get::<Document>("c:9"), None);
        assert_eq!(records.get("c:10"), Some(doc! { "n": 10_i64 }));
    }

    #[test]
    fn at_most_so_many_bytes_are_kept() {
        let records = FinalRecords::default();
        let later = Instant::now() + Duration::from_secs(60);
        let answer = "x".repeat(100_000);
        let record = doc! { "outcome": &answer };
        let size = bson::to_vec(&record).unwrap().len();
        for n in 0..FINAL_RECORD_BYTES_KEPT / size + 5 {
            records.keep(&format!("c:{n}"), &record, later);
        }
        let inner = records.inner.lock().unwrap();
        assert!(inner.bytes <= FINAL_RECORD_BYTES_KEPT, "{}", inner.bytes);
        assert_eq!(inner.bytes, inner.records.len() * size);
        drop(inner);
        assert_eq!(records.get::<Document>("c:0"), None);
        // A record too large to be worth its room is not kept.
        let huge = doc! { "outcome": "x".repeat(FINAL_RECORD_BYTES_KEPT / 32) };
        records.keep("c:huge", &huge, later);
        assert_eq!(records.get::<Document>("c:huge"), None);
    }
}
