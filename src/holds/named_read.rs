//! A hold of named seats reads the inventory before anything else: seats taken already are
//! refused without the showtime or a claim on the idempotency key.

use super::choice::{SeatChoice, Snapshot};
use super::hold::HoldRequest;
use crate::error::ApiError;
use crate::holds::rules::HoldPolicy;
use crate::store::documents::SeatInventoryDoc;
use crate::store::Store;

/// What a hold of named seats read before its first attempt (`read_named_seats`).
#[derive(Debug, Clone)]
pub struct FirstRead {
    /// The showtime's inventory, read after the request came.
    pub inventory: Option<SeatInventoryDoc>,
    /// SEAT_UNAVAILABLE when it shows some of the seats taken.
    pub refusal: Option<ApiError>,
}

/// For a hold of named seats, the showtime's inventory read before anything else: seats that
/// are taken need neither the showtime nor a claim on the idempotency key to refuse. On a hot
/// showtime most named holds ask for seats their buyer saw free a while ago (issue 34: at 600
/// buyers on 2 showtimes, refused holds sent a quarter of all commands, 4 each; now 2: this
/// read, and the key's record written with its answer, `once_unless_refused`). `None` for the
/// best seats, which are chosen on their batch's read.
pub async fn read_named_seats(
    store: &Store,
    request: &HoldRequest,
    policy: &HoldPolicy,
) -> Result<Option<FirstRead>, ApiError> {
    if !matches!(request.choice, SeatChoice::Named(_)) {
        return Ok(None);
    }
    let inventory = store.inventory(request.showtime).await?;
    let refusal = inventory
        .as_ref()
        // The showtime's refusal comes first (see `hold_seats`); its inventory says when it
        // is cancelled.
        .filter(|inventory| !inventory.cancelled)
        .and_then(|inventory| {
            match Snapshot::new(inventory.clone()).choose(&request.choice, policy) {
                Err(refusal @ ApiError::SeatUnavailable { .. }) => Some(refusal),
                _ => None,
            }
        });
    Ok(Some(FirstRead { inventory, refusal }))
}
