//! `SeatMap`: the live state of every seat of a showtime, built from the stored document as
//! the query asks: counts need no seats (and none are read, see `Showtime.seatMap`); a row's
//! label and its compact `states` need no object per seat; a seat's label is written only when
//! asked.

use std::sync::Arc;

use async_graphql::{Enum, Object, SimpleObject};

use crate::domain::layout::{seat_label, MAX_CAPACITY, MAX_ROW_LENGTH};
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{list_cost, SeatKind};
use crate::store::documents::{SeatMapDoc, SeatView};

/// Where a seat is in the sale: AVAILABLE → HELD → SOLD (→ ADMITTED at the door); BLOCKED
/// seats are not for sale.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatState {
    /// Free to hold.
    Available,
    /// Held by a channel's customer, not yet paid.
    Held,
    /// Sold in an order.
    Sold,
    /// Not for sale (broken, reserved for staff).
    Blocked,
    /// Sold, and its ticket was admitted at the door. Shown to that cinema's door staff
    /// only: everyone else sees SOLD.
    Admitted,
}

impl From<crate::domain::seat::SeatState> for SeatState {
    fn from(state: crate::domain::seat::SeatState) -> Self {
        use crate::domain::seat::SeatState as Stored;
        match state {
            Stored::Available => SeatState::Available,
            Stored::Held => SeatState::Held,
            Stored::Sold => SeatState::Sold,
            Stored::Blocked => SeatState::Blocked,
        }
    }
}

/// One seat of a showtime (its row, its position, and its kind and state).
pub struct Seat<'a> {
    row: &'a str,
    column: usize,
    view: SeatView,
    door_view: bool,
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

    /// Its state now (ADMITTED for door staff only).
    async fn state(&self) -> SeatState {
        if self.door_view && self.view.admitted {
            return SeatState::Admitted;
        }
        self.view.state.into()
    }
}

/// What a list of rows costs in the complexity limit, per row asked for: a hall has at most
/// `MAX_CAPACITY` seats in rows of at most `MAX_ROW_LENGTH`, so rows × seats per row costs as
/// much as the largest hall's seats.
pub const ROWS_COST: usize = MAX_CAPACITY.div_ceil(MAX_ROW_LENGTH);
/// What a row's list of seats costs, per seat asked for.
pub const ROW_SEATS_COST: usize = MAX_ROW_LENGTH;

/// One row of a seat map.
pub struct SeatRow<'a> {
    label: &'a str,
    positions: &'a [Option<SeatView>],
    door_view: bool,
}

/// One row of a seat map.
#[Object]
impl SeatRow<'_> {
    /// The row's label: "A", "B", ...
    async fn label(&self) -> &str {
        self.label
    }

    /// Its seats in column order; missing columns are gaps.
    #[graphql(complexity = "list_cost(ROW_SEATS_COST, child_complexity)")]
    async fn seats(&self) -> Vec<Seat<'_>> {
        self.positions
            .iter()
            .enumerate()
            .filter_map(|(column, view)| {
                view.map(|view| Seat {
                    row: self.label,
                    column,
                    view,
                    door_view: self.door_view,
                })
            })
            .collect()
    }

    /// The row in compact form, for drawing big halls: one character per position, gaps
    /// included, so character `i` is the seat at `column` i. `a` available, `h` held,
    /// `s` sold, `b` blocked, `_` no seat (an aisle or a gap); for door staff, `x` admitted.
    /// With `kinds`, a row of the map is a few dozen bytes instead of an object per seat.
    async fn states(&self) -> String {
        let door_view = self.door_view;
        self.compact(|view| {
            if door_view && view.admitted {
                'x'
            } else {
                view.state.letter()
            }
        })
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
pub struct SeatMap {
    doc: Arc<SeatMapDoc>,
    /// Whether the caller may see admissions: door staff (ADMITTED seats and the count) or an
    /// operator of the showtime's cinema (the count).
    viewer: Viewer,
}

/// Who reads a seat map, as far as admissions go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer {
    /// Sees admitted seats as SOLD and no count.
    Public,
    /// An operator: the count, once its scope over the cinema is checked.
    Operator(crate::domain::ids::CinemaId),
    /// Door staff of the showtime's cinema: ADMITTED seats and the count.
    Door,
}

impl SeatMap {
    pub fn new(doc: Arc<SeatMapDoc>, viewer: Viewer) -> Self {
        SeatMap { doc, viewer }
    }

    /// A map as the public sees it (live seat maps).
    pub fn public(doc: Arc<SeatMapDoc>) -> Self {
        SeatMap::new(doc, Viewer::Public)
    }
}

/// The seats of one showtime and their states, read from its inventory document in one go.
#[Object]
impl SeatMap {
    /// Rows from the screen backwards.
    #[graphql(complexity = "list_cost(ROWS_COST, child_complexity)")]
    async fn rows(&self) -> Vec<SeatRow<'_>> {
        let door_view = self.viewer == Viewer::Door;
        self.doc
            .seats
            .iter()
            .map(|(label, positions)| SeatRow {
                label,
                positions,
                door_view,
            })
            .collect()
    }

    /// Positions in the widest row, gaps included.
    async fn width(&self) -> i32 {
        self.doc.seats.values().map(Vec::len).max().unwrap_or(0) as i32
    }

    /// Seats per state (admitted seats count as sold).
    async fn counts(&self) -> SeatCounts {
        SeatCounts::of(self.doc.counts, self.doc.capacity)
    }

    /// How many tickets were admitted at the door so far, read with the map (no cache).
    /// For the cinema's door staff and operators; FORBIDDEN for anyone else.
    async fn admissions(&self, ctx: &async_graphql::Context<'_>) -> Result<i32, ApiError> {
        let allowed = match self.viewer {
            Viewer::Door => true,
            Viewer::Operator(cinema) => match ctx.caller().operator.as_deref() {
                // Boxed: see `graphql::types`.
                Some(operator) => {
                    Box::pin(ctx.store().operator_may_write(operator, cinema)).await?
                }
                None => false,
            },
            Viewer::Public => false,
        };
        if !allowed {
            return Err(ApiError::forbidden(
                "admissions are shown to the cinema's door staff and operators",
            ));
        }
        Ok(self.doc.admitted)
    }
}

impl SeatMap {
    /// Whether the selection of a seat map (its look-ahead, fragments included) needs its
    /// seats read (`rows` or `width`), not only its counts.
    pub fn needs_seats(selection: &async_graphql::Lookahead<'_>) -> bool {
        selection.field("rows").exists() || selection.field("width").exists()
    }
}
