//! Joining and leaving waiting lists (channels).

use async_graphql::{Context, InputObject, Object, ID};

use super::types::WaitingListEntry;
use crate::domain::customer::CustomerId;
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::SeatKind;
use crate::holds::rules::HoldPolicy;
use crate::holds::ShowtimeLocks;
use crate::waiting_list::{self, rules};

#[derive(Default)]
pub struct WaitingListMutation;

/// A party to put in line for a showtime's seats.
#[derive(InputObject, Debug)]
pub struct JoinWaitingListInput {
    /// The showtime (not started, not cancelled, sold on the calling channel).
    pub showtime_id: ID,
    /// How many seats (1 to the most one hold takes).
    pub party_size: i32,
    /// Their kind (COUPLE: an even party, together).
    pub kind: SeatKind,
    /// Side by side in one row (true), or anywhere in the hall.
    pub together: bool,
    /// The channel's opaque id of its customer (1 to 64 characters, no spaces or control
    /// characters): one place in line per customer and showtime.
    pub customer_id: String,
}

#[Object]
impl WaitingListMutation {
    /// Puts a channel's customer in line for seats of a showtime that fit the party. When
    /// such seats are free now, or come back (a release, an expiry, a refund, an unblock),
    /// and every party that joined before was served, they are held for the calling channel
    /// (an ordinary hold, expiring as any does) and the channel is told WAITING_LIST_OFFERED
    /// (event log and webhooks) with the hold and the customer. A customer already in line
    /// keeps its place: joining again returns its entry.
    #[tracing::instrument(skip_all)]
    async fn join_waiting_list(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The showtime, the party and the customer.")] input: JoinWaitingListInput,
    ) -> Result<WaitingListEntry, ApiError> {
        let channel = ctx.calling_channel("joining a waiting list")?;
        let policy = ctx.data_unchecked::<HoldPolicy>();
        let party = rules::Party::checked(
            i64::from(input.party_size),
            input.kind.into(),
            input.together,
            policy.max_seats,
        )?;
        let customer = CustomerId::parse(&input.customer_id)?.into_string();
        let showtime = global_id::showtime_id(&input.showtime_id)?;
        let store = ctx.store();
        let entry = Box::pin(waiting_list::join(
            store, channel, showtime, &customer, party,
        ))
        .await?;
        // Seats may fit it now: offer them at once (a failure is left to the periodic pass).
        let locks = ctx.data_unchecked::<std::sync::Arc<ShowtimeLocks>>();
        let endings = ctx.data_unchecked::<crate::holds::HoldEndings>();
        let served = waiting_list::serve_showtime(store, endings, locks, policy, showtime);
        let served = Box::pin(served).await;
        if let Err(error) = served {
            tracing::warn!(%error, "offering seats after a join failed; the pass will");
        }
        let entry = Box::pin(waiting_list::entry_of(store, endings, channel, entry.id)).await?;
        Ok(WaitingListEntry(entry))
    }

    /// Takes an entry of the calling channel off its list: a waiting one LEFT; an offered
    /// one DECLINED, its hold released (the seats go to the next party). An entry that ended
    /// already is returned as it is.
    #[tracing::instrument(skip(self, ctx))]
    async fn leave_waiting_list(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The entry's id.")] entry_id: ID,
    ) -> Result<WaitingListEntry, ApiError> {
        let channel = ctx.calling_channel("leaving a waiting list")?;
        let id = global_id::waiting_entry_id(&entry_id)?;
        let endings = ctx.data_unchecked::<crate::holds::HoldEndings>();
        let entry = Box::pin(waiting_list::leave(ctx.store(), endings, channel, id)).await?;
        Ok(WaitingListEntry(entry))
    }
}
