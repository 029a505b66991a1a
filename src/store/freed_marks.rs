//! When this process last gave seats of a showtime back (a release, an expiry, a refund, an
//! unblock) or cancelled it, as a number that only grows: what someone read of a showtime's
//! seats before such a change must not be taken to show its seats taken after it. A view is
//! marked with [`FreedMarks::mark`] before its read is sent, and trusted only while
//! [`FreedMarks::freed_since`] says no.
//!
//! Bounded: past [`MOST_SHOWTIMES`] showtimes remembered, all are forgotten at once and every
//! mark made before counts as freed since (a view is then read again; nothing is refused on
//! it).

use std::collections::HashMap;
use std::sync::Mutex;

use crate::domain::ids::ShowtimeId;

/// Most showtimes whose last change is remembered.
const MOST_SHOWTIMES: usize = 4_096;

/// A point in this process's changes that free seats (see the module's doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct FreedMark(u64);

#[derive(Debug, Default)]
pub(super) struct FreedMarks {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The number of changes so far.
    next: u64,
    /// The last change of each showtime remembered.
    last: HashMap<ShowtimeId, u64>,
    /// Every change before this one counts for every showtime (the map was cleared).
    floor: u64,
}

impl FreedMarks {
    /// The mark of now: changes after it are "since".
    pub(super) fn mark(&self) -> FreedMark {
        FreedMark(self.state.lock().expect("freed marks lock").next)
    }

    /// Notes a change of `showtime` that freed seats (or cancelled it).
    pub(super) fn note(&self, showtime: ShowtimeId) {
        let mut state = self.state.lock().expect("freed marks lock");
        if state.last.len() >= MOST_SHOWTIMES && !state.last.contains_key(&showtime) {
            state.last.clear();
            state.floor = state.next;
        }
        state.next += 1;
        let change = state.next;
        state.last.insert(showtime, change);
    }

    /// Whether seats of `showtime` may have been freed since `mark`.
    pub(super) fn freed_since(&self, showtime: ShowtimeId, mark: FreedMark) -> bool {
        let state = self.state.lock().expect("freed marks lock");
        let last = state.last.get(&showtime).copied().unwrap_or(state.floor);
        last > mark.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn showtime(n: u32) -> ShowtimeId {
        let mut bytes = [0; 12];
        bytes[..4].copy_from_slice(&n.to_be_bytes());
        ShowtimeId(bytes)
    }

    #[test]
    fn a_change_counts_after_a_mark_made_before_it_and_only_for_its_showtime() {
        let marks = FreedMarks::default();
        let (one, two) = (showtime(1), showtime(2));
        let before = marks.mark();
        assert!(!marks.freed_since(one, before));
        marks.note(one);
        assert!(marks.freed_since(one, before));
        assert!(!marks.freed_since(two, before));
        let after = marks.mark();
        assert!(!marks.freed_since(one, after));
    }

    #[test]
    fn past_the_cap_every_earlier_mark_counts_as_freed_since() {
        let marks = FreedMarks::default();
        let watched = showtime(0);
        let before = marks.mark();
        for n in 1..=MOST_SHOWTIMES as u32 {
            marks.note(showtime(n));
        }
        assert!(!marks.freed_since(watched, before));
        marks.note(showtime(u32::MAX));
        assert!(
            marks.freed_since(watched, before),
            "forgotten, so not trusted"
        );
        assert!(marks.state.lock().unwrap().last.len() <= MOST_SHOWTIMES);
        assert!(!marks.freed_since(watched, marks.mark()));
    }
}
