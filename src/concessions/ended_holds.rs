//! The handler concessions register with holds (`holds::HoldEnded`): a hold that ended unsold
//! (released, expired, its showtime cancelled) gives back the units it reserved.

use crate::holds::{Ending, HoldEnded};
use crate::store::documents::HoldDoc;
use crate::store::Store;

/// Gives back an ended hold's stocked units (a failure is left to the reconciler).
pub struct StockGivenBack;

#[async_trait::async_trait]
impl HoldEnded for StockGivenBack {
    async fn ended(&self, store: &Store, hold: &HoldDoc, _: Ending) {
        let units = super::stocked(&hold.items);
        if !units.is_empty() {
            super::give_back_or_leave(store, &units, hold.id).await;
        }
    }
}
