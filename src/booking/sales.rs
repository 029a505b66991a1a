//! The sales projection: moves each movie's totals and each cinema's hourly bucket by the
//! orders confirmed or cancelled since its last pass, exactly once per order.

use crate::error::ApiError;
use crate::store::Store;

/// Orders counted per transaction.
const BATCH: usize = 500;

/// Brings the sales figures up to date with the orders; returns how many orders moved them
/// (counted, uncounted, or counted again after a refund). An order that changes during a pass is left to the next.
#[tracing::instrument(skip(store))]
pub async fn project_sales(store: &Store) -> Result<usize, ApiError> {
    let mut projected = 0;
    loop {
        let orders = store.orders_to_project(BATCH).await?;
        if orders.is_empty() {
            return Ok(projected);
        }
        let Some(moved) = store.project_sales(&orders).await? else {
            return Ok(projected);
        };
        projected += moved;
        if orders.len() < BATCH {
            return Ok(projected);
        }
    }
}
