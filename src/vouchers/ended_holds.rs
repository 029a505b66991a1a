//! The handler vouchers register with holds (`holds::HoldEnded`): a hold that ended unsold
//! (released, expired, its showtime cancelled) gives back the redemption it reserved; a hold
//! sold to an order makes it final (redeemed for that order).

use crate::holds::{Ending, HoldEnded};
use crate::store::documents::{HoldDoc, OrderDoc};
use crate::store::Store;

/// Settles an ended hold's voucher redemption (a failure is left to the reconciler).
pub struct RedemptionOfEndedHold;

#[async_trait::async_trait]
impl HoldEnded for RedemptionOfEndedHold {
    async fn ended(&self, store: &Store, hold: &HoldDoc, _: Ending) {
        if let Some(used) = &hold.voucher {
            super::give_back_or_leave(store, used, hold.id).await;
        }
    }

    async fn sold(&self, store: &Store, order: &OrderDoc) {
        // The order copied the hold's redemption; the write names the hold and assumes the
        // reservation, so a second telling of one sale changes nothing.
        if let Some(used) = &order.voucher {
            super::redeem(store, used, order.hold_id, order.id).await;
        }
    }
}
