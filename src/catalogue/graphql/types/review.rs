//! `Review`: one audience review of a movie.

use std::sync::Arc;

use async_graphql::{Object, ID};
use chrono::{DateTime, Utc};

use super::Movie;
use crate::domain::global_id::GlobalId;
use crate::store::documents::ReviewDoc;

/// An audience review.
pub struct Review(Arc<ReviewDoc>);

impl Review {
    pub fn from_doc(doc: Arc<ReviewDoc>) -> Self {
        Review(doc)
    }
}

/// An audience review of a movie.
#[Object(cache_control(max_age = 60))]
impl Review {
    /// Global id, for `node(id:)`.
    pub async fn id(&self) -> ID {
        GlobalId::Review(self.0.id).encode().into()
    }

    /// The reviewer's display name.
    async fn author(&self) -> &str {
        &self.0.author
    }

    /// Rating from 1 to 10.
    async fn rating(&self) -> i32 {
        self.0.rating
    }

    /// The review's text.
    async fn text(&self) -> &str {
        &self.0.text
    }

    /// When it was written.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }

    /// The movie reviewed.
    async fn movie(&self) -> Movie {
        Movie::from_id(self.0.movie_id)
    }
}
