//! What this process freed of each showtime's seats (a release, an expiry, a refund, an
//! unblock) or whether it cancelled it, in the order it did so, numbered: a view of a
//! showtime's seats read before such a change learns from it which seats to count free again
//! (`holds::seen`). A view is marked with [`FreedMarks::mark`] before its read is sent, and
//! asks [`FreedMarks::since`] its mark before it refuses anything.
//!
//! Bounded: the last [`KEPT_PER_SHOWTIME`] changes of at most [`MOST_SHOWTIMES`] showtimes.
//! Past either, what is forgotten counts as "anything may have changed" ([`FreedSince::Unknown`]):
//! the view is then read again, and nothing is refused on it.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use crate::domain::ids::ShowtimeId;

/// Most showtimes whose changes are remembered.
const MOST_SHOWTIMES: usize = 4_096;

/// Most changes remembered per showtime.
const KEPT_PER_SHOWTIME: usize = 32;

/// A point in this process's changes that free seats (see the module's doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct FreedMark(u64);

/// What this process freed of a showtime since a mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FreedSince {
    /// Nothing.
    Nothing,
    /// These seats (perhaps some twice, perhaps taken again since).
    Seats(Vec<String>),
    /// It may have cancelled the showtime, or it forgot: a view from before the mark is no
    /// good.
    Unknown,
}

#[derive(Debug, Default)]
pub(super) struct FreedMarks {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// The number of changes so far.
    next: u64,
    last: HashMap<ShowtimeId, Recent>,
    /// Changes up to this one are forgotten for every showtime (the map was cleared).
    floor: u64,
}

/// A showtime's last changes.
#[derive(Debug, Default)]
struct Recent {
    /// (number, the seats freed; `None`: anything, a cancellation), oldest first.
    changes: VecDeque<(u64, Option<Vec<String>>)>,
    /// Changes up to this one are forgotten.
    forgotten: u64,
}

impl FreedMarks {
    /// The mark of now: changes after it are "since".
    pub(super) fn mark(&self) -> FreedMark {
        FreedMark(self.state.lock().expect("freed marks lock").next)
    }

    /// Notes a change of `showtime` that freed `seats` (`None`: it cancelled the showtime).
    pub(super) fn note(&self, showtime: ShowtimeId, seats: Option<&[String]>) {
        let mut state = self.state.lock().expect("freed marks lock");
        if state.last.len() >= MOST_SHOWTIMES && !state.last.contains_key(&showtime) {
            state.last.clear();
            state.floor = state.next;
        }
        state.next += 1;
        let (change, floor) = (state.next, state.floor);
        let recent = state.last.entry(showtime).or_insert_with(|| Recent {
            changes: VecDeque::new(),
            forgotten: floor,
        });
        if recent.changes.len() >= KEPT_PER_SHOWTIME {
            if let Some((dropped, _)) = recent.changes.pop_front() {
                recent.forgotten = dropped;
            }
        }
        recent
            .changes
            .push_back((change, seats.map(<[String]>::to_vec)));
    }

    /// What this process freed of `showtime` since `mark`, and the mark of now.
    pub(super) fn since(&self, showtime: ShowtimeId, mark: FreedMark) -> (FreedSince, FreedMark) {
        let state = self.state.lock().expect("freed marks lock");
        let now = FreedMark(state.next);
        let Some(recent) = state.last.get(&showtime) else {
            let since = if state.floor > mark.0 {
                FreedSince::Unknown
            } else {
                FreedSince::Nothing
            };
            return (since, now);
        };
        if recent.forgotten > mark.0 {
            return (FreedSince::Unknown, now);
        }
        let mut seats = Vec::new();
        for (_, freed) in recent.changes.iter().filter(|(n, _)| *n > mark.0) {
            match freed {
                Some(freed) => seats.extend(freed.iter().cloned()),
                None => return (FreedSince::Unknown, now),
            }
        }
        let since = if seats.is_empty() {
            FreedSince::Nothing
        } else {
            FreedSince::Seats(seats)
        };
        (since, now)
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

    fn seats(labels: &[&str]) -> Vec<String> {
        labels.iter().map(|label| (*label).to_owned()).collect()
    }

    #[test]
    fn a_view_learns_the_seats_freed_after_its_mark_and_only_its_showtime_s() {
        let marks = FreedMarks::default();
        let (one, two) = (showtime(1), showtime(2));
        marks.note(one, Some(&seats(&["A1"])));
        let before = marks.mark();
        assert_eq!(marks.since(one, before).0, FreedSince::Nothing);
        marks.note(one, Some(&seats(&["B1", "B2"])));
        marks.note(one, Some(&seats(&["C1"])));
        let (since, now) = marks.since(one, before);
        assert_eq!(since, FreedSince::Seats(seats(&["B1", "B2", "C1"])));
        assert_eq!(marks.since(two, before).0, FreedSince::Nothing);
        assert_eq!(marks.since(one, now).0, FreedSince::Nothing);
        marks.note(one, None);
        assert_eq!(marks.since(one, now).0, FreedSince::Unknown, "cancelled");
    }

    #[test]
    fn what_is_forgotten_past_the_caps_counts_as_unknown() {
        let marks = FreedMarks::default();
        let (watched, busy) = (showtime(0), showtime(1));
        let before = marks.mark();
        for _ in 0..KEPT_PER_SHOWTIME {
            marks.note(busy, Some(&seats(&["A1"])));
        }
        assert!(matches!(marks.since(busy, before).0, FreedSince::Seats(_)));
        marks.note(busy, Some(&seats(&["A2"])));
        assert_eq!(marks.since(busy, before).0, FreedSince::Unknown);
        for n in 2..=MOST_SHOWTIMES as u32 {
            marks.note(showtime(n), Some(&seats(&["A1"])));
        }
        assert_eq!(marks.since(watched, before).0, FreedSince::Nothing);
        marks.note(showtime(u32::MAX), Some(&seats(&["A1"])));
        assert_eq!(marks.since(watched, before).0, FreedSince::Unknown);
        assert!(marks.state.lock().unwrap().last.len() <= MOST_SHOWTIMES);
        assert_eq!(marks.since(watched, marks.mark()).0, FreedSince::Nothing);
    }
}
