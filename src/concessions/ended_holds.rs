//! The handler concessions register with holds (`holds::HoldEnded`): a hold that ended unsold
//! (released, expired, its showtime cancelled) gives back the units it reserved; a hold sold
//! to an order sells them.

use crate::holds::{Ending, HoldEnded};
use crate::store::documents::{HoldDoc, OrderDoc};
use crate::store::Store;

/// Settles an ended hold's stocked units (a failure is left to the reconciler).
pub struct StockOfEndedHold;

#[async_trait::async_trait]
impl HoldEnded for StockOfEndedHold {
    async fn ended(&self, store: &Store, hold: &HoldDoc, _: Ending) {
        let units = super::stocked(&hold.items);
        if !units.is_empty() {
            super::give_back_or_leave(store, &units, hold.id).await;
        }
    }

    async fn sold(&self, store: &Store, order: &OrderDoc) {
        let units = super::stock::stocked_of_order(order);
        if units.is_empty() {
            return;
        }
        // Each write names the hold and assumes the reservation: once, however often told.
        if let Err(error) = super::sell(store, &units, order.hold_id).await {
            // The concessions' reconciler finds the order.
            tracing::warn!(order = %order.id, %error, "left an order's stock to the reconciler");
        }
    }
}
