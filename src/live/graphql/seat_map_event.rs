//! `SeatMapEvent`: one event of a live seat map, the whole map or the seats one write changed.

use async_graphql::{Enum, Object, SimpleObject, ID};

use super::seat_map::{SeatCounts, SeatMap, SeatState};
use crate::domain::global_id::GlobalId;
use crate::domain::ids::ShowtimeId;
use crate::domain::layout::seat_label;
use crate::domain::list_caps::MAX_SEATS_PER_HOLD;
use crate::domain::seat;
use crate::graphql::types::{list_cost, SeatKind};
use crate::live::SeatMapUpdate;

/// Which kind of event of a live seat map.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatMapEventKind {
    /// `seatMap` is the whole map: replace what you have with it.
    Snapshot,
    /// `changes` lists the seats one write changed: apply them to the map you have.
    Changes,
}

/// A seat whose state changed.
#[derive(SimpleObject)]
pub struct SeatChange {
    /// The seat's label: "D7".
    pub label: String,
    /// Its row's label: "D".
    pub row: String,
    /// 0-based position in the row, gaps included (as in `SeatRow.states`).
    pub column: i32,
    /// Its state now.
    pub state: SeatState,
    /// Its kind.
    pub kind: SeatKind,
}

/// One event of a showtime's live seat map: first a SNAPSHOT, then one CHANGES per write that
/// changed its seats, in order; a fresh SNAPSHOT whenever the gateway cannot vouch for the
/// changes in between (after a database hiccup, or when the client fell behind).
pub struct SeatMapEvent {
    pub showtime: ShowtimeId,
    pub update: SeatMapUpdate,
}

/// One event of a showtime's live seat map: first a SNAPSHOT, then one CHANGES per write that
/// changed its seats, in order; a fresh SNAPSHOT whenever the gateway cannot vouch for the
/// changes in between (after a database hiccup, or when the client fell behind). Applying
/// them in order always gives what a `seatMap` query would.
#[Object]
impl SeatMapEvent {
    /// The showtime's global id.
    async fn showtime_id(&self) -> ID {
        GlobalId::Showtime(self.showtime).encode().into()
    }

    /// SNAPSHOT or CHANGES.
    async fn kind(&self) -> SeatMapEventKind {
        match self.update {
            SeatMapUpdate::Snapshot(_) => SeatMapEventKind::Snapshot,
            SeatMapUpdate::Changes { .. } => SeatMapEventKind::Changes,
        }
    }

    /// The map's version after this event: one more with every write that changes the
    /// showtime's seats.
    async fn version(&self) -> i32 {
        let version = match &self.update {
            SeatMapUpdate::Snapshot(map) => map.version,
            SeatMapUpdate::Changes { version, .. } => *version,
        };
        i32::try_from(version).unwrap_or(i32::MAX)
    }

    /// The whole map, on a SNAPSHOT (null on CHANGES): the same as `Showtime.seatMap`, so ask
    /// for its compact rows (`states`, `kinds`) to draw a big hall cheaply.
    async fn seat_map(&self) -> Option<SeatMap> {
        match &self.update {
            SeatMapUpdate::Snapshot(map) => Some(SeatMap::public(map.clone())),
            SeatMapUpdate::Changes { .. } => None,
        }
    }

    /// The seats whose state changed, on CHANGES (empty on a SNAPSHOT).
    #[graphql(complexity = "list_cost(MAX_SEATS_PER_HOLD, child_complexity)")]
    async fn changes(&self) -> Vec<SeatChange> {
        let SeatMapUpdate::Changes { seats, .. } = &self.update else {
            return Vec::new();
        };
        seats
            .iter()
            .map(|seat| SeatChange {
                label: seat_label(&seat.row, seat.column),
                row: seat.row.clone(),
                column: seat.column as i32,
                state: seat.state.into(),
                kind: seat.kind.into(),
            })
            .collect()
    }

    /// Seats per state after this event.
    async fn counts(&self) -> SeatCounts {
        let (counts, capacity) = match &self.update {
            SeatMapUpdate::Snapshot(map) => (map.counts, map.capacity),
            SeatMapUpdate::Changes {
                counts, capacity, ..
            } => (*counts, *capacity),
        };
        SeatCounts::of(counts, capacity)
    }
}

impl SeatCounts {
    /// The GraphQL counts of a seat map of `capacity` seats.
    pub fn of(counts: seat::SeatCounts, capacity: i32) -> Self {
        SeatCounts {
            available: counts.available as i32,
            held: counts.held as i32,
            sold: counts.sold as i32,
            blocked: counts.blocked as i32,
            capacity,
        }
    }
}
