//! Events known to be in the logs: seen appended on the change feed, found by a read, or
//! appended (or found there) by this process. Their entries stay on the documents until they
//! are pulled off, so every later change to the document notes them again, and with one
//! appender per log other gateways hand them again: known here, they are neither read for nor
//! appended again.
//!
//! Without one appender per log (`handoff`), a document's entries from the first of another gateway's change that is not known to be in
//! the logs yet, made moments ago, are set aside for the live relay's next round: that gateway
//! is about to append it, and whoever appends it first makes the other's insert fail (and its
//! sequence numbers stale). The entries before it are relayed (so two gateways changing one
//! document in turn each append their part and wait for the other's, never for each other).
//! Older unknown ones are read for, and appended if they are not there (the gateway that made
//! them died or stalled).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use tokio::time::Instant;

use crate::channel_events::store::documents::EventDoc;
use crate::domain::ids::EventId;
use crate::store::documents::OutboxEntryDoc;
use crate::store::OutboxSource;

use super::remembered::Remembered;

/// Documents and their outbox entries, in their order.
pub type Outboxes = Vec<(OutboxSource, Vec<OutboxEntryDoc>)>;

/// How long an event is remembered at least (and at most twice as long): far longer than a
/// gateway leaves what it appended on its documents ([`CLEAR_AFTER`](super::CLEAR_AFTER)). One
/// forgotten too soon costs a read, never a duplicate (the log's ids are unique).
const REMEMBERED: std::time::Duration = std::time::Duration::from_secs(1);

/// Event ids (`EventDoc::id_of`, an entry's for one channel) known to be in the logs, for
/// one to two [`REMEMBERED`].
pub struct TheirsInLog(Remembered<String>);

impl Default for TheirsInLog {
    fn default() -> Self {
        TheirsInLog(Remembered::new(REMEMBERED))
    }
}

impl TheirsInLog {
    /// Whether `event` was found in the log.
    pub fn contains(&self, event: &str) -> bool {
        self.0.contains(event)
    }

    /// Takes out of `found` each document's entries from the first of another change (not in
    /// `own`) with an event (one for each of `channels_of` it) not known to be in the log and
    /// made after `young_since`; and returns them, with the events of other changes left in
    /// `found` that are not known to be in the logs (to read for).
    pub fn set_aside(
        &self,
        found: &mut Outboxes,
        own: &HashSet<EventId>,
        channels_of: impl Fn(&OutboxEntryDoc) -> Vec<String>,
        young_since: DateTime<Utc>,
    ) -> (Outboxes, Vec<String>) {
        let mut aside = Vec::new();
        let mut unknown = Vec::new();
        for (source, mut entries) in std::mem::take(found) {
            let mut split = None;
            for (at, entry) in entries.iter().enumerate() {
                if own.contains(&entry.id) {
                    continue;
                }
                let theirs: Vec<String> = (channels_of(entry).iter())
                    .map(|channel| EventDoc::id_of(entry.id, channel))
                    .filter(|event| !self.contains(event))
                    .collect();
                if !theirs.is_empty() && entry.at > young_since {
                    split = Some(at);
                    break;
                }
                unknown.extend(theirs);
            }
            if let Some(at) = split {
                aside.push((source, entries.split_off(at)));
            }
            if !entries.is_empty() {
                found.push((source, entries));
            }
        }
        (aside, unknown)
    }

    /// Remembers that `events` are in the log, at `now`.
    pub fn add(&mut self, events: impl IntoIterator<Item = String>, now: Instant) {
        self.0.add(events, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel_events::rules::EventType;
    use crate::domain::ids::ShowtimeId;
    use crate::store::{new_entry, new_id, OutboxKind};

    fn source() -> OutboxSource {
        OutboxSource {
            kind: OutboxKind::Inventory,
            showtime: new_id::<ShowtimeId>(),
        }
    }

    fn entry(age_ms: i64) -> OutboxEntryDoc {
        let mut entry = new_entry(EventType::HoldPlaced, Some("maoyan"), Default::default());
        entry.at -= chrono::Duration::milliseconds(age_ms);
        entry
    }

    #[test]
    fn documents_with_young_unknown_entries_of_others_are_set_aside_and_old_ones_read_for() {
        let now = crate::store::now();
        let grace = chrono::Duration::milliseconds(500);
        let both = |_: &OutboxEntryDoc| vec!["maoyan".to_owned(), "taopiao".to_owned()];
        let (mine, known, young, old) = (entry(0), entry(900), entry(10), entry(900));
        let (a, b, c, d) = (source(), source(), source(), source());
        let own: HashSet<EventId> = [mine.id].into();
        let mut theirs = TheirsInLog::default();
        theirs.add(
            [
                EventDoc::id_of(known.id, "maoyan"),
                EventDoc::id_of(known.id, "taopiao"),
                EventDoc::id_of(young.id, "maoyan"),
            ],
            Instant::now(),
        );
        let mut found = vec![
            // Only this process's entry and one known for both channels: relayed.
            (a, vec![known.clone(), mine.clone()]),
            // A young entry known for one channel only: set aside.
            (b, vec![young.clone(), mine.clone()]),
            // An old unknown one: relayed, after a read for both of its events.
            (c, vec![old.clone(), mine.clone()]),
            // This process's entry, then a young unknown one: the first relayed, the rest set
            // aside.
            (d, vec![mine.clone(), young.clone(), mine.clone()]),
        ];
        let (aside, unknown) = theirs.set_aside(&mut found, &own, both, now - grace);
        assert_eq!(
            aside,
            vec![
                (b, vec![young.clone(), mine.clone()]),
                (d, vec![young, mine.clone()])
            ]
        );
        assert_eq!(
            found,
            vec![
                (a, vec![known, mine.clone()]),
                (c, vec![old.clone(), mine.clone()]),
                (d, vec![mine])
            ]
        );
        assert_eq!(
            unknown,
            vec![
                EventDoc::id_of(old.id, "maoyan"),
                EventDoc::id_of(old.id, "taopiao")
            ]
        );
    }

    #[test]
    fn events_are_remembered_for_one_to_two_periods() {
        let start = Instant::now();
        let mut theirs = TheirsInLog::default();
        assert!(!theirs.contains("a:maoyan"));
        theirs.add(["a:maoyan".to_owned()], start);
        assert!(theirs.contains("a:maoyan"));
        assert!(!theirs.contains("a:taopiao"), "per channel");
        // A period later, a new generation begins; the first is still remembered.
        theirs.add(["b:maoyan".to_owned()], start + REMEMBERED);
        assert!(theirs.contains("a:maoyan") && theirs.contains("b:maoyan"));
        // Two periods later, the first generation is dropped.
        theirs.add([], start + REMEMBERED * 2);
        assert!(!theirs.contains("a:maoyan"));
        assert!(theirs.contains("b:maoyan"));
    }
}
