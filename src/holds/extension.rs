//! `extendHold`: a buyer who needs longer gets it once, up to a bound (the policy's extension,
//! never past the showtime's start).

use super::hold::HeldSeats;
use super::reads::hold_of_channel;
use crate::domain::ids::{HoldId, ShowtimeId};
use crate::error::ApiError;
use crate::holds::rules::extension::extended_expiry;
use crate::holds::rules::HoldPolicy;
use crate::idempotency::Attempt;
use crate::store::{self, CrashPoint, DelayPoint, Store};

/// A hold read again after the update missed may have been extended, released or expired
/// meanwhile; this many reads at most.
const MAX_ATTEMPTS: usize = 3;

/// Extends live hold `hold_id` of `channel` once, and answers with the hold as it now is.
/// NOT_FOUND for another channel's hold or one that is gone; HOLD_EXPIRED once it has
/// expired; BAD_USER_INPUT when it was extended before (by another request: an attempt that
/// took the key over finds its earlier attempt's extension and answers with it).
#[tracing::instrument(skip(store, policy))]
pub async fn extend_hold(
    store: &Store,
    channel: &str,
    showtime_id: ShowtimeId,
    hold_id: HoldId,
    policy: &HoldPolicy,
    attempt: Attempt,
) -> Result<HeldSeats, ApiError> {
    let request = attempt.resource_id();
    for _ in 0..MAX_ATTEMPTS {
        let HeldSeats { showtime, hold } =
            hold_of_channel(store, channel, showtime_id, hold_id).await?;
        match hold.extended_by {
            // This request's extension, made by an earlier attempt of its key.
            Some(by) if by == request => return Ok(HeldSeats { showtime, hold }),
            Some(_) => {
                return Err(ApiError::bad_input(format!(
                    "hold {hold_id} was extended once already (until {}): a hold is extended at most once",
                    hold.expires_at
                )))
            }
            None => {}
        }
        if hold.expires_at <= store::now() {
            return Err(expired(hold_id));
        }
        let extended = store::documents::HoldDoc {
            expires_at: extended_expiry(hold.expires_at, policy.extension, showtime.starts_at)?,
            extended_by: Some(request),
            ..hold.clone()
        };
        if store.extend_hold(showtime_id, &hold, &extended).await? {
            store.delay_point(DelayPoint::ExtendAfterWrite).await;
            store.crash_point(CrashPoint::ExtendAfterWrite)?;
            return Ok(HeldSeats {
                showtime,
                hold: extended,
            });
        }
        // Missed: released, confirmed, extended or expired (by the database's clock)
        // meanwhile. The next read tells which.
    }
    Err(expired(hold_id))
}

fn expired(hold_id: HoldId) -> ApiError {
    ApiError::HoldExpired(format!(
        "hold {hold_id} has expired: its seats may be someone else's now"
    ))
}
