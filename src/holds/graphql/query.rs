//! A channel's own holds, read back (a seat picker recovering its hold after a reload).

use async_graphql::connection::Connection;
use async_graphql::{Context, Object, ID};

use crate::domain::cursor::Cursor;
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{connection, page_cost};
use crate::holds;
use crate::holds::graphql::Hold;

#[derive(Default)]
pub struct HoldQuery;

#[Object]
impl HoldQuery {
    /// A hold of the calling channel, while it is in its showtime's inventory (until it is
    /// released, confirmed or expired); another channel's hold, or one that is gone, is
    /// NOT_FOUND.
    #[tracing::instrument(skip(self, ctx))]
    async fn hold(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The hold's id, as `holdSeats` returned it.")] id: ID,
    ) -> Result<Hold, ApiError> {
        let channel = ctx.calling_channel("reading holds")?;
        let (showtime, hold) = global_id::hold_id(&id)?;
        let held = holds::hold_of_channel(ctx.store(), channel, showtime, hold).await?;
        Ok(Hold::from(held))
    }

    /// The calling channel's holds of a showtime, oldest first.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn holds(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The showtime.")] showtime_id: ID,
        #[graphql(desc = "How many holds (default 20, at most the configured cap).")] first: Option<
            i32,
        >,
        #[graphql(desc = "The `cursor` of the last hold of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Hold>, ApiError> {
        let channel = ctx.calling_channel("reading holds")?;
        let showtime = global_id::showtime_id(&showtime_id)?;
        let page = ctx.page(first, after)?;
        let holds = holds::holds_of_channel(ctx.store(), channel, showtime, &page).await?;
        Ok(connection(holds, Hold::from))
    }
}
