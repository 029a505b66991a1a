//! Want-to-see lists (`want_to_see::rules`): `want_to_see` (by customer),
//! `want_to_see_by_movie` (a movie's wanters, in buckets) and `want_to_see_counts` (a movie's
//! mark sequence, its approximate count, its outlier flag).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::ids::{MarkId, MovieId};
use crate::store::codec;

/// `want_to_see`: one customer's list; `_id` is its wanter (`channel/customer`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WantListDoc {
    #[serde(rename = "_id")]
    pub wanter: String,
    pub schema_version: i32,
    pub channel: String,
    pub customer: String,
    /// In the order they were marked; read newest first by `key`.
    pub movies: Vec<WantedMovieDoc>,
}

/// A movie on a customer's list, with its title (the denormalised "by user" row of seed 004).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WantedMovieDoc {
    #[serde(with = "codec::id")]
    pub movie: MovieId,
    pub title: String,
    #[serde(with = "codec::time")]
    pub at: DateTime<Utc>,
    /// `want_to_see::rules::time_key(at, movie)`.
    pub key: String,
    /// The mark that put it there: its movie-side entry carries the same id, so an unmark
    /// (or a late attempt of this mark) pulls exactly that entry.
    #[serde(with = "codec::id")]
    pub op: MarkId,
    pub state: WantState,
    /// The by-movie bucket it is (or goes) in.
    pub bucket: i64,
    /// When its attempt began, while one is in flight (ADDING, REMOVING): the repair pass
    /// finishes those older than a grace.
    #[serde(
        default,
        with = "codec::optional_time",
        skip_serializing_if = "Option::is_none"
    )]
    pub since: Option<DateTime<Utc>>,
}

impl WantedMovieDoc {
    /// The entry as it reads once its mark is on both sides (what `finish_listing` writes).
    pub fn done(self) -> Self {
        WantedMovieDoc {
            state: WantState::Done,
            since: None,
            ..self
        }
    }
}

/// Where an entry of a customer's list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum WantState {
    /// Written on the customer's side; the movie's side is being written.
    Adding,
    /// On both sides.
    Done,
    /// Being taken off the movie's side; then off the customer's.
    Removing,
}

/// `want_to_see_by_movie`: one bucket of a movie's wanters; `_id` is `movieHex/bucket`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WantBucketDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub schema_version: i32,
    #[serde(with = "codec::id")]
    pub movie: MovieId,
    pub bucket: i64,
    pub entries: Vec<WanterDoc>,
}

/// A wanter of a movie (the denormalised "by item" row).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WanterDoc {
    /// `channel/customer`.
    pub wanter: String,
    #[serde(with = "codec::time")]
    pub at: DateTime<Utc>,
    /// `want_to_see::rules::time_key(at, wanter)`.
    pub key: String,
    #[serde(with = "codec::id")]
    pub op: MarkId,
}

/// `want_to_see_counts`: per movie, the next mark's sequence number and whether its wanters
/// outgrew the first bucket (the outlier flag of seed 002).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WantCountDoc {
    #[serde(default)]
    pub next: i64,
    #[serde(default)]
    pub outlier: bool,
}
