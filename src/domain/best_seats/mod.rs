//! Best N adjacent seats: what a channel gets when it asks for "2 good seats together".
//!
//! The picker scans every block of `count` consecutive positions of every row and keeps the one
//! with the lowest rank. The rules, most important first:
//!
//! 1. **Valid block** (hard rule): one row, consecutive columns, no gap inside (an aisle breaks
//!    adjacency: people will not call seats across an aisle "together"), every seat free and of
//!    the requested kind. Couple seats are sold as love seats: within a run of consecutive couple
//!    seats, seats pair up from the run's left end (its columns 0-1, 2-3, ...), a block must be
//!    whole pairs, so `count` must be even. An odd seat at the run's right end belongs to no pair
//!    and is never sold as a couple seat.
//! 2. **No orphans** (strong preference): a single free seat squeezed between the block and a
//!    taken seat, a gap or the row's end is nearly unsellable, as almost nobody goes to the
//!    cinema alone in the middle of strangers. On each side of the block we count the free seats
//!    (of any kind, since an isolated seat is a loss whatever its kind) up to the next taken seat,
//!    gap or row end; a side with exactly one is an orphan. Fewer orphans (0, 1 or 2) always win,
//!    whatever the position; an orphaning block is still returned when nothing better exists,
//!    because selling the seats matters more than the leftover.
//! 3. **Nearest the sweet spot**: the lowest weighted distance from the block's centre to the
//!    hall's ideal seat, see [`ROW_WEIGHT`] and [`COLUMN_WEIGHT`].
//! 4. **Deterministic ties**: lower row index (nearer the screen), then lower column.
//!
//! Distances are computed in integer tenths of a seat, so ties are exact and the answer never
//! depends on floating-point rounding.
//!
//! The scan costs O(rows × columns) with O(1) work per candidate block (halls have at most
//! 1,000 seats) and allocates only the answer.

use std::ops::Range;

mod grid;
#[cfg(test)]
mod tests;

pub use grid::{Cell, SeatGrid};

use super::layout::SeatPosition;
use super::seat::SeatKind;

/// The cost of being one row in front of or behind the ideal row, in seats off-centre.
///
/// A row away changes the viewing distance and angle to the whole screen, while a seat to the
/// side barely changes the picture, and rows are about twice as deep as seats are wide: so one
/// row off weighs as much as two seats off-centre.
pub const ROW_WEIGHT: u64 = 2;
/// The cost of the block's centre being one seat left or right of the hall's centre line.
pub const COLUMN_WEIGHT: u64 = 1;
/// How far back the ideal row is, in tenths of the way from the front row to the back row.
///
/// Around 60 % back (the usual rule of thumb, a little short of "two thirds back") the screen
/// fills the view without craning the neck. Measured on row indices, so row 0 is 0 % and the
/// last row 100 %: a 10-row hall's ideal is row index 5.4.
pub const IDEAL_DEPTH_TENTHS: u64 = 6;

/// The best `count` adjacent free seats of `kind`, sorted by column, or `None` when no row has
/// such a block (or `count` is 0, or odd for couple seats). See the module docs for the rules.
pub fn best_adjacent(grid: &SeatGrid, count: usize, kind: SeatKind) -> Option<Vec<SeatPosition>> {
    best_block(grid, count, kind).map(|block| block.seats)
}

/// The block [`best_adjacent`] chooses, with what made it win: how many single seats it leaves
/// and how far its centre is from the hall's sweet spot (to compare blocks of different halls).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BestBlock {
    /// The seats, sorted by column.
    pub seats: Vec<SeatPosition>,
    /// Single free seats it leaves beside it: 0, 1 or 2.
    pub orphans: usize,
    /// The weighted distance of its centre from the sweet spot, in tenths of a seat
    /// ([`ROW_WEIGHT`], [`COLUMN_WEIGHT`]).
    pub distance_tenths: u64,
}

/// [`best_adjacent`] with its rank.
pub fn best_block(grid: &SeatGrid, count: usize, kind: SeatKind) -> Option<BestBlock> {
    if count == 0 || (kind == SeatKind::Couple && !count.is_multiple_of(2)) {
        return None;
    }
    let sweet_spot = SweetSpot::of(grid);
    let best = grid
        .rows
        .iter()
        .enumerate()
        .flat_map(|(row, cells)| {
            block_starts(cells, count, kind).map(move |start| {
                let block = start..start + count;
                Rank {
                    orphans: orphans_beside(cells, block.clone()),
                    distance: sweet_spot.distance(row, block),
                    row,
                    column: start,
                }
            })
        })
        .min()?;
    Some(BestBlock {
        seats: (best.column..best.column + count)
            .map(|column| SeatPosition {
                row: best.row,
                column,
            })
            .collect(),
        orphans: best.orphans,
        distance_tenths: best.distance,
    })
}

/// The best `count` free seats of `kind` wherever they are (a party that need not sit
/// together): each the nearest the sweet spot left, ties to the front row then the left,
/// sorted by row then column. Couple seats are sold in pairs, so they are chosen together
/// ([`best_adjacent`]). `None` when fewer are free (or `count` is 0).
pub fn best_scattered(grid: &SeatGrid, count: usize, kind: SeatKind) -> Option<Vec<SeatPosition>> {
    if kind == SeatKind::Couple {
        return best_adjacent(grid, count, kind);
    }
    if count == 0 {
        return None;
    }
    let sweet_spot = SweetSpot::of(grid);
    let mut free: Vec<(u64, usize, usize)> = grid
        .rows
        .iter()
        .enumerate()
        .flat_map(|(row, cells)| {
            cells
                .iter()
                .enumerate()
                .filter(move |&(_, &cell)| cell == (Cell::Seat { kind, free: true }))
                .map(move |(column, _)| (sweet_spot.distance(row, column..column + 1), row, column))
        })
        .collect();
    if free.len() < count {
        return None;
    }
    free.select_nth_unstable(count - 1);
    let mut chosen: Vec<SeatPosition> = free[..count]
        .iter()
        .map(|&(_, row, column)| SeatPosition { row, column })
        .collect();
    chosen.sort_by_key(|seat| (seat.row, seat.column));
    Some(chosen)
}

/// How many single free seats (0, 1 or 2) taking `columns` of `row` would leave isolated next
/// to them, between the block and a taken seat, a gap or the row's end.
///
/// # Panics
///
/// When `row` or `columns` is outside the grid.
pub fn orphans_left(grid: &SeatGrid, row: usize, columns: Range<usize>) -> usize {
    orphans_beside(&grid.rows[row], columns)
}

/// Why one block beats another: fields compare in order, so the derived `Ord` *is* the
/// priority of the rules (fewer orphans, then nearer the sweet spot, then the tie-breaks).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Rank {
    orphans: usize,
    distance: u64,
    row: usize,
    column: usize,
}

/// The first columns of every valid block of `count` free seats of `kind` in a row, left to
/// right, in one pass.
fn block_starts(cells: &[Cell], count: usize, kind: SeatKind) -> impl Iterator<Item = usize> + '_ {
    // Where the current run of free seats of `kind` began, and where the current run of seats
    // of `kind` (free or not) began: couple pairs count from the latter, since a taken love
    // seat still takes its partner's place in the pairing.
    let mut free_run_from = 0;
    let mut kind_run_from = 0;
    cells.iter().enumerate().filter_map(move |(column, &cell)| {
        if !cell.is_kind(kind) {
            kind_run_from = column + 1;
        }
        if cell != (Cell::Seat { kind, free: true }) {
            free_run_from = column + 1;
            return None;
        }
        // The block that ends on this column, if it fits in the run of free seats of `kind`.
        let start = (column + 1)
            .checked_sub(count)
            .filter(|&start| start >= free_run_from)?;
        // That run lies within a run of seats of `kind`, so `start >= kind_run_from`.
        let whole_pairs = kind != SeatKind::Couple || (start - kind_run_from).is_multiple_of(2);
        whole_pairs.then_some(start)
    })
}

/// How many sides of the block leave exactly one free seat before a taken seat, gap or row end.
fn orphans_beside(cells: &[Cell], block: Range<usize>) -> usize {
    let left = is_single(cells[..block.start].iter().rev());
    let right = is_single(cells[block.end..].iter());
    usize::from(left) + usize::from(right)
}

/// Whether exactly one free seat starts the walk; looks at two cells at most.
fn is_single<'a>(walk: impl Iterator<Item = &'a Cell>) -> bool {
    walk.take_while(|cell| cell.is_free()).take(2).count() == 1
}

/// The hall's ideal seat, in tenths of a row and of a column so distances stay integers.
#[derive(Debug, Clone, Copy)]
struct SweetSpot {
    row_tenths: u64,
    column_tenths: u64,
}

impl SweetSpot {
    /// Horizontally the centre of the widest row: columns are physical positions and narrower
    /// rows are centred with leading gaps but no trailing ones (see `demo::layouts`), so a row's
    /// own length would put its "centre" left of the screen's. Vertically
    /// [`IDEAL_DEPTH_TENTHS`] of the way from the front row to the back row.
    fn of(grid: &SeatGrid) -> Self {
        let back_row = grid.rows.len().saturating_sub(1) as u64;
        let last_column = grid.width().saturating_sub(1) as u64;
        SweetSpot {
            row_tenths: IDEAL_DEPTH_TENTHS * back_row,
            // The centre of columns 0..=last is last / 2 = 5 * last tenths.
            column_tenths: 5 * last_column,
        }
    }

    /// The weighted (Manhattan) distance from the centre of `block` in `row` to the sweet spot.
    fn distance(&self, row: usize, block: Range<usize>) -> u64 {
        let row_tenths = 10 * row as u64;
        // The block's centre is (start + end - 1) / 2.
        let centre_tenths = 5 * (block.start + block.end - 1) as u64;
        ROW_WEIGHT * row_tenths.abs_diff(self.row_tenths)
            + COLUMN_WEIGHT * centre_tenths.abs_diff(self.column_tenths)
    }
}
