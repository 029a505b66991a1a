//! `movies`, `movie_details` and `reviews`.

use bson::{doc, DateTime, Document};
use serde::{Deserialize, Serialize};

use crate::domain::ids::{MovieId, ReviewId};
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::store::codec::{self, ObjectIdExt};
use crate::store::documents::{DetailFields, MovieDetailsDoc, MovieDoc, ReviewDoc};
use crate::store::{filters, names, Store};

/// Which movies to list; all conditions must hold.
#[derive(Debug, Clone, Default)]
pub struct MovieFilter {
    pub genre: Option<String>,
    pub title_contains: Option<String>,
    /// Only these movies (e.g. those now showing in a city).
    pub among: Option<Vec<MovieId>>,
}

#[derive(Serialize, Deserialize)]
struct TitleKey(String, MovieId);

#[derive(Serialize, Deserialize)]
struct NewestKey(i64, ReviewId);

impl Store {
    #[tracing::instrument(skip(self))]
    pub async fn movies_by_ids(&self, ids: &[MovieId]) -> Result<Vec<MovieDoc>, ApiError> {
        self.find_by_ids(names::MOVIES, ids).await
    }

    #[tracing::instrument(skip(self))]
    pub async fn movie_details_by_ids(
        &self,
        ids: &[MovieId],
        fields: DetailFields,
    ) -> Result<Vec<MovieDetailsDoc>, ApiError> {
        let mut projection = doc! { "_id": 1 };
        for name in fields.names() {
            projection.insert(name, 1);
        }
        self.find_by_ids_projected(names::MOVIE_DETAILS, ids, projection)
            .await
    }

    #[tracing::instrument(skip(self))]
    pub async fn reviews_by_ids(&self, ids: &[ReviewId]) -> Result<Vec<ReviewDoc>, ApiError> {
        self.find_by_ids(names::REVIEWS, ids).await
    }

    /// Movies in title order (index `title`, or `genre_title` with a genre).
    #[tracing::instrument(skip(self))]
    pub async fn list_movies(
        &self,
        filter: &MovieFilter,
        page: &PageRequest,
    ) -> Result<Page<MovieDoc>, ApiError> {
        let mut query = Document::new();
        if let Some(genre) = &filter.genre {
            query.insert("genres", genre);
        }
        if let Some(text) = &filter.title_contains {
            query.insert("title", filters::contains_text(text));
        }
        if let Some(among) = &filter.among {
            query.insert("_id", doc! { "$in": codec::oids(among) });
        }
        self.find_page(
            names::MOVIES,
            "movies",
            query,
            doc! { "title": 1, "_id": 1 },
            None,
            page,
            |TitleKey(title, id)| {
                filters::after_ascending(&["title", "_id"], &[title.into(), id.oid().into()])
            },
            |movie: &MovieDoc| TitleKey(movie.title.clone(), movie.id),
        )
        .await
    }

    /// All reviews of a movie, newest first (index `movie_newest`).
    #[tracing::instrument(skip(self))]
    pub async fn list_reviews(
        &self,
        movie: MovieId,
        page: &PageRequest,
    ) -> Result<Page<ReviewDoc>, ApiError> {
        self.find_page(
            names::REVIEWS,
            "reviews",
            doc! { "movieId": movie.oid() },
            doc! { "movieId": 1, "createdAt": -1, "_id": -1 },
            None,
            page,
            |NewestKey(millis, id)| {
                filters::after_descending(
                    &["createdAt", "_id"],
                    &[DateTime::from_millis(millis).into(), id.oid().into()],
                )
            },
            |review: &ReviewDoc| NewestKey(review.created_at.timestamp_millis(), review.id),
        )
        .await
    }
}
