//! Live seat maps: what one write changed in a showtime's seats, and how a subscriber applies a
//! sequence of such changes to the map it was given, without ever skipping one.
//!
//! Every write that changes seats also adds one to the inventory's `version`, in the same
//! atomic update. A subscriber that holds the map at version `v` applies the change of version
//! `v + 1` next; it ignores changes of `v` or less (its map already has them) and, on any
//! other version, knows it missed one and reads the whole map again.

use super::seat::{SeatCounts, SeatKind, SeatState};

/// One seat whose state a write changed: `row`'s position `column` (0-based, gaps counted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatDelta {
    pub row: String,
    pub column: usize,
    pub state: SeatState,
}

/// The counts a write changed (a write names only the counts it moved).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CountsPatch {
    pub available: Option<u32>,
    pub held: Option<u32>,
    pub sold: Option<u32>,
    pub blocked: Option<u32>,
}

impl CountsPatch {
    /// `counts` with the counts this patch names replaced.
    pub fn applied_to(&self, counts: SeatCounts) -> SeatCounts {
        SeatCounts {
            available: self.available.unwrap_or(counts.available),
            held: self.held.unwrap_or(counts.held),
            sold: self.sold.unwrap_or(counts.sold),
            blocked: self.blocked.unwrap_or(counts.blocked),
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == CountsPatch::default()
    }
}

/// What one write did to a showtime's seat map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeatMapChange {
    /// The inventory's version after the write; `None` when the write did not say (a writer
    /// that does not count versions), which a subscriber must treat as a gap.
    pub version: Option<u32>,
    pub seats: Vec<SeatDelta>,
    pub counts: CountsPatch,
    /// The write changed seats in a form this gateway could not read: treat it as a gap.
    pub unreadable: bool,
}

impl SeatMapChange {
    /// Whether the write touched the seat map at all (other writes to the inventory, such as
    /// fencing hold ids, change nothing a subscriber sees).
    pub fn touches_seats(&self) -> bool {
        self.version.is_some()
            || !self.seats.is_empty()
            || !self.counts.is_empty()
            || self.unreadable
    }
}

/// What a subscriber at some version does with a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Its map already has this change: skip it.
    Stale,
    /// The next change: apply it.
    Next,
    /// One or more changes were missed (or the change cannot be placed): read the whole map.
    Gap,
}

/// Where a change of `version` falls for a subscriber whose map is at `current`.
pub fn step(current: u32, change: &SeatMapChange) -> Step {
    match change.version {
        _ if change.unreadable => Step::Gap,
        Some(version) if version <= current => Step::Stale,
        Some(version) if version == current + 1 => Step::Next,
        _ => Step::Gap,
    }
}

/// The kinds of a showtime's seats, by row label and position: what a change needs to say of
/// each seat besides its state (a write names only the state).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeatKinds {
    rows: Vec<(String, Vec<Option<SeatKind>>)>,
}

impl SeatKinds {
    pub fn new(rows: Vec<(String, Vec<Option<SeatKind>>)>) -> Self {
        SeatKinds { rows }
    }

    /// The kind of the seat at `row`, `column`; `None` for a gap or a seat not in the hall.
    pub fn kind(&self, row: &str, column: usize) -> Option<SeatKind> {
        let (_, positions) = self.rows.iter().find(|(label, _)| label == row)?;
        positions.get(column).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(version: Option<u32>) -> SeatMapChange {
        SeatMapChange {
            version,
            ..SeatMapChange::default()
        }
    }

    #[test]
    fn a_subscriber_applies_the_next_version_skips_older_ones_and_reads_again_after_a_gap() {
        assert_eq!(step(4, &change(Some(5))), Step::Next);
        assert_eq!(step(4, &change(Some(4))), Step::Stale);
        assert_eq!(step(4, &change(Some(1))), Step::Stale);
        assert_eq!(step(4, &change(Some(6))), Step::Gap);
        assert_eq!(step(4, &change(None)), Step::Gap);
        let unreadable = SeatMapChange {
            unreadable: true,
            ..change(Some(5))
        };
        assert_eq!(step(4, &unreadable), Step::Gap);
    }

    #[test]
    fn a_counts_patch_replaces_only_the_counts_it_names() {
        let counts = SeatCounts {
            available: 10,
            held: 2,
            sold: 3,
            blocked: 1,
        };
        let patch = CountsPatch {
            available: Some(8),
            held: Some(4),
            ..CountsPatch::default()
        };
        assert_eq!(
            patch.applied_to(counts),
            SeatCounts {
                available: 8,
                held: 4,
                sold: 3,
                blocked: 1
            }
        );
        assert!(CountsPatch::default().is_empty() && !patch.is_empty());
    }

    #[test]
    fn a_write_that_names_no_seat_count_or_version_touches_no_seat_map() {
        assert!(!SeatMapChange::default().touches_seats());
        assert!(change(Some(1)).touches_seats());
    }

    #[test]
    fn kinds_are_found_by_row_and_position_and_gaps_have_none() {
        let kinds = SeatKinds::new(vec![
            ("A".into(), vec![Some(SeatKind::Standard), None]),
            ("B".into(), vec![Some(SeatKind::Couple)]),
        ]);
        assert_eq!(kinds.kind("A", 0), Some(SeatKind::Standard));
        assert_eq!(kinds.kind("A", 1), None);
        assert_eq!(kinds.kind("B", 0), Some(SeatKind::Couple));
        assert_eq!(kinds.kind("C", 0), None);
        assert_eq!(kinds.kind("B", 9), None);
    }
}
