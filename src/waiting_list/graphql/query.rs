//! A channel's waiting list entries.

use async_graphql::{Context, Object, ID};

use super::types::WaitingListEntry;
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::waiting_list;

#[derive(Default)]
pub struct WaitingListQuery;

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
}
