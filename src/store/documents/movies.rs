//! The shapes of the films: `movies` (with their embedded `reviews` and sales totals) and
//! `movie_details`.
//! Shared: the catalogue writes them; the shared loaders and sales read them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::ids::{MovieId, ReviewId};
use crate::store::codec;

/// A review as embedded in a movie (the 10 latest) and as stored in `reviews`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: ReviewId,
    #[serde(with = "codec::id")]
    pub movie_id: MovieId,
    pub author: String,
    /// 1 to 10.
    pub rating: i32,
    pub text: String,
    #[serde(with = "codec::time")]
    pub created_at: DateTime<Utc>,
}

/// The rating summary a movie keeps (computed pattern).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RatingSummary {
    /// Average of all reviews, 1 to 10.
    pub average: f64,
    pub count: i64,
}

/// `movies`: what lists show (subset pattern).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MovieDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: MovieId,
    pub schema_version: i32,
    pub title: String,
    pub original_title: String,
    pub year: i32,
    pub runtime_minutes: i32,
    pub genres: Vec<String>,
    pub directors: Vec<String>,
    pub top_cast: Vec<String>,
    pub rating: RatingSummary,
    pub poster_url: String,
    /// The 10 latest reviews, newest first.
    pub recent_reviews: Vec<ReviewDoc>,
    /// Tickets sold and revenue of the confirmed orders (computed pattern, kept by the sales
    /// projection).
    #[serde(default)]
    pub sales: SalesDoc,
}

/// Running sales totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SalesDoc {
    pub tickets: i64,
    /// Minor units (fen): tickets and concessions.
    pub revenue: i64,
    pub orders: i64,
    /// Concession units sold (absent in figures kept before concessions: none).
    #[serde(default)]
    pub items: i64,
    /// The part of `revenue` that concessions brought in (absent before them: none).
    #[serde(default)]
    pub concessions: i64,
}

/// One member of the full cast.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CastMemberDoc {
    pub name: String,
    pub character: String,
}

/// A rating from another site.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalRatingDoc {
    pub source: String,
    pub score: f64,
    pub max_score: f64,
    pub votes: i64,
}

/// `movie_details`: loaded only when asked; `_id` is the movie's. A read projected to some
/// fields (`Store::movie_details_by_ids`) leaves the others empty.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MovieDetailsDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: MovieId,
    #[serde(default)]
    pub schema_version: i32,
    #[serde(default)]
    pub plot: String,
    #[serde(default)]
    pub full_plot: String,
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub countries: Vec<String>,
    #[serde(default)]
    pub cast: Vec<CastMemberDoc>,
    #[serde(default)]
    pub external_ratings: Vec<ExternalRatingDoc>,
}

/// Which fields of movie details a read needs (a set; `|` joins two).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DetailFields(u8);

impl DetailFields {
    pub const PLOT: DetailFields = DetailFields(1);
    pub const FULL_PLOT: DetailFields = DetailFields(1 << 1);
    pub const LANGUAGES: DetailFields = DetailFields(1 << 2);
    pub const COUNTRIES: DetailFields = DetailFields(1 << 3);
    pub const CAST: DetailFields = DetailFields(1 << 4);
    pub const EXTERNAL_RATINGS: DetailFields = DetailFields(1 << 5);

    /// The stored names of the fields in the set.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        [
            "plot",
            "fullPlot",
            "languages",
            "countries",
            "cast",
            "externalRatings",
        ]
        .into_iter()
        .enumerate()
        .filter(move |(bit, _)| self.0 & (1 << bit) != 0)
        .map(|(_, name)| name)
    }
}

impl std::ops::BitOr for DetailFields {
    type Output = DetailFields;
    fn bitor(self, other: DetailFields) -> DetailFields {
        DetailFields(self.0 | other.0)
    }
}
