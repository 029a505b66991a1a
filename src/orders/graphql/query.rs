//! A channel's own orders.

use async_graphql::connection::Connection;
use async_graphql::{Context, Object, ID};

use crate::domain::cursor::Cursor;
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{connection, page_cost};
use crate::holds::HoldEndings;
use crate::orders;
use crate::orders::graphql::Order;

#[derive(Default)]
pub struct OrderQuery;

#[Object]
impl OrderQuery {
    /// An order of the calling channel; another channel's order is NOT_FOUND.
    #[tracing::instrument(skip(self, ctx))]
    async fn order(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The order's id.")] id: ID,
    ) -> Result<Order, ApiError> {
        let channel = ctx.calling_channel("reading orders")?;
        let id = global_id::order_id(&id)?;
        let endings = ctx.data_unchecked::<HoldEndings>();
        Ok(Order(
            orders::order_of(ctx.store(), endings, channel, id).await?,
        ))
    }

    /// The calling channel's orders, newest first.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn orders(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "How many orders (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last order of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Order>, ApiError> {
        let channel = ctx.calling_channel("reading orders")?;
        let page = ctx.page(first, after)?;
        let orders = orders::list_orders(ctx.store(), channel, &page).await?;
        Ok(connection(orders, Order))
    }
}
