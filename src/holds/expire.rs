//! Expiring one hold, whoever does it (the sweeper, a next hold that wants its seats, the
//! live hub at `expiresAt`): its seats back to sale by the database's clock, the voucher
//! redemption and the product stock it reserved given back, and the expiry counted by who
//! made it.

use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::store::documents::HoldDoc;
use crate::store::Store;
use crate::telemetry::metrics::{self, Expirer};
use crate::{concessions, vouchers};

/// Expires `hold` of `showtime`; false when it is not expired yet by the database's clock, or
/// is gone (released, confirmed, expired by another). A failure to give its redemption or
/// its stock back is logged: the vouchers' and the concessions' reconcilers give them back.
pub async fn expire_hold(
    store: &Store,
    showtime: ShowtimeId,
    hold: &HoldDoc,
    expirer: Expirer,
) -> Result<bool, ApiError> {
    if !store.expire_hold(showtime, hold).await? {
        return Ok(false);
    }
    metrics::hold_expired(expirer);
    give_back_reservations(store, hold).await;
    Ok(true)
}

/// Gives back what ended hold `hold` reserved: its voucher's redemption and its products'
/// units (each once, whoever else tries). A failure is logged: the vouchers' and the
/// concessions' reconcilers give back what is left.
pub async fn give_back_reservations(store: &Store, hold: &HoldDoc) {
    if let Some(used) = &hold.voucher {
        // Boxed: kept out of the futures of every caller (rare steps).
        Box::pin(vouchers::give_back_or_leave(store, used, hold.id)).await;
    }
    let units = concessions::stocked(&hold.items);
    if !units.is_empty() {
        Box::pin(concessions::give_back_or_leave(store, &units, hold.id)).await;
    }
}
