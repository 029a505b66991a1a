//! A showtime's seats as the picker sees them: gaps, and seats of a kind, free or not.

use crate::domain::layout::{HallLayout, SeatPosition};
use crate::domain::seat::SeatKind;

/// One position of a showtime's seat grid as the picker sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// No seat: an aisle, a pillar, or the space in front of a narrower row.
    Gap,
    /// A seat; `free` when it can be held now (AVAILABLE, or HELD with an expired hold).
    Seat { kind: SeatKind, free: bool },
}

impl Cell {
    /// A seat that can be held now, whatever its kind.
    pub(super) fn is_free(self) -> bool {
        matches!(self, Cell::Seat { free: true, .. })
    }

    /// A seat of `kind`, free or not.
    pub(super) fn is_kind(self, kind: SeatKind) -> bool {
        matches!(self, Cell::Seat { kind: k, .. } if k == kind)
    }
}

/// The seat grid of one showtime: rows in hall order (row 0 at the screen), each a list of
/// positions by column. Columns are physical positions, as in [`HallLayout`]: rows line up
/// column by column, and a narrower row starts with gaps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeatGrid {
    pub rows: Vec<Vec<Cell>>,
}

impl SeatGrid {
    /// A grid from its rows, front first.
    pub fn new(rows: Vec<Vec<Cell>>) -> Self {
        SeatGrid { rows }
    }

    /// The grid of a hall layout, `is_free` telling which seats can be held now.
    pub fn from_layout(layout: &HallLayout, mut is_free: impl FnMut(SeatPosition) -> bool) -> Self {
        let rows = layout
            .rows
            .iter()
            .enumerate()
            .map(|(row, layout_row)| {
                layout_row
                    .positions
                    .iter()
                    .enumerate()
                    .map(|(column, position)| match *position {
                        None => Cell::Gap,
                        Some(kind) => Cell::Seat {
                            kind,
                            free: is_free(SeatPosition { row, column }),
                        },
                    })
                    .collect()
            })
            .collect();
        SeatGrid { rows }
    }

    /// The widest row, in positions (gaps included).
    pub fn width(&self) -> usize {
        self.rows.iter().map(Vec::len).max().unwrap_or(0)
    }
}
