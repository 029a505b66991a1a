//! `SeatMap`: the live state of every seat of a showtime.

use async_graphql::{ComplexObject, Enum, SimpleObject};

use crate::domain::layout::{MAX_CAPACITY, MAX_ROW_LENGTH};

use crate::domain::layout::seat_label;
use crate::domain::seat;
use crate::store::documents::SeatInventoryDoc;

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

/// One seat of a showtime.
#[derive(SimpleObject)]
pub struct Seat {
    /// The seat's label, row then number: "D7".
    pub label: String,
    /// The seat's number in its row; aisles leave numbers out.
    pub number: i32,
    /// 0-based position in the row, gaps included, for drawing the hall.
    pub column: i32,
    /// What kind of seat it is.
    pub kind: SeatKind,
    /// Its state now.
    pub state: SeatState,
}

/// What a list of rows costs in the complexity limit, per row asked for: a hall has at most
/// `MAX_CAPACITY` seats in rows of at most `MAX_ROW_LENGTH`, so rows × seats per row costs as
/// much as the largest hall's seats.
pub(super) const ROWS_COST: usize = MAX_CAPACITY.div_ceil(MAX_ROW_LENGTH);
/// What a row's list of seats costs, per seat asked for.
pub(super) const ROW_SEATS_COST: usize = MAX_ROW_LENGTH;

/// One row of a seat map.
#[derive(SimpleObject)]
#[graphql(complex)]
pub struct SeatRow {
    /// The row's label: "A", "B", ...
    pub label: String,
    #[graphql(skip)]
    pub seats: Vec<Seat>,
}

#[ComplexObject]
impl SeatRow {
    /// Its seats in column order; missing columns are gaps.
    #[graphql(complexity = "1 + ROW_SEATS_COST * child_complexity")]
    async fn seats(&self) -> &[Seat] {
        &self.seats
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
#[derive(SimpleObject)]
#[graphql(complex)]
pub struct SeatMap {
    #[graphql(skip)]
    pub rows: Vec<SeatRow>,
    /// Positions in the widest row, gaps included.
    pub width: i32,
    /// Seats per state.
    pub counts: SeatCounts,
}

#[ComplexObject]
impl SeatMap {
    /// Rows from the screen backwards.
    #[graphql(complexity = "1 + ROWS_COST * child_complexity")]
    async fn rows(&self) -> &[SeatRow] {
        &self.rows
    }
}

impl From<&SeatInventoryDoc> for SeatMap {
    fn from(inventory: &SeatInventoryDoc) -> Self {
        let rows = inventory
            .seats
            .iter()
            .map(|(label, positions)| SeatRow {
                label: label.clone(),
                seats: positions
                    .iter()
                    .enumerate()
                    .filter_map(|(column, cell)| {
                        cell.as_ref().map(|cell| Seat {
                            label: seat_label(label, column),
                            number: column as i32 + 1,
                            column: column as i32,
                            kind: cell.kind.into(),
                            state: cell.state.into(),
                        })
                    })
                    .collect(),
            })
            .collect();
        let width = inventory.seats.values().map(Vec::len).max().unwrap_or(0);
        let seat::SeatCounts {
            available,
            held,
            sold,
            blocked,
        } = inventory.counts;
        SeatMap {
            rows,
            width: width as i32,
            counts: SeatCounts {
                available: available as i32,
                held: held as i32,
                sold: sold as i32,
                blocked: blocked as i32,
                capacity: inventory.capacity,
            },
        }
    }
}
