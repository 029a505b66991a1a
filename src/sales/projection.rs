//! The sales projection: moves each movie's totals and each cinema's hourly bucket by the
//! orders confirmed or cancelled since its last pass, exactly once per order.

use super::store::documents::HourlySalesDoc;
use crate::domain::ids::CinemaId;
use crate::domain::paging::{Page, PageRequest};
use crate::domain::time_range::TimeRange;
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

/// A page of `cinema`'s hourly buckets within `range`, oldest first.
pub async fn hourly_sales(
    store: &Store,
    cinema: CinemaId,
    range: TimeRange,
    page: &PageRequest,
) -> Result<Page<HourlySalesDoc>, ApiError> {
    store.list_hourly_sales(cinema, range, page).await
}
