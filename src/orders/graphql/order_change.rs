//! `OrderChange`: an order of the calling channel was confirmed or cancelled.

use async_graphql::Object;

use super::types::{Order, OrderStatus};
use crate::error::ApiError;
use crate::live::OrderEvent;
use crate::store::documents;

/// An order of the calling channel was confirmed or cancelled.
pub struct OrderChange(pub OrderEvent);

/// An order of the calling channel was confirmed or cancelled.
#[Object]
impl OrderChange {
    /// What the order became: CONFIRMED or CANCELLED.
    async fn status(&self) -> Result<OrderStatus, ApiError> {
        match self.0.status {
            documents::OrderStatus::Confirmed => Ok(OrderStatus::Confirmed),
            documents::OrderStatus::Cancelled => Ok(OrderStatus::Cancelled),
            other => Err(ApiError::internal(format!(
                "an order event for a move to {other:?}"
            ))),
        }
    }

    /// The order, as read just after the change (a later change may show in it already).
    async fn order(&self) -> Order {
        let mut order = self.0.order.clone();
        // Read between two writes of a later cancel: show what this event announced.
        if matches!(
            order.status,
            documents::OrderStatus::Pending | documents::OrderStatus::Cancelling
        ) {
            order.status = self.0.status;
        }
        Order(order)
    }
}
