//! The handler vouchers register with holds (`holds::HoldEnded`): a hold that ended unsold
//! (released, expired, its showtime cancelled) gives back the redemption it reserved.

use crate::holds::{Ending, HoldEnded};
use crate::store::documents::HoldDoc;
use crate::store::Store;

/// Gives back an ended hold's voucher redemption (a failure is left to the reconciler).
pub struct RedemptionGivenBack;

#[async_trait::async_trait]
impl HoldEnded for RedemptionGivenBack {
    async fn ended(&self, store: &Store, hold: &HoldDoc, _: Ending) {
        if let Some(used) = &hold.voucher {
            super::give_back_or_leave(store, used, hold.id).await;
        }
    }
}
