//! Blocking and unblocking a showtime's seats on behalf of an operator.

use serde::Serialize;

use crate::catalogue::rules::seat_blocks::{refusal, BlockMove};
use crate::domain::global_id::GlobalId;
use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::idempotency::Attempt;
use crate::idempotency::KeyFence;
use crate::operators::{authorize, record, Audited, Keyed};
use crate::store::documents::ShowtimeDoc;
use crate::store::{self, Store};

/// A block or unblock lost a race with a change that was then undone (a hold placed and
/// released between its update and its read): it tries again, this many times at most.
const MAX_ATTEMPTS: usize = 8;

/// Seats that were blocked or unblocked.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct SeatsMoved {
    pub showtime: ShowtimeDoc,
    /// The seats, as named.
    pub seats: Vec<String>,
}

/// One block or unblock request (labels validated by the caller: `seat_blocks::validate_labels`).
#[derive(Debug)]
pub struct SeatBlockRequest<'a> {
    pub showtime: ShowtimeId,
    pub seats: &'a [String],
    pub direction: BlockMove,
    /// Why (a block's), for the audit log.
    pub reason: Option<&'a str>,
}

/// Moves the named seats AVAILABLE → BLOCKED (or back) in one conditional update: all of them
/// or none. NOT_FOUND for an unknown showtime, FORBIDDEN outside the operator's scope (nothing
/// written), then once per idempotency key: SEAT_UNAVAILABLE naming held or sold seats,
/// BAD_USER_INPUT for seats not in the hall, in the wrong state, or a showtime that started or
/// was cancelled.
#[tracing::instrument(skip(keyed))]
pub async fn move_seats(
    keyed: Keyed<'_, impl Serialize>,
    request: SeatBlockRequest<'_>,
) -> Result<SeatsMoved, ApiError> {
    let (store, operator) = (keyed.store, keyed.operator);
    let id = request.showtime;
    let showtime = store
        .showtimes_by_ids(&[id])
        .await?
        .pop()
        .ok_or_else(|| ApiError::not_found(format!("showtime {id} does not exist")))?;
    authorize(store, operator, showtime.cinema.id).await?;
    let operation = match request.direction {
        BlockMove::Block => "blockSeats",
        BlockMove::Unblock => "unblockSeats",
    };
    keyed
        .once(operation, |attempt| {
            let showtime = showtime.clone();
            let (request, fence) = (&request, keyed.fence(attempt));
            async move {
                move_once(store, &showtime, request, attempt, fence.as_ref()).await?;
                let state = |state: crate::domain::seat::SeatState| {
                    Audited::json(&serde_json::json!({
                        "seats": request.seats,
                        "state": format!("{state:?}").to_uppercase(),
                        "reason": request.reason,
                    }))
                };
                record(
                    store,
                    attempt,
                    Audited {
                        operator,
                        operation,
                        cinema: Some(showtime.cinema.id),
                        subject: GlobalId::Showtime(showtime.id),
                        before: state(request.direction.from()),
                        after: state(request.direction.to()),
                    },
                )
                .await?;
                Ok(SeatsMoved {
                    showtime,
                    seats: request.seats.to_vec(),
                })
            }
        })
        .await
}

/// The update, and on a miss the read that says why. An attempt that took a key over and
/// finds every seat moved already takes it as its earlier attempt's work.
async fn move_once(
    store: &Store,
    showtime: &ShowtimeDoc,
    request: &SeatBlockRequest<'_>,
    attempt: Attempt,
    fence: Option<&KeyFence>,
) -> Result<(), ApiError> {
    let (id, taken_over) = (showtime.id, attempt.taken_over());
    for _ in 0..MAX_ATTEMPTS {
        if store
            .move_blocked_seats(id, request.seats, request.direction, fence)
            .await?
        {
            return Ok(());
        }
        let inventory = store
            .inventory(id)
            .await?
            .ok_or_else(|| ApiError::internal(format!("showtime {id} has no seat inventory")))?;
        if inventory.cancelled {
            return Err(ApiError::bad_input(format!(
                "showtime {id} was cancelled: its seats can no longer change"
            )));
        }
        if inventory.starts_at <= store::now() {
            return Err(ApiError::bad_input(format!(
                "showtime {id} has started: its seats can no longer change"
            )));
        }
        let found: Vec<_> = request
            .seats
            .iter()
            .map(|label| (label.clone(), inventory.seat(label).map(|seat| seat.state)))
            .collect();
        let done = found
            .iter()
            .all(|(_, state)| *state == Some(request.direction.to()));
        if taken_over && done {
            return Ok(());
        }
        if let Some(refused) = refusal(request.direction, &found) {
            return Err(refused);
        }
    }
    Err(ApiError::SeatUnavailable {
        message: format!("the seats kept changing; gave up after {MAX_ATTEMPTS} attempts"),
        seats: request.seats.to_vec(),
    })
}
