//! A channel's waiting list entries, and how long showtimes' lines are.

use async_graphql::{Context, Object, SimpleObject, ID};

use super::types::WaitingListEntry;
use crate::domain::global_id::{self, GlobalId};
use crate::domain::input_caps;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::waiting_list;

/// The most showtimes one `waitingListLengths` asks about (a cinema's day and more).
const MAX_LENGTHS: usize = 100;

#[derive(Default)]
pub struct WaitingListQuery;

/// How long a showtime's waiting list is.
#[derive(SimpleObject)]
pub struct WaitingListLength {
    /// The showtime.
    pub showtime_id: ID,
    /// Parties waiting (offered ones are no longer in line).
    pub parties: i64,
    /// People in those parties.
    pub people: i64,
}

#[Object]
impl WaitingListQuery {
    /// An entry of the calling channel's waiting lists, its offer settled (ACCEPTED or
    /// LAPSED) when its hold was confirmed or is gone.
    #[tracing::instrument(skip(self, ctx))]
    async fn waiting_list_entry(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The entry's id.")] id: ID,
    ) -> Result<WaitingListEntry, ApiError> {
        let channel = ctx.calling_channel("reading a waiting list entry")?;
        let id = global_id::waiting_entry_id(&id)?;
        let endings = ctx.data_unchecked::<crate::holds::HoldEndings>();
        let entry = Box::pin(waiting_list::entry_of(ctx.store(), endings, channel, id)).await?;
        Ok(WaitingListEntry(entry))
    }

    /// How many parties (and people) wait in each showtime's line, in the order asked: at
    /// most 100 showtimes (BAD_USER_INPUT past it, before anything is read); one read.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "crate::graphql::types::list_cost(MAX_LENGTHS, child_complexity)")]
    async fn waiting_list_lengths(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The showtimes (at most 100).")] showtime_ids: Vec<ID>,
    ) -> Result<Vec<WaitingListLength>, ApiError> {
        input_caps::list("showtimeIds", &showtime_ids, MAX_LENGTHS)?;
        let ids = (showtime_ids.iter())
            .map(|id| global_id::showtime_id(id))
            .collect::<Result<Vec<_>, _>>()?;
        let lengths = Box::pin(waiting_list::waiting_lengths(ctx.store(), &ids)).await?;
        Ok(lengths
            .into_iter()
            .map(|(showtime, parties, people)| WaitingListLength {
                showtime_id: GlobalId::Showtime(showtime).encode().into(),
                parties,
                people,
            })
            .collect())
    }
}
