//! `orderChanged`: the calling channel's orders as they are confirmed or cancelled.

use async_graphql::{Context, Subscription};
use futures::{Stream, StreamExt};

use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::orders::graphql::OrderChange;

#[derive(Default)]
pub struct OrderSubscription;

#[Subscription]
impl OrderSubscription {
    /// The calling channel's orders as they are confirmed or cancelled, from the moment of
    /// subscribing (the channel's API key goes in `connection_init`). Ends with UNAVAILABLE
    /// when events may have been missed: read `orders`, then subscribe again.
    #[tracing::instrument(skip(self, ctx))]
    async fn order_changed(
        &self,
        ctx: &Context<'_>,
    ) -> Result<impl Stream<Item = Result<OrderChange, ApiError>>, ApiError> {
        let channel = ctx.calling_channel("watching orders")?;
        let live = crate::live::graphql::live(ctx)?;
        Ok(live.orders(channel).map(|event| event.map(OrderChange)))
    }
}
