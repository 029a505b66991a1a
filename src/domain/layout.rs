//! Hall layouts: preallocated 2-D grids of seat positions (seed 003).
//!
//! A layout is a list of rows, each a list of positions that are either a seat of some kind or a
//! gap (an aisle, a pillar). Seat "D7" is row `D`, position 7 (1-based), so finding a seat is a
//! direct index and a seat's number is its physical column: aisles leave numbers out.

use serde::{Deserialize, Serialize};

use super::seat::SeatKind;
use crate::error::ApiError;

/// The most seats a hall may have.
pub const MAX_CAPACITY: usize = 1_000;
/// The most positions (seats and gaps) a row may have.
pub const MAX_ROW_LENGTH: usize = 60;
/// The most rows a hall may have (the deepest real halls have about 40).
pub const MAX_ROWS: usize = 60;

/// One row of a hall: its label and its positions, `None` being a gap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutRow {
    pub label: String,
    pub positions: Vec<Option<SeatKind>>,
}

/// The seat layout of a hall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HallLayout {
    pub rows: Vec<LayoutRow>,
}

/// A seat located in a layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SeatPosition {
    /// Index of the row in the layout.
    pub row: usize,
    /// 0-based column; the seat's number is `column + 1`.
    pub column: usize,
}

impl HallLayout {
    /// The kinds of seat it has.
    pub fn seat_kinds(&self) -> std::collections::HashSet<SeatKind> {
        self.rows
            .iter()
            .flat_map(|row| row.positions.iter().flatten().copied())
            .collect()
    }

    /// The number of seats (gaps do not count).
    pub fn capacity(&self) -> usize {
        self.rows
            .iter()
            .map(|row| row.positions.iter().flatten().count())
            .sum()
    }

    /// The widest row, in positions.
    pub fn width(&self) -> usize {
        self.rows
            .iter()
            .map(|row| row.positions.len())
            .max()
            .unwrap_or(0)
    }

    /// Checks the layout can be sold: labelled rows, not too large, at least one seat, couple
    /// seats in whole pairs.
    pub fn validate(&self) -> Result<(), ApiError> {
        self.validate_within(MAX_CAPACITY)
    }

    /// [`HallLayout::validate`] with at most `max_seats` seats (the configured
    /// `--max-hall-seats`; never more than [`MAX_CAPACITY`]).
    pub fn validate_within(&self, max_seats: usize) -> Result<(), ApiError> {
        let max_seats = max_seats.min(MAX_CAPACITY);
        if self.rows.is_empty() {
            return Err(ApiError::bad_input("a hall layout needs at least one row"));
        }
        if self.rows.len() > MAX_ROWS {
            return Err(ApiError::bad_input(format!(
                "a hall layout has {} rows; at most {MAX_ROWS}",
                self.rows.len()
            )));
        }
        let mut seen = std::collections::HashSet::new();
        for row in &self.rows {
            if row.label.is_empty()
                || row.label.len() > 3
                || !row.label.chars().all(|c| c.is_ascii_uppercase())
            {
                return Err(ApiError::bad_input(format!(
                    "row label `{}` must be 1 to 3 capital letters",
                    row.label
                )));
            }
            if !seen.insert(row.label.as_str()) {
                return Err(ApiError::bad_input(format!(
                    "row `{}` appears twice",
                    row.label
                )));
            }
            if row.positions.len() > MAX_ROW_LENGTH {
                return Err(ApiError::bad_input(format!(
                    "row `{}` has {} positions; at most {MAX_ROW_LENGTH}",
                    row.label,
                    row.positions.len()
                )));
            }
            if let Some(column) = odd_couple_run(&row.positions) {
                return Err(ApiError::bad_input(format!(
                    "couple seats come in pairs: the run of couple seats ending at {} has an odd \
                     number of seats",
                    seat_label(&row.label, column)
                )));
            }
        }
        match self.capacity() {
            0 => Err(ApiError::bad_input("a hall layout needs at least one seat")),
            n if n > max_seats => Err(ApiError::bad_input(format!(
                "a hall has {n} seats; at most {max_seats}"
            ))),
            _ => Ok(()),
        }
    }

    /// Finds seat "D7": `Ok(None)` when the label is well formed but names no seat of this hall.
    pub fn locate(&self, label: &str) -> Result<Option<SeatPosition>, ApiError> {
        let (row_label, number) = parse_seat_label(label)?;
        let Some(row) = self.rows.iter().position(|r| r.label == row_label) else {
            return Ok(None);
        };
        let column = number - 1;
        Ok(match self.rows[row].positions.get(column) {
            Some(Some(_)) => Some(SeatPosition { row, column }),
            _ => None,
        })
    }
}

/// The last column of the first run of consecutive couple seats of odd length, if any: love
/// seats pair up from a run's left end (see `best_seats`), so an odd run leaves a seat that can
/// never be sold as a couple seat.
fn odd_couple_run(positions: &[Option<SeatKind>]) -> Option<usize> {
    let mut run = 0;
    for (column, position) in positions.iter().enumerate() {
        if *position == Some(SeatKind::Couple) {
            run += 1;
            let ends = positions.get(column + 1) != Some(&Some(SeatKind::Couple));
            if ends && run % 2 == 1 {
                return Some(column);
            }
        } else {
            run = 0;
        }
    }
    None
}

/// The label of the seat at a column of a row: row "D", column 6 → "D7".
pub fn seat_label(row_label: &str, column: usize) -> String {
    format!("{row_label}{}", column + 1)
}

/// Splits "D7" into ("D", 7); the number is 1-based.
pub fn parse_seat_label(label: &str) -> Result<(&str, usize), ApiError> {
    let split = label
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(label.len());
    let (row, number) = label.split_at(split);
    let bad = || {
        ApiError::bad_input(format!(
            "`{label}` is not a seat label: a row's capital letters then a seat number, like D7"
        ))
    };
    if row.is_empty() || !row.chars().all(|c| c.is_ascii_uppercase()) {
        return Err(bad());
    }
    match number.parse::<usize>() {
        Ok(n) if n >= 1 && !number.starts_with('0') => Ok((row, n)),
        _ => Err(bad()),
    }
}

/// Row labels in order: A..Z, then AA, AB, ...
pub fn row_label(index: usize) -> String {
    let letter = |i: usize| char::from(b'A' + i as u8);
    if index < 26 {
        letter(index).to_string()
    } else {
        format!("{}{}", letter(index / 26 - 1), letter(index % 26))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SeatKind::*;

    fn small_hall() -> HallLayout {
        HallLayout {
            rows: vec![
                LayoutRow {
                    label: "A".into(),
                    positions: vec![Some(Standard), Some(Standard), None, Some(Standard)],
                },
                LayoutRow {
                    label: "B".into(),
                    positions: vec![Some(Couple), Some(Couple), None, Some(Wheelchair)],
                },
            ],
        }
    }

    #[test]
    fn capacity_counts_seats_not_gaps() {
        assert_eq!(small_hall().capacity(), 6);
        assert_eq!(small_hall().width(), 4);
        assert!(small_hall().validate().is_ok());
    }

    #[test]
    fn locates_seats_by_label_directly() {
        let hall = small_hall();
        assert_eq!(
            hall.locate("A4").unwrap(),
            Some(SeatPosition { row: 0, column: 3 })
        );
        assert_eq!(
            hall.locate("B1").unwrap(),
            Some(SeatPosition { row: 1, column: 0 })
        );
        // a gap, a column past the row, an unknown row: well formed but not seats
        assert_eq!(hall.locate("A3").unwrap(), None);
        assert_eq!(hall.locate("A9").unwrap(), None);
        assert_eq!(hall.locate("Z1").unwrap(), None);
    }

    #[test]
    fn rejects_malformed_labels() {
        for bad in ["", "7", "D", "d7", "D0", "D07", "D-1", "D7x", "Д7"] {
            assert!(parse_seat_label(bad).is_err(), "{bad} should be rejected");
        }
        assert_eq!(parse_seat_label("AB12").unwrap(), ("AB", 12));
        assert_eq!(seat_label("D", 6), "D7");
    }

    #[test]
    fn row_labels_continue_past_z() {
        assert_eq!(row_label(0), "A");
        assert_eq!(row_label(25), "Z");
        assert_eq!(row_label(26), "AA");
        assert_eq!(row_label(27), "AB");
    }

    #[test]
    fn validation_names_the_problem() {
        let mut hall = small_hall();
        hall.rows[1].label = "A".into();
        assert!(hall
            .validate()
            .unwrap_err()
            .to_string()
            .contains("appears twice"));
        let empty = HallLayout { rows: vec![] };
        assert!(empty.validate().is_err());
        let gaps_only = HallLayout {
            rows: vec![LayoutRow {
                label: "A".into(),
                positions: vec![None, None],
            }],
        };
        assert!(gaps_only
            .validate()
            .unwrap_err()
            .to_string()
            .contains("at least one seat"));
    }

    #[test]
    fn couple_seats_come_in_whole_pairs() {
        let row = |positions: Vec<Option<SeatKind>>| HallLayout {
            rows: vec![LayoutRow {
                label: "A".into(),
                positions,
            }],
        };
        assert!(
            row(vec![Some(Couple), Some(Couple), Some(Couple), Some(Couple)])
                .validate()
                .is_ok()
        );
        let odd = row(vec![Some(Couple), Some(Couple), Some(Couple), None]);
        let message = odd.validate().unwrap_err().to_string();
        assert!(message.contains("ending at A3"), "{message}");
        // A gap ends a run: two runs of one seat each are both odd.
        let split = row(vec![Some(Couple), None, Some(Couple)]);
        assert!(split.validate().unwrap_err().to_string().contains("A1"));
    }

    #[test]
    fn a_configured_maximum_caps_the_seats() {
        let message = small_hall().validate_within(5).unwrap_err().to_string();
        assert!(message.contains("6 seats; at most 5"), "{message}");
        assert!(small_hall().validate_within(6).is_ok());
        // Never above what a seat map's complexity assumes.
        assert_eq!(
            small_hall().validate_within(usize::MAX).is_ok(),
            small_hall().validate().is_ok()
        );
    }
}
