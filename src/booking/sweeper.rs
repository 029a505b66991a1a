//! The sweeper, and the loop that runs the background tasks. The sweeper returns the seats of
//! expired holds to sale. A seat of an expired hold is free
//! to the next hold at once anyway (a hold expires what it takes); the sweeper makes the seat
//! map show it, within one sweep interval.

use std::time::Duration;

use bson::DateTime;

use super::reconciler::{settle_orders, PENDING_GRACE};
use super::sales::project_sales;
use crate::error::ApiError;
use crate::store::Store;
use crate::telemetry::lag::{self, Task};
use crate::telemetry::metrics::{self, Expirer};

/// Inventories looked at per pass; a pass repeats until none is left.
const BATCH: usize = 500;

/// Releases every hold that has expired (by the database's clock); returns how many.
#[tracing::instrument(skip(store))]
pub async fn sweep_expired_holds(store: &Store) -> Result<usize, ApiError> {
    let mut released = 0;
    loop {
        let now = DateTime::now();
        let found = store.inventories_with_expired_holds(now, BATCH).await?;
        let mut progressed = false;
        for (showtime, holds) in &found {
            for hold in holds.iter().filter(|hold| hold.expires_at < now) {
                // False when a hold or confirm got there first, or the database's clock does
                // not agree yet: the next pass sees it again.
                if store.expire_hold(*showtime, hold).await? {
                    released += 1;
                    metrics::hold_expired(Expirer::Sweeper);
                    progressed = true;
                }
            }
        }
        if found.len() < BATCH || !progressed {
            return Ok(released);
        }
    }
}

/// How often each background task runs.
#[derive(Debug, Clone, Copy)]
pub struct Intervals {
    /// Expired holds are swept and unsettled orders settled this often.
    pub sweep: Duration,
    /// The sales figures catch up with the orders this often.
    pub sales: Duration,
}

/// Runs the background tasks until the process ends: the sweeper and the reconciler every
/// `sweep`, the sales projection every `sales`. Errors are logged and the next pass tries
/// again.
pub async fn run_background(store: Store, intervals: Intervals) {
    let sweeper = every(intervals.sweep, || async {
        match lag::pass(Task::Sweeper, sweep_expired_holds(&store)).await {
            Ok(0) => {}
            Ok(released) => tracing::info!(released, "released expired holds"),
            Err(error) => tracing::warn!(%error, "sweeping expired holds failed"),
        }
        match lag::pass(Task::Reconciler, settle_orders(&store, PENDING_GRACE)).await {
            Ok(0) => {}
            Ok(settled) => tracing::info!(settled, "settled orders left between two writes"),
            Err(error) => tracing::warn!(%error, "settling orders failed"),
        }
    });
    let sales = every(intervals.sales, || async {
        if let Err(error) = lag::pass(Task::SalesProjection, project_sales(&store)).await {
            tracing::warn!(%error, "projecting sales failed");
        }
    });
    futures::join!(sweeper, sales);
}

async fn every<F, Fut>(interval: Duration, mut pass: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        pass().await;
    }
}
