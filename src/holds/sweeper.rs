//! The sweeper: it returns the seats of expired holds to sale. A seat of an expired hold is
//! free to the next hold at once anyway (a hold expires what it takes); the sweeper makes the
//! seat map show it, within one sweep interval, and the handlers of ended holds give back what
//! it carried. `crate::background` runs it.

use super::{expire_hold, HoldEndings};
use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::store::{self, Store};
use crate::telemetry::metrics::Expirer;

/// Inventories looked at per pass; a pass repeats until none is left.
const BATCH: usize = 500;

/// Releases every hold that has expired (by the database's clock); returns how many.
pub async fn sweep_expired_holds(store: &Store, endings: &HoldEndings) -> Result<usize, ApiError> {
    sweep_expired_holds_of(store, endings, |_| true).await
}

/// [`sweep_expired_holds`] of the showtimes `ours` says this process sweeps: with several
/// gateways, each sweeps the showtimes whose writes it owns (`gateways::Peers`), so that one
/// process writes each inventory, and a showtime's events come from one relay.
#[tracing::instrument(skip_all)]
pub async fn sweep_expired_holds_of(
    store: &Store,
    endings: &HoldEndings,
    ours: impl Fn(ShowtimeId) -> bool,
) -> Result<usize, ApiError> {
    let mut released = 0;
    loop {
        let now = store::now();
        let found = store.inventories_with_expired_holds(now, BATCH).await?;
        let mut progressed = false;
        for (showtime, holds) in found.iter().filter(|(showtime, _)| ours(*showtime)) {
            for hold in holds.iter().filter(|hold| hold.expires_at < now) {
                // False when a hold or confirm got there first, or the database's clock does
                // not agree yet: the next pass sees it again.
                if expire_hold(store, endings, *showtime, hold, Expirer::Sweeper).await? {
                    released += 1;
                    progressed = true;
                }
            }
        }
        if found.len() < BATCH || !progressed {
            return Ok(released);
        }
    }
}
