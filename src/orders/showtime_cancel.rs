//! Cancelling a showtime: no new holds or sales, every live hold released, every order
//! cancelled (reason SHOWTIME_CANCELLED) with its seats freed, exactly once per order, even
//! when the gateway dies half way.
//!
//! The steps, each a conditional write that a resumed run repeats harmlessly:
//! 1. the showtime SCHEDULED → CANCELLING (stamped with the request and the time; it enters the
//!    sparse `cancelling` index): the decision, and what a resumer looks for;
//! 2. the inventory's `cancelled` mark: placing and selling a hold both require it unset, so
//!    a hold or a sale either happened before it (and is undone below) or never happens;
//! 3. every live hold released (its entry and seats in the filter), counted in the inventory;
//! 4. every order of the showtime not CANCELLED yet: PENDING settled (its sale happened before
//!    the mark, or never will), CONFIRMED → CANCELLING → seats freed → CANCELLED, each move
//!    conditional on the state before it (so once per order);
//! 5. the showtime CANCELLING → CANCELLED.
//!
//! Step 1 comes before step 2 so that a crash between them leaves a CANCELLING showtime,
//! which the background pass (`resume_cancellations`, every sweep) and any retry resume;
//! the other order would leave a marked inventory that nothing looks for.

use std::time::Duration;

use super::refunds::cancel_for_showtime;
use crate::domain::ids::{ResourceId, ShowtimeId};
use crate::error::ApiError;
use crate::holds::{self, HoldEndings};
use crate::store::documents::{CancelReason, ShowtimeDoc, ShowtimeStatus};
use crate::store::{self, CrashPoint, DelayPoint, Store};

/// Orders read per batch while cancelling; a showtime's orders are at most its seats.
const ORDER_BATCH: usize = 200;

/// A cancellation younger than this is left to the request that runs it (resuming it
/// sooner would be safe: every step is conditional; this only saves work).
pub const CANCEL_GRACE: Duration = Duration::from_secs(30);

/// Showtimes resumed per background pass.
const RESUME_BATCH: usize = 50;

/// A finished cancellation: the showtime (CANCELLED) and what it undid.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ShowtimeCancellation {
    pub showtime: ShowtimeDoc,
    /// Orders cancelled with the reason SHOWTIME_CANCELLED.
    pub orders_cancelled: u64,
    /// Live holds released.
    pub holds_released: u64,
}

/// What step 1 found.
#[derive(Debug)]
pub enum CancelStart {
    /// The showtime says CANCELLING (this call moved it, or a cancellation a crash
    /// interrupted): go on with [`resume_cancellation`]. `request` began it (this one, or
    /// the interrupted one).
    Under { request: ResourceId },
    /// This request cancelled it already (an earlier attempt of its key): the answer.
    Done(Box<ShowtimeCancellation>),
}

/// Step 1 of cancelling showtime `showtime` on behalf of request `request` (the idempotency
/// key's resource id, the same for every attempt). A cancellation under way (a crash
/// interrupted it) is to be resumed, whoever asks; one this request finished is its answer;
/// one another request finished is BAD_USER_INPUT, as is a showtime that has ended.
#[tracing::instrument(skip(store, showtime), fields(showtime = %showtime.id))]
pub async fn begin_cancellation(
    store: &Store,
    showtime: &ShowtimeDoc,
    request: ResourceId,
) -> Result<CancelStart, ApiError> {
    let id = showtime.id;
    for _ in 0..2 {
        let state = store
            .cancellation_state(id)
            .await?
            .ok_or_else(|| ApiError::not_found(format!("showtime {id} does not exist")))?;
        match state.status {
            ShowtimeStatus::Cancelled if state.cancel_request == Some(request) => {
                return Ok(CancelStart::Done(Box::new(
                    cancellation_summary(store, id).await?,
                )))
            }
            ShowtimeStatus::Cancelled => {
                return Err(ApiError::bad_input(format!(
                    "showtime {id} was cancelled already"
                )))
            }
            ShowtimeStatus::Cancelling => {
                return Ok(CancelStart::Under {
                    request: state.cancel_request.unwrap_or(request),
                })
            }
            ShowtimeStatus::Scheduled => {
                if showtime.ends_at <= store::now() {
                    return Err(ApiError::bad_input(format!(
                        "showtime {id} ended at {}: there is nothing to cancel",
                        showtime.ends_at.to_rfc3339()
                    )));
                }
                if store
                    .begin_showtime_cancel(id, request, store::now())
                    .await?
                {
                    return Ok(CancelStart::Under { request });
                }
                // Another request began it meanwhile: read again.
            }
        }
    }
    Err(ApiError::internal(format!(
        "showtime {id}'s cancellation state kept changing"
    )))
}

/// Steps 2 to 5 of a cancellation that step 1 began (the showtime says CANCELLING); safe to
/// run any number of times, concurrently too.
#[tracing::instrument(skip(store, endings))]
pub async fn resume_cancellation(
    store: &Store,
    endings: &HoldEndings,
    id: ShowtimeId,
) -> Result<(), ApiError> {
    store.mark_inventory_cancelled(id).await?;
    store.crash_point(CrashPoint::ShowtimeCancelAfterMark)?;
    if let Some(inventory) = store.inventory(id).await? {
        // No hold can be placed after the mark: these are all there will ever be.
        for hold in &inventory.holds {
            holds::release_for_cancel(store, endings, id, hold).await?;
        }
    }
    let mut cancelled = 0;
    let mut last_batch = Vec::new();
    loop {
        let orders = store.live_orders_of_showtime(id, ORDER_BATCH).await?;
        if orders.is_empty() {
            break;
        }
        let batch: Vec<_> = orders.iter().map(|order| order.id).collect();
        if batch == last_batch {
            // Only PENDING orders whose hold is live: none can be (every hold was released
            // and no new one placed); the next pass looks again.
            return Err(ApiError::internal(format!(
                "showtime {id}: orders left PENDING after its holds were released"
            )));
        }
        for order in orders {
            if cancel_for_showtime(store, endings, order).await? {
                cancelled += 1;
                if cancelled == 1 {
                    store.crash_point(CrashPoint::ShowtimeCancelBetweenOrders)?;
                }
                store
                    .delay_point(DelayPoint::ShowtimeCancelBetweenOrders)
                    .await;
            }
        }
        last_batch = batch;
    }
    store.finish_showtime_cancel(id).await?;
    Ok(())
}

/// The showtime as it is now, with what its cancellation undid.
pub async fn cancellation_summary(
    store: &Store,
    id: ShowtimeId,
) -> Result<ShowtimeCancellation, ApiError> {
    let (showtimes, orders_cancelled, holds_released) = tokio::try_join!(
        store.showtimes_by_ids(std::slice::from_ref(&id)),
        store.count_cancelled_orders(id, CancelReason::ShowtimeCancelled),
        store.cancelled_holds(id),
    )?;
    let showtime = showtimes
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::internal(format!("showtime {id} vanished")))?;
    Ok(ShowtimeCancellation {
        showtime,
        orders_cancelled,
        holds_released,
    })
}

/// Resumes every cancellation begun more than `grace` ago and not finished (a gateway died
/// during it); returns how many were resumed. One that fails is left for the next pass.
#[tracing::instrument(skip(store, endings))]
pub async fn resume_cancellations(
    store: &Store,
    endings: &HoldEndings,
    grace: Duration,
) -> Result<usize, ApiError> {
    let grace = chrono::TimeDelta::from_std(grace).unwrap_or(chrono::TimeDelta::MAX);
    let before = store::now()
        .checked_sub_signed(grace)
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MIN_UTC);
    let showtimes = store.cancelling_showtimes(before, RESUME_BATCH).await?;
    let mut resumed = 0;
    for id in showtimes {
        match resume_cancellation(store, endings, id).await {
            Ok(()) => resumed += 1,
            Err(error) => tracing::warn!(%error, showtime = %id, "resuming a cancellation failed"),
        }
    }
    Ok(resumed)
}
