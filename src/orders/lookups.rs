//! What features below orders ask of it without naming it: the orders of a hold
//! (`holds::hold_fate`) and whether a refund is under way (the concessions' reconciler).
//! Handed to them where the process is assembled (`crate::assembly`).

use crate::concessions::RefundsUnderWay;
use crate::domain::ids::{HoldId, OrderId, ResourceId, ShowtimeId};
use crate::error::ApiError;
use crate::holds::OrdersOfHold;
use crate::store::documents::OrderStatus;
use crate::store::Store;

/// The most orders one hold is looked up with (each confirmation request of a hold writes
/// one PENDING order; at most one is ever sold the seats).
const MAX_ORDERS_OF_HOLD: usize = 16;

/// Orders' answers, read from `orders`.
pub struct OrderLookups;

#[async_trait::async_trait]
impl OrdersOfHold for OrderLookups {
    async fn orders_of_hold(
        &self,
        store: &Store,
        showtime: ShowtimeId,
        hold: HoldId,
    ) -> Result<Vec<(OrderId, OrderStatus)>, ApiError> {
        let orders = store
            .orders_of_hold(showtime, hold, MAX_ORDERS_OF_HOLD)
            .await?;
        Ok(orders
            .into_iter()
            .map(|order| (order.id, order.status))
            .collect())
    }
}

#[async_trait::async_trait]
impl RefundsUnderWay for OrderLookups {
    async fn refund_under_way(
        &self,
        store: &Store,
        order: OrderId,
        refund: ResourceId,
    ) -> Result<bool, ApiError> {
        super::refund_under_way(store, order, refund).await
    }
}
