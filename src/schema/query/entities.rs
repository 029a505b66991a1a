//! Apollo Federation v2 entities, served with `--federation` only (`FederatedQuery`): another
//! subgraph may name a Cinema, Movie, Showtime or Order by its `id` (`@key(fields: "id")`), and
//! the router asks this gateway for them in `_entities`. Each is loaded through the request's
//! loaders, so the representations of one `_entities` call cost one `$in` per type. An order is
//! its channel's only: the router must pass the caller's `Authorization` header on.

use async_graphql::{Context, Object, ID};

use crate::catalogue::graphql::types::{Cinema, Movie, Showtime};
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::holds::HoldEndings;
use crate::orders;
use crate::orders::graphql::Order;
use crate::store::documents::OrderStatus;

#[derive(Default)]
pub struct EntityQuery;

#[Object]
impl EntityQuery {
    /// A cinema by its global id.
    #[graphql(entity)]
    #[tracing::instrument(skip(self, ctx))]
    async fn find_cinema_by_id(&self, ctx: &Context<'_>, id: ID) -> Result<Cinema, ApiError> {
        let key = global_id::cinema_id(&id)?;
        let found = ctx.loaders().cinemas.load_one(key).await?;
        found
            .map(Cinema::from_doc)
            .ok_or_else(|| ApiError::not_found(format!("no cinema {}", id.as_str())))
    }

    /// A movie by its global id.
    #[graphql(entity)]
    #[tracing::instrument(skip(self, ctx))]
    async fn find_movie_by_id(&self, ctx: &Context<'_>, id: ID) -> Result<Movie, ApiError> {
        let key = global_id::movie_id(&id)?;
        let found = ctx.loaders().movies.load_one(key).await?;
        found
            .map(Movie::from_doc)
            .ok_or_else(|| ApiError::not_found(format!("no movie {}", id.as_str())))
    }

    /// A showtime by its global id.
    #[graphql(entity)]
    #[tracing::instrument(skip(self, ctx))]
    async fn find_showtime_by_id(&self, ctx: &Context<'_>, id: ID) -> Result<Showtime, ApiError> {
        let key = global_id::showtime_id(&id)?;
        let found = ctx.loaders().showtimes.load_one(key).await?;
        found
            .map(Showtime::from_arc)
            .ok_or_else(|| ApiError::not_found(format!("no showtime {}", id.as_str())))
    }

    /// An order of the calling channel by its global id; another channel's is NOT_FOUND, as
    /// with `order(id:)`.
    #[graphql(entity)]
    #[tracing::instrument(skip(self, ctx))]
    async fn find_order_by_id(&self, ctx: &Context<'_>, id: ID) -> Result<Order, ApiError> {
        let channel = ctx.calling_channel("reading orders")?;
        let key = global_id::order_id(&id)?;
        let not_found = || ApiError::not_found(format!("no order {} of this channel", id.as_str()));
        let order = ctx
            .loaders()
            .orders
            .load_one(key)
            .await?
            .filter(|order| order.channel == channel)
            .ok_or_else(not_found)?;
        match order.status {
            OrderStatus::Confirmed | OrderStatus::Cancelled => Ok(Order((*order).clone())),
            // Not settled yet (a crash mid-confirm or mid-cancel): as `order(id:)` does.
            OrderStatus::Pending | OrderStatus::Cancelling => {
                let endings = ctx.data_unchecked::<HoldEndings>();
                Ok(Order(
                    orders::order_of(ctx.store(), endings, channel, key).await?,
                ))
            }
        }
    }
}
