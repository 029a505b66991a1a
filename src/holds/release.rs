//! Releasing a hold: its seats back to sale, the handlers of ended holds told (they give back
//! what it carried; a waiting party's offer is declined so).

use super::{Ending, HoldEndings};
use crate::domain::ids::{HoldId, ShowtimeId};
use crate::error::ApiError;
use crate::idempotency::Attempt;
use crate::store::{CrashPoint, Store};

/// Releases a live hold of `channel` and returns its seats' labels. Another channel's hold,
/// an expired and swept hold and an unknown one are all NOT_FOUND: a channel learns nothing of
/// others' holds. A keyed release leaves, in the same update, a note of itself in the
/// inventory (until its answer is stored: `forget_release`), so an attempt that took the key
/// over answers with the release an earlier attempt made.
#[tracing::instrument(skip(store, endings))]
pub async fn release_hold(
    store: &Store,
    endings: &HoldEndings,
    channel: &str,
    showtime_id: ShowtimeId,
    hold_id: HoldId,
    attempt: Attempt,
) -> Result<Vec<String>, ApiError> {
    let not_found = || ApiError::not_found(format!("no live hold {hold_id} of channel {channel}"));
    let request = attempt.resource_id();
    let hold = store
        .hold_of(showtime_id, hold_id)
        .await?
        .filter(|hold| hold.channel == channel);
    let note = attempt.keyed().then_some(request);
    if let Some(hold) = hold {
        if store.release_hold(showtime_id, &hold, note).await? {
            crate::telemetry::metrics::hold_released();
            // Boxed: kept out of the futures of every caller (the handlers' steps are rare).
            Box::pin(endings.ended(store, &hold, Ending::Released)).await;
            store.crash_point(CrashPoint::ReleaseAfterFree)?;
            return Ok(hold.seats);
        }
    }
    if attempt.taken_over() {
        if let Some(seats) = store.released_by(showtime_id, hold_id, request).await? {
            return Ok(seats);
        }
    }
    Err(not_found())
}

/// Drops the note a keyed release of `hold_id` left, once the release's answer is stored (a
/// retry then replays the answer and needs no note).
pub async fn forget_release(
    store: &Store,
    showtime_id: ShowtimeId,
    hold_id: HoldId,
) -> Result<(), ApiError> {
    store.forget_release(showtime_id, hold_id).await
}
