//! Extended references stay true: after a cinema, hall or movie changed a field that
//! showtimes copy, its future showtimes get the new value at once, or, when the gateway died
//! (or the database failed) in between, within one pass of the background loop (every
//! `--sweep-interval-seconds`). See `store/references.rs` for the versions that make a late or
//! repeated propagation harmless.

use crate::catalogue::Propagation;
use crate::error::ApiError;
use crate::store::{CrashPoint, Store};

/// Brings the future showtimes' copies up to `propagation` right after the source's update.
/// A failure here does not fail the write, which is done: the source's marker stays and the
/// background pass finishes the propagation.
pub async fn propagate_now(
    store: &Store,
    propagation: Option<Propagation>,
) -> Result<(), ApiError> {
    let Some(propagation) = propagation else {
        return Ok(());
    };
    if store.crash_armed(CrashPoint::BeforePropagation) {
        return Err(ApiError::internal(format!(
            "injected crash at {:?}",
            CrashPoint::BeforePropagation
        )));
    }
    // Repeating a propagation is harmless (the versions see to it), so a failed one (the
    // database slow or away for a moment) is tried again before it is left to the background
    // pass.
    for attempt in 1..=PROPAGATION_TRIES {
        match store.propagate(&propagation).await {
            Ok(changed) => {
                tracing::info!(changed, ?propagation, "copies brought up to date");
                return Ok(());
            }
            Err(error) if attempt < PROPAGATION_TRIES => {
                tracing::info!(%error, attempt, "propagation failed; trying again");
            }
            Err(error) => {
                tracing::warn!(%error, ?propagation, "propagation left to the background pass")
            }
        }
    }
    Ok(())
}

/// How often a write tries its propagation before leaving it to the background pass.
const PROPAGATION_TRIES: usize = 3;

/// The background pass: finishes every propagation left pending (by a gateway that died
/// between a source's update and its propagation); returns how many sources it finished. A
/// propagation that a live gateway is running at the same time is harmless to repeat.
#[tracing::instrument(skip(store))]
pub async fn finish_propagations(store: &Store) -> Result<usize, ApiError> {
    let pending = store.pending_propagations().await?;
    for propagation in &pending {
        let changed = store.propagate(propagation).await?;
        tracing::info!(changed, ?propagation, "finished a pending propagation");
    }
    Ok(pending.len())
}
