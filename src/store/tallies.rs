//! `tallies`: the approximate counters shown on listings (a movie's want-to-see count, a
//! showtime's page views), one document per counted movie or showtime, `_id` its id. They
//! are written by each gateway's `booking::Tally`, one `$inc` per counter per second, and a
//! movie's want-to-see count is set again from the exact count now and then.

use bson::{doc, Document};
use futures::future::try_join_all;
use serde::Deserialize;

use super::codec::ObjectIdExt;
use super::command_metrics::Call;
use super::{names, Store, BACKGROUND};
use crate::domain::ids::{MovieId, ShowtimeId};
use crate::error::ApiError;

/// A counter kept approximately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Counted {
    /// How many customers want to see a movie.
    WantToSee(MovieId),
    /// How many times a showtime's page was read.
    Views(ShowtimeId),
}

impl Counted {
    fn id(self) -> bson::oid::ObjectId {
        match self {
            Counted::WantToSee(movie) => movie.oid(),
            Counted::Views(showtime) => showtime.oid(),
        }
    }

    fn field(self) -> &'static str {
        match self {
            Counted::WantToSee(_) => "wantToSee",
            Counted::Views(_) => "views",
        }
    }
}

/// A movie's or a showtime's counters, as written so far.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TallyDoc {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    #[serde(default)]
    pub want_to_see: i64,
    #[serde(default)]
    pub views: i64,
}

impl TallyDoc {
    /// The value of `counted` (a document holds one movie's or one showtime's).
    pub fn of(&self, counted: Counted) -> i64 {
        match counted {
            Counted::WantToSee(_) => self.want_to_see,
            Counted::Views(_) => self.views,
        }
    }

    /// Whether this is `counted`'s document.
    pub fn counts(&self, counted: Counted) -> bool {
        self.id == counted.id()
    }
}

impl Store {
    /// Adds each increment to its counter: one upsert per counter, all at once.
    #[tracing::instrument(skip(self, increments), fields(counters = increments.len()))]
    pub async fn add_tallies(&self, increments: &[(Counted, i64)]) -> Result<(), ApiError> {
        let tallies = self.collection::<Document>(names::TALLIES);
        try_join_all(increments.iter().map(|&(counted, by)| {
            // Written beside requests, not by them: left out of a request's round trips.
            let update = tallies
                .update_one(
                    doc! { "_id": counted.id() },
                    doc! { "$inc": { counted.field(): by } },
                )
                .upsert(true)
                .comment(BACKGROUND);
            self.bounded(Call::new(names::TALLIES, "update"), update)
        }))
        .await?;
        Ok(())
    }

    /// The counters of `counted`, in one `find` (absent: nothing counted yet).
    #[tracing::instrument(skip(self))]
    pub async fn tallies(&self, counted: &[Counted]) -> Result<Vec<TallyDoc>, ApiError> {
        let ids: Vec<bson::oid::ObjectId> = counted.iter().map(|c| c.id()).collect();
        self.find_limited(
            names::TALLIES,
            doc! { "_id": { "$in": ids } },
            None,
            None,
            counted.len(),
        )
        .await
    }

    /// Sets `movie`'s want-to-see counter to `exact`.
    #[tracing::instrument(skip(self))]
    pub async fn set_want_to_see_tally(&self, movie: MovieId, exact: i64) -> Result<(), ApiError> {
        let tallies = self.collection::<Document>(names::TALLIES);
        self.bounded(
            Call::new(names::TALLIES, "update"),
            tallies
                .update_one(
                    doc! { "_id": movie.oid() },
                    doc! { "$set": { "wantToSee": exact } },
                )
                .upsert(true),
        )
        .await?;
        Ok(())
    }
}
