//! Want-to-see lists: a channel's customer's list, and (for the platform operator) a movie's
//! wanters and their exact count.

use async_graphql::connection::Connection;
use async_graphql::{Context, Object, ID};

use super::types::{WantToSeeCount, WantedMovie, Wanter};
use crate::domain::cursor::Cursor;
use crate::domain::customer::CustomerId;
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{connection, page_cost};
use crate::want_to_see;

#[derive(Default)]
pub struct WantToSeeQuery;

#[Object]
impl WantToSeeQuery {
    /// The movies a customer of the calling channel wants to see, newest first.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn want_to_see(
        &self,
        ctx: &Context<'_>,
        #[graphql(
            desc = "The channel's opaque id of the customer (1 to 64 characters, no spaces or control characters)."
        )]
        customer_id: String,
        #[graphql(desc = "How many movies (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last movie of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, WantedMovie>, ApiError> {
        let channel = ctx.calling_channel("reading want-to-see lists")?;
        let customer = CustomerId::parse(&customer_id)?;
        let page = ctx.page(first, after)?;
        let found = want_to_see::want_list_page(ctx.store(), channel, &customer, &page).await?;
        Ok(connection(found, WantedMovie))
    }

    /// The customers who want to see a movie, newest first (the platform operator's only).
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn movie_wanters(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The movie's global id.")] movie_id: ID,
        #[graphql(desc = "How many wanters (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last wanter of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Wanter>, ApiError> {
        platform_only(ctx).await?;
        let movie = global_id::movie_id(&movie_id)?;
        let page = ctx.page(first, after)?;
        let found = want_to_see::wanters_page(ctx.store(), movie, &page).await?;
        Ok(connection(found, |(_, wanter)| Wanter(wanter)))
    }

    /// How many customers want to see a movie, counted exactly (the platform operator's
    /// only; listings show `Movie.wantToSeeCount`, kept approximately).
    #[tracing::instrument(skip(self, ctx))]
    async fn movie_want_to_see_count(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The movie's global id.")] movie_id: ID,
    ) -> Result<WantToSeeCount, ApiError> {
        platform_only(ctx).await?;
        let movie = global_id::movie_id(&movie_id)?;
        let counts = want_to_see::want_counts(ctx.store(), movie).await?;
        Ok(WantToSeeCount {
            exact: counts.exact,
            shown: counts.shown,
            outlier: counts.outlier,
        })
    }
}

/// FORBIDDEN unless the caller is the platform operator.
async fn platform_only(ctx: &Context<'_>) -> Result<(), ApiError> {
    let caller = ctx.calling_operator("reading a movie's wanters")?;
    if ctx.store().operator_is_platform(caller).await? {
        Ok(())
    } else {
        Err(ApiError::forbidden(
            "only the platform operator may read a movie's wanters",
        ))
    }
}
