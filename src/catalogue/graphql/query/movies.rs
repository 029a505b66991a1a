//! Movie queries: by id, by genre, by title, now showing in a city.

use async_graphql::connection::Connection;
use async_graphql::{Context, Object, ID};
use chrono::Utc;

use crate::catalogue::graphql::types::Movie;
use crate::catalogue::{MovieFilter, ShowtimeFilter};
use crate::domain::cursor::Cursor;
use crate::domain::time_range::TimeRange;
use crate::domain::{global_id, text};
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{connection, page_cost};

#[derive(Default)]
pub struct MovieQuery;

#[Object]
impl MovieQuery {
    /// A movie by id; null when there is none.
    #[tracing::instrument(skip(self, ctx))]
    async fn movie(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "A movie's global id.")] id: ID,
    ) -> Result<Option<Movie>, ApiError> {
        let id = global_id::movie_id(&id)?;
        let doc = ctx.loaders().movies.load_one(id).await?;
        Ok(doc.map(Movie::from_doc))
    }

    /// Movies in title order; every given filter must hold.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn movies(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Only movies of this genre, e.g. \"科幻\".")] genre: Option<String>,
        #[graphql(desc = "Only movies whose title contains this text (any case).")] title_contains: Option<String>,
        #[graphql(desc = "Only movies with a showtime yet to start in this city.")] showing_in_city: Option<String>,
        #[graphql(desc = "How many movies (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last movie of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Movie>, ApiError> {
        let mut filter = MovieFilter {
            genre: text::optional("genre", genre)?,
            title_contains: text::optional("titleContains", title_contains)?,
            among: None,
        };
        let page = ctx.page(first, after)?;
        if let Some(city) = text::optional("showingInCity", showing_in_city)? {
            let upcoming = ShowtimeFilter {
                starts: TimeRange::new(Some(Utc::now()), None)?,
                ..ShowtimeFilter::default()
            };
            filter.among = Some(ctx.store().movies_showing_in_city(&city, &upcoming).await?);
        }
        let movies = ctx.store().list_movies(&filter, &page).await?;
        Ok(connection(movies, |doc| Movie::from_doc(doc.into())))
    }
}
