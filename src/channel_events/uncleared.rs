//! The entries the live relay appended to the logs and has not pulled off their documents
//! yet: it pulls them off together, [`CLEAR_AFTER`](super::CLEAR_AFTER) after the oldest was
//! appended, and meanwhile does not append them again when a later change's read finds them.
//! Pulled off, they are remembered a while longer: a change made before the pull can be noted
//! after it (its update's answer still on its way), and its note holds them.

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
    /// Those pulled off, for one to two [`PULLED_REMEMBERED`].
    pulled: Remembered<EventId>,
}

impl Default for Uncleared {
    fn default() -> Self {
        Uncleared {
            relayed: Vec::new(),
            ids: HashSet::new(),
            since: None,
            pulled: Remembered::new(PULLED_REMEMBERED),
        }
    }
}

/// How long entries pulled off are remembered at least (and at most twice as long): far longer
/// than a change's answer takes to reach its note. One forgotten too soon costs the relay a
/// read for it, never a duplicate (the log's ids are unique).
const PULLED_REMEMBERED: std::time::Duration = std::time::Duration::from_secs(1);

impl Uncleared {
    /// Notes entries just appended (the due time stays the oldest's).
    pub fn add(&mut self, relayed: Vec<(OutboxSource, Vec<EventId>)>) {
        self.ids
            .extend(relayed.iter().flat_map(|(_, ids)| ids.iter().copied()));
        self.relayed.extend(relayed);
        self.since.get_or_insert_with(Instant::now);
    }

    /// When they are to be pulled off: [`CLEAR_AFTER`](super::CLEAR_AFTER) after the oldest
    /// was appended; `None` when there are none.
    pub fn clear_due(&self) -> Option<Instant> {
        self.since.map(|since| since + super::relay::CLEAR_AFTER)
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
        std::mem::take(&mut self.relayed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel_events::rules::EventType;
    use crate::domain::ids::ShowtimeId;
    use crate::store::{new_entry, new_id, OutboxKind};

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
