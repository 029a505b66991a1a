//! `SeatMap`: the live state of every seat of a showtime, built from the stored document as
//! the query asks: counts need no seats (and none are read, see `Showtime.seatMap`); a row's
//! label and its compact `states` need no object per seat; a seat's label is written only when
//! asked.

use std::sync::Arc;

use async_graphql::{Enum, Object, SimpleObject};

use crate::domain::layout::{seat_label, MAX_CAPACITY, MAX_ROW_LENGTH};
use crate::store::documents::{SeatMapDoc, SeatView};

/// What kind of seat a position is.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[graphql(remote = "crate::domain::seat::SeatKind")]
pub enum SeatKind {
    /// An ordinary seat.
    Standard,
    /// A premium seat.
    Vip,
    /// A space for a wheelchair user.
    Wheelchair,
    /// One half of a two-person love seat.
    Couple,
}

/// Where a seat is in the sale: AVAILABLE → HELD → SOLD; BLOCKED seats are not for sale.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
#[graphql(remote = "crate::domain::seat::SeatState")]
pub enum SeatState {
    /// Free to hold.
    Available,
    /// Held by a channel's customer, not yet paid.
    Held,
    /// Sold in an order.
    Sold,
    /// Not for sale (broken, reserved for staff).
    Blocked,
}

/// One seat of a showtime (its row, its position, and its kind and state).
pub struct Seat<'a> {
    row: &'a str,
    column: usize,
    view: SeatView,
}

/// One seat of a showtime.
#[Object]
impl Seat<'_> {
    /// The seat's label, row then number: "D7".
    async fn label(&self) -> String {
        seat_label(self.row, self.column)
    }

    /// The seat's number in its row; aisles leave numbers out.
    async fn number(&self) -> i32 {
        self.column as i32 + 1
    }

    /// 0-based position in the row, gaps included, for drawing the hall.
    async fn column(&self) -> i32 {
        self.column as i32
    }

    /// What kind of seat it is.
    async fn kind(&self) -> SeatKind {
        self.view.kind.into()
    }

    /// Its state now.
    async fn state(&self) -> SeatState {
        self.view.state.into()
    }
}

/// What a list of rows costs in the complexity limit, per row asked for: a hall has at most
/// `MAX_CAPACITY` seats in rows of at most `MAX_ROW_LENGTH`, so rows × seats per row costs as
/// much as the largest hall's seats.
pub(super) const ROWS_COST: usize = MAX_CAPACITY.div_ceil(MAX_ROW_LENGTH);
/// What a row's list of seats costs, per seat asked for.
pub(super) const ROW_SEATS_COST: usize = MAX_ROW_LENGTH;

/// One row of a seat map.
pub struct SeatRow<'a> {
    label: &'a str,
    positions: &'a [Option<SeatView>],
}

/// One row of a seat map.
#[Object]
impl SeatRow<'_> {
    /// The row's label: "A", "B", ...
    async fn label(&self) -> &str {
        self.label
    }

    /// Its seats in column order; missing columns are gaps.
    #[graphql(complexity = "1 + ROW_SEATS_COST * child_complexity")]
    async fn seats(&self) -> Vec<Seat<'_>> {
        self.positions
            .iter()
            .enumerate()
            .filter_map(|(column, view)| {
                view.map(|view| Seat {
                    row: self.label,
                    column,
                    view,
                })
            })
            .collect()
    }

    /// The row in compact form, for drawing big halls: one character per position, gaps
    /// included, so character `i` is the seat at `column` i. `a` available, `h` held,
    /// `s` sold, `b` blocked, `_` no seat (an aisle or a gap). With `kinds`, a row of the map
    /// is a few dozen bytes instead of an object per seat.
    async fn states(&self) -> String {
        self.compact(|view| view.state.letter())
    }

    /// The kinds of the row's positions, one character each as in `states`: `s` standard,
    /// `v` VIP, `w` wheelchair, `c` couple (two `c`s side by side are one love seat), `_` no
    /// seat.
    async fn kinds(&self) -> String {
        self.compact(|view| view.kind.letter())
    }
}

impl SeatRow<'_> {
    /// One character per position: the seat's `letter`, or `_` for a gap.
    fn compact(&self, letter: impl Fn(&SeatView) -> char) -> String {
        self.positions
            .iter()
            .map(|view| view.as_ref().map_or('_', &letter))
            .collect()
    }
}

/// How many seats are in each state; they add up to the capacity.
#[derive(SimpleObject)]
pub struct SeatCounts {
    /// Free to hold.
    pub available: i32,
    /// Held, not yet paid.
    pub held: i32,
    /// Sold.
    pub sold: i32,
    /// Not for sale.
    pub blocked: i32,
    /// All seats: available + held + sold + blocked.
    pub capacity: i32,
}

/// The seats of one showtime and their states, read from its inventory document in one go.
pub struct SeatMap(pub Arc<SeatMapDoc>);

/// The seats of one showtime and their states, read from its inventory document in one go.
#[Object]
impl SeatMap {
    /// Rows from the screen backwards.
    #[graphql(complexity = "1 + ROWS_COST * child_complexity")]
    async fn rows(&self) -> Vec<SeatRow<'_>> {
        self.0
            .seats
            .iter()
            .map(|(label, positions)| SeatRow { label, positions })
            .collect()
    }

    /// Positions in the widest row, gaps included.
    async fn width(&self) -> i32 {
        self.0.seats.values().map(Vec::len).max().unwrap_or(0) as i32
    }

    /// Seats per state.
    async fn counts(&self) -> SeatCounts {
        SeatCounts::of(self.0.counts, self.0.capacity)
    }
}

impl SeatMap {
    /// Whether the selection of a seat map (its look-ahead, fragments included) needs its
    /// seats read (`rows` or `width`), not only its counts.
    pub fn needs_seats(selection: &async_graphql::Lookahead<'_>) -> bool {
        selection.field("rows").exists() || selection.field("width").exists()
    }
}
