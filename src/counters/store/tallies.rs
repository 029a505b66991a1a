//! `tallies`: the approximate counters shown on listings (a movie's want-to-see count, a
//! showtime's page views), one document per counted movie or showtime, `_id` its id. They
//! are written by each gateway's `counters::Tally`, one `$inc` per counter per second, and a
//! movie's want-to-see count is set again from the exact count now and then.
//!
//! `flushes` maps each gateway that wrote the document to the number of its last flush
//! taken: an increment whose number is not above it was taken already (its answer was
//! lost), and the filter refuses it. Marks older than a day are pruned.

use std::collections::HashMap;

use bson::{doc, Document};
use futures::future::join_all;
use serde::Deserialize;

use crate::counters::rules::{Counted, Increment};
use crate::domain::ids::MovieId;
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::command_metrics::Call;
use crate::store::{is_duplicate_key, names, Store, BACKGROUND};

/// Where a counter is stored: its document's id and its field.
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
struct TallyDoc {
    #[serde(rename = "_id")]
    id: bson::oid::ObjectId,
    #[serde(default)]
    want_to_see: i64,
    #[serde(default)]
    views: i64,
}

impl TallyDoc {
    /// The value of `counted` (a document holds one movie's or one showtime's).
    fn of(&self, counted: Counted) -> i64 {
        match counted {
            Counted::WantToSee(_) => self.want_to_see,
            Counted::Views(_) => self.views,
        }
    }
}

impl Store {
    /// Adds each of `gateway`'s increments to its counter, once: one upsert per counter, all
    /// at once, each answered on its own. An increment the counter took already (its
    /// number is not above the gateway's mark) is acknowledged without counting it again.
    #[tracing::instrument(skip(self, increments), fields(counters = increments.len()))]
    pub(in crate::counters) async fn add_tallies(
        &self,
        gateway: &str,
        increments: &[Increment],
    ) -> Vec<Result<(), ApiError>> {
        let tallies = self.collection::<Document>(names::TALLIES);
        let mark = format!("flushes.{gateway}");
        join_all(increments.iter().map(|increment| {
            let Increment { counted, by, flush } = *increment;
            let filter = doc! { "_id": counted.id(), &mark: { "$not": { "$gte": flush } } };
            let update = doc! { "$inc": { counted.field(): by }, "$set": { &mark: flush } };
            let tallies = &tallies;
            async move {
                // Written beside requests, not by them: left out of a request's round trips.
                let upsert = tallies
                    .update_one(filter.clone(), update.clone())
                    .upsert(true)
                    .comment(BACKGROUND);
                match self
                    .bounded_raw(Call::new(names::TALLIES, "update"), upsert)
                    .await?
                {
                    Ok(_) => Ok(()),
                    // The document is there and the filter did not match it: either it has
                    // this increment already, or another gateway made the document first
                    // (MongoDB does not retry an upsert whose filter is more than equalities).
                    // Now that it exists, the same update without the upsert tells them
                    // apart: it applies the increment only in the second case.
                    Err(error) if is_duplicate_key(&error) => {
                        let update = tallies.update_one(filter, update).comment(BACKGROUND);
                        self.bounded(Call::new(names::TALLIES, "update"), update)
                            .await
                            .map(drop)
                    }
                    Err(error) => Err(error.into()),
                }
            }
        }))
        .await
    }

    /// Forgets every gateway's flush mark older than `before` (milliseconds since the
    /// epoch), so that a counter's document does not grow with every gateway ever started.
    #[tracing::instrument(skip(self))]
    pub(in crate::counters) async fn prune_flush_marks(&self, before: i64) -> Result<(), ApiError> {
        let tallies = self.collection::<Document>(names::TALLIES);
        let marks = doc! { "$objectToArray": "$flushes" };
        let stale =
            doc! { "$filter": { "input": marks.clone(), "cond": { "$lt": ["$$this.v", before] } } };
        let kept = doc! { "$filter": { "input": marks, "cond": { "$gte": ["$$this.v", before] } } };
        let filter = doc! {
            "flushes": { "$exists": true },
            "$expr": { "$gt": [{ "$size": stale }, 0] },
        };
        let prune = vec![doc! { "$set": { "flushes": { "$arrayToObject": kept } } }];
        self.bounded(
            Call::new(names::TALLIES, "update"),
            tallies.update_many(filter, prune).comment(BACKGROUND),
        )
        .await?;
        Ok(())
    }

    /// The values of `counted`'s counters, in one `find`, indexed by id (a counter never
    /// written is left out).
    #[tracing::instrument(skip(self))]
    pub(in crate::counters) async fn tallies(
        &self,
        counted: &[Counted],
    ) -> Result<HashMap<Counted, i64>, ApiError> {
        let ids: Vec<bson::oid::ObjectId> = counted.iter().map(|c| c.id()).collect();
        let found: Vec<TallyDoc> = self
            .find_limited(
                names::TALLIES,
                doc! { "_id": { "$in": ids } },
                None,
                Some(doc! { "flushes": 0 }),
                counted.len(),
            )
            .await?;
        let by_id: HashMap<bson::oid::ObjectId, &TallyDoc> =
            found.iter().map(|tally| (tally.id, tally)).collect();
        Ok(counted
            .iter()
            .filter_map(|&key| by_id.get(&key.id()).map(|tally| (key, tally.of(key))))
            .collect())
    }

    /// Sets `movie`'s want-to-see counter to `exact`.
    #[tracing::instrument(skip(self))]
    pub(in crate::counters) async fn set_want_to_see_tally(
        &self,
        movie: MovieId,
        exact: i64,
    ) -> Result<(), ApiError> {
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
