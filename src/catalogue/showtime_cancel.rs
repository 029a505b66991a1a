//! Cancelling a showtime on behalf of an operator: the scope check, the key, the audit entry;
//! the cancellation itself (and why it survives a crash) is `orders::showtime_cancel`.

use serde::Serialize;

use crate::domain::global_id::GlobalId;
use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::holds::HoldEndings;
use crate::operators::{authorize, record_under, Audited, Keyed};
use crate::orders::{self, CancelStart, ShowtimeCancellation};

/// Cancels showtime `id`: NOT_FOUND when there is none, FORBIDDEN outside the operator's
/// scope (nothing written), BAD_USER_INPUT when it has ended or another request cancelled it;
/// otherwise, once per idempotency key, every hold released and every order cancelled. A
/// retry (any attempt of the key, or any request while one is interrupted) resumes it.
#[tracing::instrument(skip(keyed, endings))]
pub async fn cancel_showtime(
    keyed: Keyed<'_, impl Serialize>,
    endings: &HoldEndings,
    id: ShowtimeId,
) -> Result<ShowtimeCancellation, ApiError> {
    let (store, operator) = (keyed.store, keyed.operator);
    let showtime = store
        .showtimes_by_ids(&[id])
        .await?
        .pop()
        .ok_or_else(|| ApiError::not_found(format!("showtime {id} does not exist")))?;
    authorize(store, operator, showtime.cinema.id).await?;
    keyed
        .once("cancelShowtime", |attempt| {
            let showtime = showtime.clone();
            async move {
                let began_by =
                    match orders::begin_cancellation(store, &showtime, attempt.resource_id())
                        .await?
                    {
                        CancelStart::Done(done) => return Ok(*done),
                        CancelStart::Under { request } => request,
                    };
                // Recorded once the decision is written, before the work a crash may interrupt,
                // under the request that began the cancellation: a retry of it, or another
                // request finishing it after a crash, records the same entry again (one entry).
                record_under(
                    store,
                    began_by,
                    Audited {
                        operator,
                        operation: "cancelShowtime",
                        cinema: Some(showtime.cinema.id),
                        subject: GlobalId::Showtime(id),
                        before: Audited::json(&serde_json::json!({ "status": "SCHEDULED" })),
                        after: Audited::json(&serde_json::json!({ "status": "CANCELLED" })),
                    },
                )
                .await?;
                orders::resume_cancellation(store, endings, id).await?;
                orders::cancellation_summary(store, id).await
            }
        })
        .await
}
