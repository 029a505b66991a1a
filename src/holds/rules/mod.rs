//! Rules of a hold request: how many seats, which ones, for how long; `extension`: how far
//! `extendHold` moves a hold's expiry.

pub mod extension;

use std::collections::HashSet;
use std::time::Duration;

use crate::domain::best_seats::{Cell, SeatGrid};
use crate::domain::layout::{parse_seat_label, SeatPosition};
use crate::domain::seat::SeatKind;
use crate::error::ApiError;

/// How long a hold lasts, in seconds, unless `--hold-ttl-seconds` says otherwise (a waiting
/// party's offer is a hold too, and lasts as long).
pub const HOLD_SECONDS: u64 = 600;
/// How much longer an extended hold lasts, in seconds, unless `--hold-extension-seconds` says
/// otherwise.
pub const EXTENSION_SECONDS: u64 = 300;

/// The most product lines one hold may carry beside its seats.
pub const MAX_ITEM_LINES: usize = 10;

/// The sales policy every hold obeys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldPolicy {
    /// The most seats one hold may take.
    pub max_seats: usize,
    /// How long a hold lasts.
    pub ttl: Duration,
    /// How much longer a hold lasts once `extendHold` extended it (at most once).
    pub extension: Duration,
}

/// Checks a seat count against the policy.
pub fn validate_count(count: usize, policy: &HoldPolicy) -> Result<(), ApiError> {
    if count == 0 || count > policy.max_seats {
        return Err(ApiError::bad_input(format!(
            "a hold takes 1 to {} seats, not {count}",
            policy.max_seats
        )));
    }
    Ok(())
}

/// Locates named seats ("D7") in a grid whose rows are labelled `row_labels`: BAD_USER_INPUT for
/// malformed, repeated or unknown labels, or too many seats.
pub fn locate_named(
    row_labels: &[String],
    grid: &SeatGrid,
    labels: &[String],
    policy: &HoldPolicy,
) -> Result<Vec<SeatPosition>, ApiError> {
    validate_count(labels.len(), policy)?;
    let mut seen = HashSet::new();
    labels
        .iter()
        .map(|label| {
            if !seen.insert(label.as_str()) {
                return Err(ApiError::bad_input(format!(
                    "seat {label} is asked for twice"
                )));
            }
            let (row_label, number) = parse_seat_label(label)?;
            let not_a_seat = || ApiError::bad_input(format!("{label} is not a seat of this hall"));
            let row = row_labels
                .iter()
                .position(|r| r == row_label)
                .ok_or_else(not_a_seat)?;
            match grid.rows[row].get(number - 1) {
                Some(Cell::Seat { .. }) => Ok(SeatPosition {
                    row,
                    column: number - 1,
                }),
                _ => Err(not_a_seat()),
            }
        })
        .collect()
}

/// The seat that shares a love seat with the couple seat at `position`: within a run of
/// consecutive couple seats, seats pair up from the run's left end (as `best_seats` sells them).
/// None for a seat that is not a couple seat, or the odd seat at a run's end (which layouts
/// refuse).
pub fn couple_partner(grid: &SeatGrid, position: SeatPosition) -> Option<SeatPosition> {
    let row = &grid.rows[position.row];
    let is_couple = |column: usize| matches!(row.get(column), Some(Cell::Seat { kind, .. }) if *kind == SeatKind::Couple);
    if !is_couple(position.column) {
        return None;
    }
    let run_start = (0..position.column)
        .rev()
        .take_while(|&column| is_couple(column))
        .last()
        .unwrap_or(position.column);
    let partner = if (position.column - run_start).is_multiple_of(2) {
        position.column + 1
    } else {
        position.column - 1
    };
    is_couple(partner).then_some(SeatPosition {
        row: position.row,
        column: partner,
    })
}

/// BAD_USER_INPUT when a named couple seat comes without the other half of its love seat
/// (`label` names a position): couple seats are sold in pairs.
pub fn check_couple_pairs(
    grid: &SeatGrid,
    positions: &[SeatPosition],
    label: impl Fn(SeatPosition) -> String,
) -> Result<(), ApiError> {
    let asked: HashSet<SeatPosition> = positions.iter().copied().collect();
    for &position in positions {
        let Cell::Seat {
            kind: SeatKind::Couple,
            ..
        } = grid.rows[position.row][position.column]
        else {
            continue;
        };
        match couple_partner(grid, position) {
            Some(partner) if asked.contains(&partner) => {}
            Some(partner) => {
                return Err(ApiError::bad_input(format!(
                    "couple seats are sold in pairs: {} needs {} in the same hold",
                    label(position),
                    label(partner)
                )))
            }
            None => {
                return Err(ApiError::bad_input(format!(
                    "{} is a couple seat without a partner and cannot be sold",
                    label(position)
                )))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: HoldPolicy = HoldPolicy {
        max_seats: 4,
        ttl: Duration::from_secs(HOLD_SECONDS),
        extension: Duration::from_secs(EXTENSION_SECONDS),
    };

    fn grid() -> (Vec<String>, SeatGrid) {
        let seat = Cell::Seat {
            kind: SeatKind::Standard,
            free: true,
        };
        (
            vec!["A".into(), "B".into()],
            SeatGrid::new(vec![vec![seat, Cell::Gap, seat], vec![seat, seat]]),
        )
    }

    fn labels(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn finds_named_seats() {
        let (rows, grid) = grid();
        let found = locate_named(&rows, &grid, &labels(&["A3", "B1"]), &POLICY).unwrap();
        assert_eq!(
            found,
            [
                SeatPosition { row: 0, column: 2 },
                SeatPosition { row: 1, column: 0 }
            ]
        );
    }

    #[test]
    fn refuses_gaps_unknown_repeated_and_too_many_seats() {
        let (rows, grid) = grid();
        for (asked, says) in [
            (labels(&["A2"]), "A2 is not a seat"),
            (labels(&["C1"]), "C1 is not a seat"),
            (labels(&["B9"]), "B9 is not a seat"),
            (labels(&["A1", "A1"]), "asked for twice"),
            (labels(&["x"]), "not a seat label"),
            (labels(&[]), "1 to 4 seats, not 0"),
            (labels(&["A1", "A3", "B1", "B2", "B3"]), "not 5"),
        ] {
            let error = locate_named(&rows, &grid, &asked, &POLICY).unwrap_err();
            assert!(error.to_string().contains(says), "{asked:?}: {error}");
        }
    }

    #[test]
    fn couple_seats_are_sold_with_their_partner() {
        let couple = |free| Cell::Seat {
            kind: SeatKind::Couple,
            free,
        };
        let standard = Cell::Seat {
            kind: SeatKind::Standard,
            free: true,
        };
        // Columns: S C C C C _ C C: pairs (1,2) (3,4) (6,7).
        let grid = SeatGrid::new(vec![vec![
            standard,
            couple(true),
            couple(true),
            couple(false),
            couple(true),
            Cell::Gap,
            couple(true),
            couple(true),
        ]]);
        let at = |column| SeatPosition { row: 0, column };
        assert_eq!(couple_partner(&grid, at(1)), Some(at(2)));
        assert_eq!(couple_partner(&grid, at(2)), Some(at(1)));
        assert_eq!(couple_partner(&grid, at(4)), Some(at(3)));
        assert_eq!(couple_partner(&grid, at(6)), Some(at(7)));
        assert_eq!(couple_partner(&grid, at(0)), None);
        let label = |p: SeatPosition| format!("A{}", p.column + 1);
        check_couple_pairs(&grid, &[at(0), at(2), at(1), at(6), at(7)], label).unwrap();
        let error = check_couple_pairs(&grid, &[at(2), at(3)], label).unwrap_err();
        assert!(error.to_string().contains("A3 needs A2"), "{error}");
        let error = check_couple_pairs(&grid, &[at(7)], label).unwrap_err();
        assert!(error.to_string().contains("A8 needs A7"), "{error}");
    }
}
