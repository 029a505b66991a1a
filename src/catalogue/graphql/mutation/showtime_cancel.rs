//! Cancelling a showtime (operators).

use async_graphql::{Context, InputObject, Object, SimpleObject, ID};

use crate::catalogue;
use crate::catalogue::graphql::types::Showtime;
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::operators::graphql::OperatorsContext;
use crate::orders::ShowtimeCancellation;

#[derive(Default)]
pub struct ShowtimeCancelMutation;

/// The showtime to cancel.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct CancelShowtimeInput {
    /// The showtime.
    pub showtime_id: ID,
    /// Makes retries safe: a retry with the same key has one effect and gets the first answer
    /// (and resumes a cancellation a failure interrupted). Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// A cancelled showtime and what its cancellation undid.
#[derive(SimpleObject)]
pub struct CancelledShowtime {
    /// The showtime, now CANCELLED.
    pub showtime: Showtime,
    /// Orders cancelled with the reason SHOWTIME_CANCELLED (their channels see them in
    /// `orders` and `orderChanged`).
    pub orders_cancelled: i32,
    /// Live holds released.
    pub holds_released: i32,
}

impl From<ShowtimeCancellation> for CancelledShowtime {
    fn from(done: ShowtimeCancellation) -> Self {
        CancelledShowtime {
            showtime: Showtime::from_doc(done.showtime),
            orders_cancelled: i32::try_from(done.orders_cancelled).unwrap_or(i32::MAX),
            holds_released: i32::try_from(done.holds_released).unwrap_or(i32::MAX),
        }
    }
}

#[Object]
impl ShowtimeCancelMutation {
    /// Cancels a showtime: no new holds; every live hold released; every order cancelled
    /// (reason SHOWTIME_CANCELLED) and its seats freed, exactly once, even if a gateway dies
    /// half way (a retry, or the background pass, finishes it). The showtime stays listed
    /// with status CANCELLED. Needs an operator key whose scope holds its cinema.
    #[tracing::instrument(skip(self, ctx))]
    async fn cancel_showtime(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The showtime.")] input: CancelShowtimeInput,
    ) -> Result<CancelledShowtime, ApiError> {
        let operator = ctx.calling_operator("cancelling a showtime")?;
        let showtime = global_id::showtime_id(&input.showtime_id)?;
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let endings = ctx.data_unchecked::<crate::holds::HoldEndings>();
        let done = catalogue::cancel_showtime(keyed, endings, showtime).await?;
        Ok(done.into())
    }
}
