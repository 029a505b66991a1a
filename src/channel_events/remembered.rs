//! A set that forgets: what the relay knows for a while and must not keep forever (entries it
//! pulled off, other gateways' events seen in the logs). Two generations: the current one, and
//! the one before it, dropped when the current one is a period old; so an item is remembered
//! for one to two periods. One forgotten costs the relay a read, never a duplicate (the logs'
//! ids are unique).

use std::borrow::Borrow;
use std::collections::HashSet;
use std::hash::Hash;
use std::time::Duration;

use tokio::time::Instant;

pub struct Remembered<T> {
    period: Duration,
    current: HashSet<T>,
    previous: HashSet<T>,
    /// When the current generation began (none before the first item).
    since: Option<Instant>,
}

impl<T: Eq + Hash> Remembered<T> {
    pub fn new(period: Duration) -> Self {
        Remembered {
            period,
            current: HashSet::new(),
            previous: HashSet::new(),
            since: None,
        }
    }

    pub fn contains<Q: Eq + Hash + ?Sized>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.current.contains(item) || self.previous.contains(item)
    }

    pub fn is_empty(&self) -> bool {
        self.current.is_empty() && self.previous.is_empty()
    }

    /// Remembers `items` from `now`.
    pub fn add(&mut self, items: impl IntoIterator<Item = T>, now: Instant) {
        if self.since.is_none_or(|since| now >= since + self.period) {
            self.previous = std::mem::take(&mut self.current);
            self.since = Some(now);
        }
        self.current.extend(items);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_remembered_for_one_to_two_periods() {
        let period = Duration::from_secs(1);
        let start = Instant::now();
        let mut remembered = Remembered::new(period);
        assert!(remembered.is_empty() && !remembered.contains(&1));
        remembered.add([1], start);
        assert!(remembered.contains(&1) && !remembered.contains(&2));
        // A period later, a new generation begins; the first is still remembered.
        remembered.add([2], start + period);
        assert!(remembered.contains(&1) && remembered.contains(&2));
        // Two periods later, the first generation is dropped.
        remembered.add([], start + period * 2);
        assert!(!remembered.contains(&1) && remembered.contains(&2));
        remembered.add([], start + period * 3);
        assert!(remembered.is_empty());
    }
}
