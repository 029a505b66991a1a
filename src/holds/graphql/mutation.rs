//! Releasing and extending holds.

use async_graphql::{Context, Object, ID};

use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::holds;
use crate::holds::graphql::Hold;
use crate::holds::rules::HoldPolicy;
use crate::idempotency;
use crate::idempotency::graphql::IdempotencyContext;
use crate::overload::{deadline, Class};

#[derive(Default)]
pub struct HoldMutation;

#[Object]
impl HoldMutation {
    /// Releases a hold of the calling channel: its seats are free again at once. Returns the
    /// released seats' labels.
    #[tracing::instrument(skip(self, ctx))]
    async fn release_hold(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The hold's id, as `holdSeats` returned it.")] hold_id: ID,
        #[graphql(
            desc = "Makes retries safe: a retry with the same key has one effect and gets the first answer; kept 48 hours."
        )]
        idempotency_key: Option<String>,
    ) -> Result<Vec<String>, ApiError> {
        let channel = ctx.calling_channel("releasing a hold")?;
        // It gives seats back: never refused at the door (`overload::door`).
        deadline::classify(Class::Finish);
        let (showtime, hold) = global_id::hold_id(&hold_id)?;
        let store = ctx.store();
        let endings = ctx.data_unchecked::<holds::HoldEndings>();
        let request = hold_id.as_str();
        let key = idempotency_key.as_deref();
        let seats = idempotency::once(
            store,
            ctx.key_policy(),
            channel,
            key,
            "releaseHold",
            &request,
            |attempt| holds::release_hold(store, endings, channel, showtime, hold, attempt),
        )
        .await?;
        if key.is_some() {
            // The answer is stored: the release's note in the inventory has served.
            if let Err(error) = holds::forget_release(store, showtime, hold).await {
                tracing::warn!(%error, "could not drop a release note");
            }
        }
        Ok(seats)
    }

    /// Extends a live hold of the calling channel once, by the configured extension
    /// (`--hold-extension-seconds`, 5 minutes by default), never past the showtime's start.
    /// A second extension is BAD_USER_INPUT, an expired hold HOLD_EXPIRED, another
    /// channel's hold or one that is gone NOT_FOUND. Returns the hold with its new expiry.
    #[tracing::instrument(skip(self, ctx))]
    async fn extend_hold(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The hold's id, as `holdSeats` returned it.")] hold_id: ID,
        #[graphql(
            desc = "Makes retries safe: a retry with the same key has one effect and gets the first answer; kept 48 hours."
        )]
        idempotency_key: Option<String>,
    ) -> Result<Hold, ApiError> {
        let channel = ctx.calling_channel("extending a hold")?;
        let (showtime, hold) = global_id::hold_id(&hold_id)?;
        let store = ctx.store();
        let policy = ctx.data_unchecked::<HoldPolicy>();
        let request = hold_id.as_str();
        let key = idempotency_key.as_deref();
        let held = idempotency::once(
            store,
            ctx.key_policy(),
            channel,
            key,
            "extendHold",
            &request,
            |attempt| holds::extend_hold(store, channel, showtime, hold, policy, attempt),
        )
        .await?;
        Ok(Hold::from(held))
    }
}
