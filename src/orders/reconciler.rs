//! The reconciler: settles orders a gateway left between two writes (PENDING or CANCELLING),
//! from the inventory document, which is the authority on an order's seats (invariant 6).

use std::time::Duration;

use super::confirm::settle_order;
use crate::error::ApiError;
use crate::holds::HoldEndings;
use crate::store::{self, Store};

/// A PENDING order, or a refund, this young may belong to a request still under way: leave it
/// to that request. (Settling it would be safe anyway: a PENDING order is only discarded once
/// its hold is gone, when no sale to it can happen; this only saves work.)
pub const PENDING_GRACE: Duration = Duration::from_secs(60);

/// Orders looked at per pass.
const BATCH: usize = 500;

/// Settles the orders left PENDING or with a refund under way (for longer than `grace`), or
/// CANCELLING; returns how many were looked at. A young refund is left to the request
/// recording it: finishing it too would be safe (each write is conditional) but is work, and
/// the request, or its retry once the key's lease is out, or the order's next read, finishes it.
/// An order it confirms is told to this process's handlers of ended holds
/// (`HoldEndings::of_this_process`, the one caller of it: this pass keeps the two arguments
/// every caller has always given it).
#[tracing::instrument(skip(store))]
pub async fn settle_orders(store: &Store, grace: Duration) -> Result<usize, ApiError> {
    let grace = chrono::TimeDelta::from_std(grace).unwrap_or(chrono::TimeDelta::MAX);
    let before = store::now()
        .checked_sub_signed(grace)
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC);
    let unsettled = store.unsettled_orders(before, BATCH).await?;
    let count = unsettled.len();
    let endings = HoldEndings::of_this_process();
    for order in unsettled {
        settle_order(store, &endings, order).await?;
    }
    Ok(count)
}
