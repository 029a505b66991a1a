//! `Movie`: the summary lists show (subset pattern); details and reviews are loaded apart.

use std::sync::Arc;

use async_graphql::connection::Connection;
use async_graphql::{Context, Object, SimpleObject, ID};

use super::MovieDetails;
use super::Review;
use crate::counters::graphql::CountersContext;
use crate::counters::Counted;
use crate::domain::cursor::Cursor;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::MovieId;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::lazy::Lazy;
use crate::graphql::types::list_cost;
use crate::graphql::types::{connection, page_cost};
use crate::sales::graphql::Sales;
use crate::store::documents::{MovieDoc, MovieRef};

/// A movie as lists show it.
pub struct Movie {
    doc: Lazy<MovieId, MovieDoc>,
    /// What a showtime copied of the movie (extended reference), when it came from one.
    copied: Option<MovieRef>,
}

impl Movie {
    pub fn from_doc(doc: Arc<MovieDoc>) -> Self {
        Movie {
            doc: Lazy::loaded(doc.id, doc),
            copied: None,
        }
    }

    pub fn from_ref(copied: &MovieRef) -> Self {
        Movie {
            doc: Lazy::unloaded(copied.id),
            copied: Some(copied.clone()),
        }
    }

    pub fn from_id(id: MovieId) -> Self {
        Movie {
            doc: Lazy::unloaded(id),
            copied: None,
        }
    }

    async fn full(&self, ctx: &Context<'_>) -> Result<Arc<MovieDoc>, ApiError> {
        self.doc.get(ctx, "movie").await
    }
}

/// Audience rating summary, kept up to date with the reviews.
#[derive(SimpleObject)]
pub struct Rating {
    /// Average rating, 1 to 10.
    pub average: f64,
    /// Number of reviews.
    pub count: i64,
}

/// How many reviews a movie embeds (the subset pattern), and so what `recentReviews` costs per
/// review in the complexity limit: a list nested in itself through `Review.movie` multiplies.
const RECENT_REVIEWS: usize = 10;

/// A movie as lists show it (subset pattern): details and reviews are loaded apart, only when
/// asked.
#[Object(cache_control(max_age = 60))]
impl Movie {
    /// Global id, for `node(id:)`.
    pub async fn id(&self) -> ID {
        GlobalId::Movie(self.doc.id).encode().into()
    }

    /// How many customers want to see it, approximately: each gateway writes its marks once a
    /// second, and the count is set to the exact one every 10 minutes (see the README).
    async fn want_to_see_count(&self, ctx: &Context<'_>) -> Result<i64, ApiError> {
        let counted = Counted::WantToSee(self.doc.id);
        let count = ctx.tallies().load_one(counted).await?;
        Ok(count.unwrap_or(0))
    }

    /// The title shown in China.
    async fn title(&self, ctx: &Context<'_>) -> Result<String, ApiError> {
        match &self.copied {
            Some(copied) => Ok(copied.title.clone()),
            None => Ok(self.full(ctx).await?.title.clone()),
        }
    }

    /// The original title.
    async fn original_title(&self, ctx: &Context<'_>) -> Result<String, ApiError> {
        Ok(self.full(ctx).await?.original_title.clone())
    }

    /// Year of release.
    async fn year(&self, ctx: &Context<'_>) -> Result<i32, ApiError> {
        Ok(self.full(ctx).await?.year)
    }

    /// Running time in minutes.
    async fn runtime_minutes(&self, ctx: &Context<'_>) -> Result<i32, ApiError> {
        match &self.copied {
            Some(copied) => Ok(copied.runtime_minutes),
            None => Ok(self.full(ctx).await?.runtime_minutes),
        }
    }

    /// Genres, e.g. "科幻", "动作".
    async fn genres(&self, ctx: &Context<'_>) -> Result<Vec<String>, ApiError> {
        Ok(self.full(ctx).await?.genres.clone())
    }

    /// Directors.
    async fn directors(&self, ctx: &Context<'_>) -> Result<Vec<String>, ApiError> {
        Ok(self.full(ctx).await?.directors.clone())
    }

    /// The leading cast; the full cast is in `details`.
    async fn top_cast(&self, ctx: &Context<'_>) -> Result<Vec<String>, ApiError> {
        Ok(self.full(ctx).await?.top_cast.clone())
    }

    /// Audience rating.
    async fn rating(&self, ctx: &Context<'_>) -> Result<Rating, ApiError> {
        let doc = self.full(ctx).await?;
        Ok(Rating {
            average: doc.rating.average,
            count: doc.rating.count,
        })
    }

    /// Poster image URL.
    async fn poster_url(&self, ctx: &Context<'_>) -> Result<String, ApiError> {
        Ok(self.full(ctx).await?.poster_url.clone())
    }

    /// The 10 latest reviews, newest first, embedded in the movie (no extra query).
    #[graphql(complexity = "list_cost(RECENT_REVIEWS, child_complexity)")]
    async fn recent_reviews(&self, ctx: &Context<'_>) -> Result<Vec<Review>, ApiError> {
        let doc = self.full(ctx).await?;
        Ok(doc
            .recent_reviews
            .iter()
            .take(RECENT_REVIEWS)
            .map(|review| Review::from_doc(Arc::new(review.clone())))
            .collect())
    }

    /// Tickets sold and revenue over every showtime, net of cancellations; kept in the movie
    /// and moved with every order (computed pattern), so reading it costs nothing extra.
    #[graphql(cache_control(no_cache))]
    async fn sales(&self, ctx: &Context<'_>) -> Result<Sales, ApiError> {
        Ok(self.full(ctx).await?.sales.into())
    }

    /// Plot, full cast, languages and external ratings: loaded only when asked, in one batch
    /// for every movie of the request.
    async fn details(&self, ctx: &Context<'_>) -> Result<Option<MovieDetails>, ApiError> {
        let fields = MovieDetails::fields_asked(&ctx.look_ahead());
        let details = ctx
            .loaders()
            .details
            .load_one((self.doc.id, fields))
            .await?;
        Ok(details.map(MovieDetails))
    }

    /// Every review, newest first.
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn reviews(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "How many reviews (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last review of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Review>, ApiError> {
        let page = ctx.page(first, after)?;
        // Boxed: see `graphql::types`.
        let reviews = Box::pin(ctx.store().list_reviews(self.doc.id, &page)).await?;
        Ok(connection(reviews, |review| {
            Review::from_doc(Arc::new(review))
        }))
    }
}
