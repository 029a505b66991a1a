//! Choosing seats on a read of a showtime's inventory: named seats, or the best N (adjacent
//! or not), as the seat picker sees the seats (`Snapshot`).

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use crate::domain::best_seats::{best_adjacent, best_scattered, Cell, SeatGrid};
use crate::domain::ids::HoldId;
use crate::domain::layout::{parse_seat_label, seat_label, SeatPosition};
use crate::domain::seat::{SeatKind, SeatState};
use crate::error::ApiError;
use crate::holds::rules::{check_couple_pairs, locate_named, validate_count, HoldPolicy};
use crate::store::documents::{HoldDoc, SeatInventoryDoc};
use crate::store::{self};

/// Which seats to hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatChoice {
    /// These seats, all or none.
    Named(Vec<String>),
    /// The best `count` adjacent seats of `kind`.
    Best { count: usize, kind: SeatKind },
    /// The best `count` seats of `kind`, together or not (a waiting list's party that need
    /// not sit together).
    Scattered { count: usize, kind: SeatKind },
}

impl SeatChoice {
    /// How many seats it asks for.
    pub fn count(&self) -> usize {
        match self {
            SeatChoice::Named(labels) => labels.len(),
            SeatChoice::Best { count, .. } | SeatChoice::Scattered { count, .. } => *count,
        }
    }
}

/// The seats of an inventory as the seat picker sees them: free means AVAILABLE, or HELD by a
/// hold whose expiry has passed (by this gateway's clock; the database's clock decides when
/// the hold is actually expired).
pub(super) struct Snapshot {
    inventory: SeatInventoryDoc,
    row_labels: Vec<String>,
    grid: SeatGrid,
    /// When the first hold it counts live expires (and its seats are free).
    next_expiry: Option<DateTime<Utc>>,
}

impl Snapshot {
    pub(super) fn new(inventory: SeatInventoryDoc) -> Self {
        let now = store::now();
        let expired: HashSet<HoldId> = inventory
            .holds
            .iter()
            .filter(|hold| hold.expires_at < now)
            .map(|hold| hold.id)
            .collect();
        let next_expiry = (inventory.holds.iter())
            .map(|hold| hold.expires_at)
            .filter(|&expiry| expiry >= now)
            .min();
        let rows = inventory
            .seats
            .values()
            .map(|positions| {
                positions
                    .iter()
                    .map(|cell| match cell {
                        None => Cell::Gap,
                        Some(seat) => Cell::Seat {
                            kind: seat.kind,
                            free: match seat.state {
                                SeatState::Available => true,
                                SeatState::Held => seat.hold.is_some_and(|h| expired.contains(&h)),
                                SeatState::Sold | SeatState::Blocked => false,
                            },
                        },
                    })
                    .collect()
            })
            .collect();
        Snapshot {
            row_labels: inventory.seats.keys().cloned().collect(),
            grid: SeatGrid::new(rows),
            inventory,
            next_expiry,
        }
    }

    /// When the first hold it counts live expires: from then on it shows a seat taken that
    /// is free to the next hold.
    pub(super) fn next_expiry(&self) -> Option<DateTime<Utc>> {
        self.next_expiry
    }

    /// Counts the seats `labels` free (this process freed them after the read). A label it
    /// does not know is passed over.
    pub(super) fn free(&mut self, labels: &[String]) {
        for label in labels {
            let Ok((row_label, number)) = parse_seat_label(label) else {
                continue;
            };
            let Some(row) = self.row_labels.iter().position(|row| row == row_label) else {
                continue;
            };
            if let Some(Cell::Seat { free, .. }) = self.grid.rows[row].get_mut(number - 1) {
                *free = true;
            }
        }
    }

    /// Whether the inventory carries the showtime's cancellation.
    pub(super) fn is_cancelled(&self) -> bool {
        self.inventory.cancelled
    }

    pub(super) fn label(&self, position: SeatPosition) -> String {
        seat_label(&self.row_labels[position.row], position.column)
    }

    fn seat(&self, position: SeatPosition) -> &crate::store::documents::SeatCellDoc {
        self.inventory.seats[position.row][position.column]
            .as_ref()
            .expect("positions name seats, not gaps")
    }

    fn is_free(&self, position: SeatPosition) -> bool {
        matches!(
            self.grid.rows[position.row][position.column],
            Cell::Seat { free: true, .. }
        )
    }

    /// The kind of the seat at `position`.
    pub(super) fn kind(&self, position: SeatPosition) -> SeatKind {
        self.seat(position).kind
    }

    /// Whether hold id `id` is fenced off (an attempt that took its key over replaced it).
    pub(super) fn is_fenced(&self, id: HoldId) -> bool {
        self.inventory.fenced_holds.contains(&id)
    }

    /// Counts `positions` as taken until `expiry`, by a hold that lasts until then (a batch's
    /// next request chooses around them).
    pub(super) fn take(&mut self, positions: &[SeatPosition], expiry: DateTime<Utc>) {
        self.next_expiry = Some(self.next_expiry.map_or(expiry, |next| next.min(expiry)));
        for position in positions {
            if let Cell::Seat { free, .. } = &mut self.grid.rows[position.row][position.column] {
                *free = false;
            }
        }
    }

    /// The seats to take for `choice`, or SEAT_UNAVAILABLE naming those that are not free.
    pub(super) fn choose(
        &self,
        choice: &SeatChoice,
        policy: &HoldPolicy,
    ) -> Result<Vec<SeatPosition>, ApiError> {
        match choice {
            SeatChoice::Named(labels) => {
                let positions = locate_named(&self.row_labels, &self.grid, labels, policy)?;
                check_couple_pairs(&self.grid, &positions, |p| self.label(p))?;
                let taken: Vec<String> = positions
                    .iter()
                    .filter(|&&p| !self.is_free(p))
                    .map(|&p| self.label(p))
                    .collect();
                if taken.is_empty() {
                    Ok(positions)
                } else {
                    Err(ApiError::seats_taken(taken))
                }
            }
            SeatChoice::Best { count, kind } => {
                validate_count(*count, policy)?;
                best_adjacent(&self.grid, *count, *kind).ok_or_else(|| ApiError::SeatUnavailable {
                    message: format!("no {count} adjacent {kind:?} seats are free"),
                    seats: Vec::new(),
                })
            }
            SeatChoice::Scattered { count, kind } => {
                validate_count(*count, policy)?;
                best_scattered(&self.grid, *count, *kind).ok_or_else(|| ApiError::SeatUnavailable {
                    message: format!("fewer than {count} {kind:?} seats are free"),
                    seats: Vec::new(),
                })
            }
        }
    }

    /// The hold `id` of `channel`, if it is live.
    pub(super) fn existing_hold(&self, id: HoldId, channel: &str) -> Option<HoldDoc> {
        (self.inventory.holds.iter())
            .find(|hold| hold.id == id && hold.channel == channel)
            .cloned()
    }

    /// The expired holds that still hold some of `positions`.
    pub(super) fn expired_holds_on(&self, positions: &[SeatPosition]) -> Vec<HoldDoc> {
        let ids: HashSet<HoldId> = positions
            .iter()
            .filter(|&&p| self.seat(p).state == SeatState::Held)
            .filter_map(|&p| self.seat(p).hold)
            .collect();
        self.inventory
            .holds
            .iter()
            .filter(|hold| ids.contains(&hold.id))
            .cloned()
            .collect()
    }
}
