//! Rules of a hold request: how many seats, which ones, for how long.

use std::collections::HashSet;
use std::time::Duration;

use super::best_seats::{Cell, SeatGrid};
use super::layout::{parse_seat_label, SeatPosition};
use crate::error::ApiError;

/// The sales policy every hold obeys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldPolicy {
    /// The most seats one hold may take.
    pub max_seats: usize,
    /// How long a hold lasts.
    pub ttl: Duration,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::seat::SeatKind;

    const POLICY: HoldPolicy = HoldPolicy {
        max_seats: 4,
        ttl: Duration::from_secs(600),
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
}
