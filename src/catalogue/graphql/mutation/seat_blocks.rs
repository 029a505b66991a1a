//! Blocking and unblocking seats (operators).

use async_graphql::{Context, InputObject, Object, SimpleObject, ID};

use crate::catalogue::graphql::types::Showtime;
use crate::catalogue::rules::seat_blocks::{validate_labels, BlockMove};
use crate::catalogue::{self, SeatBlockRequest, SeatsMoved};
use crate::domain::global_id;
use crate::domain::text;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::operators::graphql::OperatorsContext;

#[derive(Default)]
pub struct SeatBlockMutation;

/// Seats of a showtime to take off sale.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct BlockSeatsInput {
    /// The showtime.
    pub showtime_id: ID,
    /// The seats, e.g. ["D7", "D8"]: every one AVAILABLE, all of them blocked or none (at
    /// most 200).
    pub seats: Vec<String>,
    /// Why, for the audit log, e.g. "broken seat" (at most 100 characters).
    pub reason: Option<String>,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// Blocked seats of a showtime to put back on sale.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct UnblockSeatsInput {
    /// The showtime.
    pub showtime_id: ID,
    /// The seats: every one BLOCKED, all of them made AVAILABLE or none (at most 200).
    pub seats: Vec<String>,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// Seats that changed state, and their showtime (whose `seatMap` is read after the change).
#[derive(SimpleObject)]
pub struct SeatsChanged {
    /// The showtime.
    pub showtime: Showtime,
    /// The seats that changed, as named.
    pub seats: Vec<String>,
}

impl From<SeatsMoved> for SeatsChanged {
    fn from(moved: SeatsMoved) -> Self {
        SeatsChanged {
            showtime: Showtime::from_doc(moved.showtime),
            seats: moved.seats,
        }
    }
}

#[Object]
impl SeatBlockMutation {
    /// Takes AVAILABLE seats of a showtime off sale (broken seats, staff seats): all of them
    /// in one atomic change, or none. Held or sold seats are never touched: SEAT_UNAVAILABLE
    /// names them. Needs an operator key whose scope holds the showtime's cinema.
    #[tracing::instrument(skip_all)]
    async fn block_seats(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The showtime, the seats, and why.")] input: BlockSeatsInput,
    ) -> Result<SeatsChanged, ApiError> {
        let operator = ctx.calling_operator("blocking seats")?;
        let showtime = global_id::showtime_id(&input.showtime_id)?;
        validate_labels(&input.seats)?;
        let reason = match &input.reason {
            Some(reason) => Some(text::required("reason", reason)?),
            None => None,
        };
        let request = SeatBlockRequest {
            showtime,
            seats: &input.seats,
            direction: BlockMove::Block,
            reason: reason.as_deref(),
        };
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let moved = catalogue::move_seats(keyed, request).await?;
        Ok(moved.into())
    }

    /// Puts BLOCKED seats of a showtime back on sale: all of them in one atomic change, or
    /// none. Needs an operator key whose scope holds the showtime's cinema.
    #[tracing::instrument(skip_all)]
    async fn unblock_seats(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The showtime and the seats.")] input: UnblockSeatsInput,
    ) -> Result<SeatsChanged, ApiError> {
        let operator = ctx.calling_operator("unblocking seats")?;
        let showtime = global_id::showtime_id(&input.showtime_id)?;
        validate_labels(&input.seats)?;
        let request = SeatBlockRequest {
            showtime,
            seats: &input.seats,
            direction: BlockMove::Unblock,
            reason: None,
        };
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let moved = catalogue::move_seats(keyed, request).await?;
        Ok(moved.into())
    }
}
