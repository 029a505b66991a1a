//! Showtime queries, and the sales channels.

use async_graphql::connection::Connection;
use async_graphql::{Context, InputObject, Object, ID};
use chrono::{DateTime, Utc};

use crate::catalogue::graphql::types::{Channel, Showtime};
use crate::catalogue::ShowtimeFilter;
use crate::counters::graphql::CountersContext;
use crate::counters::Counted;
use crate::domain::cursor::Cursor;
use crate::domain::time_range::TimeRange;
use crate::domain::{global_id, text};
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{connection, page_cost};

#[derive(Default)]
pub struct ShowtimeQuery;

/// Which showtimes to list; every given field must hold.
#[derive(InputObject, Default, Debug)]
pub struct ShowtimesFilter {
    /// Only at this cinema.
    pub cinema_id: Option<ID>,
    /// Only of this movie.
    pub movie_id: Option<ID>,
    /// Only in this city, e.g. "北京".
    pub city: Option<String>,
    /// Only showtimes sold on this sales channel (those with a price for it).
    pub channel: Option<String>,
    /// Only showtimes starting at or after this instant.
    pub starts_from: Option<DateTime<Utc>>,
    /// Only showtimes starting before this instant.
    pub starts_before: Option<DateTime<Utc>>,
}

impl TryFrom<ShowtimesFilter> for ShowtimeFilter {
    type Error = ApiError;

    fn try_from(input: ShowtimesFilter) -> Result<Self, ApiError> {
        Ok(ShowtimeFilter {
            cinema: input
                .cinema_id
                .as_ref()
                .map(|id| global_id::cinema_id(id))
                .transpose()?,
            movie: input
                .movie_id
                .as_ref()
                .map(|id| global_id::movie_id(id))
                .transpose()?,
            city: text::optional("city", input.city)?,
            channel: text::optional("channel", input.channel)?,
            starts: TimeRange::new(input.starts_from, input.starts_before)?,
        })
    }
}

#[Object]
impl ShowtimeQuery {
    /// A showtime by id; null when there is none.
    #[tracing::instrument(skip(self, ctx))]
    async fn showtime(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "A showtime's global id.")] id: ID,
    ) -> Result<Option<Showtime>, ApiError> {
        let id = global_id::showtime_id(&id)?;
        let doc = ctx.loaders().showtimes.load_one(id).await?;
        if doc.is_some() {
            ctx.tally().add(Counted::Views(id), 1);
        }
        Ok(doc.map(Showtime::from_arc))
    }

    /// Showtimes in start order.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn showtimes(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Which showtimes; all of them when absent.")] filter: Option<
            ShowtimesFilter,
        >,
        #[graphql(desc = "How many showtimes (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last showtime of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Showtime>, ApiError> {
        let filter = ShowtimeFilter::try_from(filter.unwrap_or_default())?;
        let page = ctx.page(first, after)?;
        let parts = Showtime::parts_asked(&ctx.look_ahead());
        // Boxed: the resolver's future is copied whole each time async-graphql moves it.
        let listed = Box::pin(ctx.store().list_showtimes(&filter, &page, parts));
        Ok(connection(listed.await?, Showtime::from_doc))
    }

    /// The sales channels, by code.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn channels(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "How many channels (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last channel of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Channel>, ApiError> {
        let page = ctx.page(first, after)?;
        let channels = ctx.store().list_channels(&page).await?;
        Ok(connection(channels, Channel::from))
    }

    /// The sales channel calling (by its API key); null for anonymous callers.
    #[tracing::instrument(skip(self, ctx))]
    async fn current_channel(&self, ctx: &Context<'_>) -> Result<Option<Channel>, ApiError> {
        let Some(code) = &ctx.caller().channel else {
            return Ok(None);
        };
        Ok(ctx.store().channel_by_code(code).await?.map(Channel::from))
    }
}
