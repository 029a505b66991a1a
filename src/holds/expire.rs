//! Expiring one hold, whoever does it (the sweeper, a next hold that wants its seats, the
//! live hub at `expiresAt`, a reconciler): its seats back to sale by the database's clock,
//! the handlers of ended holds told (they give back what it carried), and the expiry counted
//! by who made it.

use super::endings::{Ending, HoldEndings};
use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::store::documents::HoldDoc;
use crate::store::Store;
use crate::telemetry::metrics::{self, Expirer};

/// Expires `hold` of `showtime`; false when it is not expired yet by the database's clock, or
/// is gone (released, confirmed, expired by another).
pub async fn expire_hold(
    store: &Store,
    endings: &HoldEndings,
    showtime: ShowtimeId,
    hold: &HoldDoc,
    expirer: Expirer,
) -> Result<bool, ApiError> {
    if !store.expire_hold(showtime, hold).await? {
        return Ok(false);
    }
    metrics::hold_expired(expirer);
    // Boxed: kept out of the futures of every caller (the handlers' steps are rare).
    Box::pin(endings.ended(store, hold, Ending::Expired)).await;
    Ok(true)
}

/// Releases `hold` of cancelled showtime `showtime` (its inventory is marked cancelled, so no
/// hold can be placed any more); true when this call ended it. The handlers of ended holds
/// are told.
pub async fn release_for_cancel(
    store: &Store,
    endings: &HoldEndings,
    showtime: ShowtimeId,
    hold: &HoldDoc,
) -> Result<bool, ApiError> {
    if !store.release_for_cancel(showtime, hold).await? {
        return Ok(false);
    }
    Box::pin(endings.ended(store, hold, Ending::Cancelled)).await;
    Ok(true)
}
