//! The entries the live relay appended to the logs and has not pulled off their documents
//! yet: it pulls them off together, [`CLEAR_AFTER`](super::CLEAR_AFTER) after the oldest was
//! appended or as soon as one document carries [`CLEAR_AT`] of them, whichever comes first,
//! and meanwhile does not append them again when a later change's read finds them.
//! Pulled off, they are remembered a while longer: a change made before the pull can be noted
//! after it (its update's answer still on its way), and its note holds them.
//!
//! Why a count: each entry left on a busy showtime's inventory makes every command on it
//! dearer until the pull, and a pull costs one rewrite, so on a busy document one pull per so
//! many entries is cheapest, not one per period (issue 48, one gateway, 600 clients on 2 hot
//! showtimes: pulling off 250 ms after the oldest instead of 100 cost the database 13% more
//! CPU per seat change, 40 ms about 5% less).

use std::collections::HashSet;

use tokio::time::Instant;

use crate::domain::ids::EventId;
use crate::store::documents::OutboxEntryDoc;
use crate::store::OutboxSource;

use super::remembered::Remembered;

/// Entries the live relay appended and has not pulled off their documents yet.
pub struct Uncleared {
    relayed: Vec<(OutboxSource, Vec<EventId>)>,
    ids: HashSet<EventId>,
    /// When the oldest of them was appended.
    since: Option<Instant>,
    /// Whether one document carries [`CLEAR_AT`] of them.
    full: bool,
    /// A pull of them failed: the next waits for [`CLEAR_AFTER`](super::CLEAR_AFTER) whatever
    /// the count (no tight loop against a database that does not answer).
    put_back: bool,
    /// Those pulled off, for one to two [`PULLED_REMEMBERED`].
    pulled: Remembered<EventId>,
}

impl Default for Uncleared {
    fn default() -> Self {
        Uncleared {
            relayed: Vec::new(),
            ids: HashSet::new(),
            since: None,
            full: false,
            put_back: false,
            pulled: Remembered::new(PULLED_REMEMBERED),
        }
    }
}

/// How long entries pulled off are remembered at least (and at most twice as long): far longer
/// than a change's answer takes to reach its note. One forgotten too soon costs the relay a
/// read for it, never a duplicate (the log's ids are unique).
const PULLED_REMEMBERED: std::time::Duration = std::time::Duration::from_secs(1);

/// How many appended entries one document carries at most before they are pulled off, however
/// young: about as many as make its changes cost the database one more rewrite meanwhile.
pub const CLEAR_AT: usize = 8;

impl Uncleared {
    /// Notes entries just appended (the due time stays the oldest's).
    pub fn add(&mut self, relayed: Vec<(OutboxSource, Vec<EventId>)>) {
        for (source, mut ids) in relayed {
            ids.retain(|id| self.ids.insert(*id));
            if !ids.is_empty() {
                self.relayed.push((source, ids));
                // One full document is enough: once it is known, the list is not read again.
                if !self.full {
                    let carried = (self.relayed.iter())
                        .filter(|(carrier, _)| *carrier == source)
                        .map(|(_, ids)| ids.len())
                        .sum::<usize>();
                    self.full = carried >= CLEAR_AT;
                }
            }
        }
        if !self.relayed.is_empty() {
            self.since.get_or_insert_with(Instant::now);
        }
    }

    /// When they are to be pulled off: [`CLEAR_AFTER`](super::CLEAR_AFTER) after the oldest
    /// was appended, or when the oldest was appended if a document carries [`CLEAR_AT`];
    /// `None` when there are none.
    pub fn clear_due(&self) -> Option<Instant> {
        let full = self.full && !self.put_back;
        self.since.map(|since| {
            if full {
                since
            } else {
                since + super::relay::CLEAR_AFTER
            }
        })
    }

    /// Puts back entries whose pull failed: pulled off with the next, at the regular time.
    pub fn put_back(&mut self, relayed: Vec<(OutboxSource, Vec<EventId>)>) {
        self.add(relayed);
        self.put_back = true;
    }

    /// Drops from `found` the entries already appended (read again before their pull).
    pub fn drop_appended(&self, found: &mut Vec<(OutboxSource, Vec<OutboxEntryDoc>)>) {
        if self.ids.is_empty() && self.pulled.is_empty() {
            return;
        }
        let appended = |id: &EventId| self.ids.contains(id) || self.pulled.contains(id);
        for (_, entries) in found.iter_mut() {
            entries.retain(|entry| !appended(&entry.id));
        }
        found.retain(|(_, entries)| !entries.is_empty());
    }

    /// Takes them all, to pull them off now (at `now`).
    pub fn take(&mut self, now: Instant) -> Vec<(OutboxSource, Vec<EventId>)> {
        self.pulled.add(self.ids.drain(), now);
        self.since = None;
        self.full = false;
        self.put_back = false;
        std::mem::take(&mut self.relayed)
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

    fn ids(n: usize) -> Vec<EventId> {
        (0..n).map(|_| new_id::<EventId>()).collect()
    }

    #[test]
    fn a_document_carrying_clear_at_appended_entries_is_due_at_once_others_after_clear_after() {
        let (busy, quiet) = (source(), source());
        let mut uncleared = Uncleared::default();
        let before = Instant::now();
        let first = ids(CLEAR_AT - 1);
        uncleared.add(vec![(busy, first.clone()), (quiet, ids(CLEAR_AT - 1))]);
        let after = Instant::now();
        let regular = uncleared.clear_due().expect("entries to pull off");
        assert!(regular >= before + crate::channel_events::CLEAR_AFTER);
        // The same entries noted again are not counted twice.
        uncleared.add(vec![(busy, first)]);
        assert_eq!(uncleared.clear_due(), Some(regular));
        // One more on the busy document: due since the oldest was appended, that is now.
        uncleared.add(vec![(busy, ids(1))]);
        let due = uncleared.clear_due().expect("entries to pull off");
        assert!(due <= after, "due at once, not {:?} later", due - after);
        // Pulled off: nothing is due; the counts start again.
        let taken = uncleared.take(Instant::now());
        assert_eq!(
            taken.iter().map(|(_, ids)| ids.len()).sum::<usize>(),
            2 * CLEAR_AT - 1
        );
        assert_eq!(uncleared.clear_due(), None);
        uncleared.add(vec![(busy, ids(CLEAR_AT - 1))]);
        let due = uncleared.clear_due().expect("entries to pull off");
        assert!(due > Instant::now(), "the count starts again after a pull");
    }

    #[test]
    fn a_failed_pull_put_back_waits_for_clear_after_whatever_the_count() {
        let busy = source();
        let mut uncleared = Uncleared::default();
        uncleared.add(vec![(busy, ids(CLEAR_AT))]);
        let taken = uncleared.take(Instant::now());
        let failed_at = Instant::now();
        uncleared.put_back(taken);
        let due = uncleared.clear_due().expect("entries to pull off");
        assert!(due >= failed_at + crate::channel_events::CLEAR_AFTER);
        // More entries meanwhile still wait: no tight loop against a database that fails.
        uncleared.add(vec![(busy, ids(CLEAR_AT))]);
        assert_eq!(uncleared.clear_due(), Some(due));
        // The next pull clears the mark.
        uncleared.take(Instant::now());
        uncleared.add(vec![(busy, ids(CLEAR_AT))]);
        assert!(uncleared.clear_due().expect("due") <= Instant::now());
    }

    #[test]
    fn entries_appended_and_read_again_are_not_appended_twice_until_pulled_off() {
        let source = OutboxSource {
            kind: OutboxKind::Inventory,
            showtime: new_id::<ShowtimeId>(),
        };
        let entry = || new_entry(EventType::HoldPlaced, Some("maoyan"), Default::default());
        let (first, second, third) = (entry(), entry(), entry());
        let mut uncleared = Uncleared::default();
        assert_eq!(uncleared.clear_due(), None);
        let before = Instant::now();
        uncleared.add(vec![(source, vec![first.id, second.id])]);
        let due = uncleared.clear_due().expect("entries to pull off");
        assert!(due >= before + crate::channel_events::CLEAR_AFTER);
        // A later change's read finds the two and a third: only the third is new.
        let mut found = vec![(source, vec![first.clone(), second.clone(), third.clone()])];
        uncleared.drop_appended(&mut found);
        assert_eq!(found, vec![(source, vec![third.clone()])]);
        // Only the first two: nothing is left to relay.
        let mut found = vec![(source, vec![first.clone(), second.clone()])];
        uncleared.drop_appended(&mut found);
        assert!(found.is_empty());
        // Adding more keeps the oldest's due time.
        uncleared.add(vec![(source, vec![third.id])]);
        assert_eq!(uncleared.clear_due(), Some(due));
        let pulled_at = Instant::now();
        let taken = uncleared.take(pulled_at);
        assert_eq!(taken.len(), 2);
        assert_eq!(uncleared.clear_due(), None);
        // A change made before the pull and noted after it: not appended again.
        let mut found = vec![(source, vec![first.clone(), second.clone()])];
        uncleared.drop_appended(&mut found);
        assert!(found.is_empty(), "pulled off moments ago: remembered");
        // Two periods later they are forgotten (a copy read again then is read for).
        uncleared.take(pulled_at + PULLED_REMEMBERED);
        uncleared.take(pulled_at + PULLED_REMEMBERED * 2);
        let mut found = vec![(source, vec![first])];
        uncleared.drop_appended(&mut found);
        assert_eq!(found.len(), 1, "forgotten after two periods");
    }
}
