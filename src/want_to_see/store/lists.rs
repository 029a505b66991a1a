//! `want_to_see`: each customer's want-to-see list, by customer (`want_to_see::rules`). Every
//! write names the entry's movie and, once it has one, the mark (`op`) it assumes.

use bson::{doc, Document};
use chrono::{DateTime, Utc};

use super::documents::{WantListDoc, WantState, WantedMovieDoc};
use crate::domain::ids::{MarkId, MovieId};
use crate::error::ApiError;
use crate::store::codec::{self, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::documents::SCHEMA_VERSION;
use crate::store::{is_duplicate_key, names, Store};
use crate::want_to_see::rules::MAX_MOVIES_PER_CUSTOMER;

/// What putting a movie on a list did.
#[derive(Debug, Clone)]
pub enum Listed {
    /// It is on the list now, ADDING.
    Added,
    /// It was already there, in this state.
    There(WantedMovieDoc),
    /// The list is full.
    Full,
}

fn state(state: WantState) -> bson::Bson {
    bson::to_bson(&state).expect("a state serializes")
}

impl Store {
    /// Puts `entry` (ADDING) on `wanter`'s list, unless its movie is on it or the list is full:
    /// one upsert whose filter says so.
    #[tracing::instrument(skip(self, entry))]
    pub(in crate::want_to_see) async fn list_wanted_movie(
        &self,
        wanter: &str,
        channel: &str,
        customer: &str,
        entry: &WantedMovieDoc,
    ) -> Result<Listed, ApiError> {
        let lists = self.collection::<Document>(names::WANT_TO_SEE);
        let full = format!("movies.{}", MAX_MOVIES_PER_CUSTOMER - 1);
        let filter = doc! {
            "_id": wanter,
            "movies.movie": { "$ne": entry.movie.oid() },
            full: { "$exists": false },
        };
        let update = doc! {
            "$push": { "movies": bson::to_bson(entry).map_err(|e| ApiError::internal_caused("an entry", e))? },
            "$setOnInsert": { "schemaVersion": SCHEMA_VERSION, "channel": channel, "customer": customer },
        };
        // A few times at most: a first mark of a new customer may race another mark of the same
        // customer (of another movie) to insert the list.
        for _ in 0..3 {
            let written = self
                .bounded_raw(
                    Call::new(names::WANT_TO_SEE, "update"),
                    lists
                        .update_one(filter.clone(), update.clone())
                        .upsert(true),
                )
                .await?;
            match written {
                Ok(_) => return Ok(Listed::Added),
                // The list exists and the filter refused it: the movie is there, the list is
                // full, or the list was inserted meanwhile by another mark (then try again).
                Err(error) if is_duplicate_key(&error) => {
                    let movies = self
                        .want_list(wanter)
                        .await?
                        .map(|list| list.movies)
                        .unwrap_or_default();
                    if let Some(there) = movies.iter().find(|m| m.movie == entry.movie) {
                        return Ok(Listed::There(there.clone()));
                    }
                    if movies.len() >= MAX_MOVIES_PER_CUSTOMER {
                        return Ok(Listed::Full);
                    }
                }
                Err(error) => return Err(error.into()),
            }
        }
        Err(ApiError::unavailable(
            "the customer's list changed under every attempt; try again",
        ))
    }

    /// Mark `op`'s entry ADDING (or already DONE) becomes DONE. False when the entry is not
    /// that mark's any more, or is being removed.
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn finish_listing(
        &self,
        wanter: &str,
        movie: MovieId,
        op: MarkId,
    ) -> Result<bool, ApiError> {
        let filter = doc! { "_id": wanter, "movies": { "$elemMatch": {
            "movie": movie.oid(), "op": op.oid(),
            "state": { "$in": [state(WantState::Adding), state(WantState::Done)] },
        } } };
        let update = doc! {
            "$set": { "movies.$.state": state(WantState::Done) },
            "$unset": { "movies.$.since": "" },
        };
        let lists = self.collection::<Document>(names::WANT_TO_SEE);
        let written = self
            .bounded(
                Call::new(names::WANT_TO_SEE, "update"),
                lists.update_one(filter, update),
            )
            .await?;
        Ok(written.matched_count == 1)
    }

    /// `movie`'s entry on `wanter`'s list becomes REMOVING (since `now`); returns it as it was,
    /// None when the movie is not on the list.
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn start_unlisting(
        &self,
        wanter: &str,
        movie: MovieId,
        now: DateTime<Utc>,
    ) -> Result<Option<WantedMovieDoc>, ApiError> {
        let filter = doc! { "_id": wanter, "movies.movie": movie.oid() };
        let update = doc! { "$set": {
            "movies.$.state": state(WantState::Removing),
            "movies.$.since": codec::date(now),
        } };
        let lists = self.collection::<WantListDoc>(names::WANT_TO_SEE);
        let before = self
            .bounded(
                Call::new(names::WANT_TO_SEE, "findAndModify"),
                lists.find_one_and_update(filter, update),
            )
            .await?;
        Ok(before.and_then(|list| list.movies.into_iter().find(|m| m.movie == movie)))
    }

    /// Takes mark `op`'s entry of `movie` off `wanter`'s list, if it is being removed.
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn unlist_wanted_movie(
        &self,
        wanter: &str,
        movie: MovieId,
        op: MarkId,
    ) -> Result<(), ApiError> {
        let lists = self.collection::<Document>(names::WANT_TO_SEE);
        let update = doc! { "$pull": { "movies": {
            "movie": movie.oid(), "op": op.oid(), "state": state(WantState::Removing),
        } } };
        self.bounded(
            Call::new(names::WANT_TO_SEE, "update"),
            lists.update_one(doc! { "_id": wanter }, update),
        )
        .await?;
        Ok(())
    }

    /// `wanter`'s list, as stored.
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn want_list(
        &self,
        wanter: &str,
    ) -> Result<Option<WantListDoc>, ApiError> {
        let lists = self.collection::<WantListDoc>(names::WANT_TO_SEE);
        self.bounded(
            Call::new(names::WANT_TO_SEE, "find"),
            lists.find_one(doc! { "_id": wanter }),
        )
        .await
    }

    /// Lists with an entry in flight since before `before` (index `since`), for the repair
    /// pass; at most `limit`.
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn lists_in_flight(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<WantListDoc>, ApiError> {
        self.find_limited(
            names::WANT_TO_SEE,
            doc! { "movies.since": { "$lt": codec::date(before) } },
            None,
            None,
            limit,
        )
        .await
    }
}
