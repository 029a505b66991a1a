//! `want_to_see_by_movie`: a movie's wanters in buckets of `BUCKET_SIZE` (`_id`
//! `movieHex/bucket`).

use bson::{doc, Document};
use futures::TryStreamExt;

use super::documents::{WantBucketDoc, WanterDoc};
use crate::domain::ids::{MarkId, MovieId};
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::command_metrics::Call;
use crate::store::documents::SCHEMA_VERSION;
use crate::store::{is_duplicate_key, names, Store};

fn bucket_id(movie: MovieId, bucket: i64) -> String {
    format!("{movie}/{bucket}")
}

impl Store {
    /// Puts `wanter` in `movie`'s bucket `bucket` unless it is there already: one upsert.
    #[tracing::instrument(skip(self, wanter))]
    pub(in crate::want_to_see) async fn add_wanter(
        &self,
        movie: MovieId,
        bucket: i64,
        wanter: &WanterDoc,
    ) -> Result<(), ApiError> {
        let buckets = self.collection::<Document>(names::WANT_TO_SEE_BY_MOVIE);
        // `movie` and `bucket` in the filter too: the shard key (docs/sharding.md), and an
        // upsert copies them into the bucket it inserts.
        let filter = doc! {
            "_id": bucket_id(movie, bucket),
            "movie": movie.oid(),
            "bucket": bucket,
            "entries.wanter": { "$ne": &wanter.wanter },
        };
        let entry = bson::to_bson(wanter).map_err(|e| ApiError::internal_caused("a wanter", e))?;
        let update = doc! {
            "$push": { "entries": entry },
            "$setOnInsert": { "schemaVersion": SCHEMA_VERSION },
        };
        let written = self
            .bounded_raw(
                Call::new(names::WANT_TO_SEE_BY_MOVIE, "update"),
                buckets.update_one(filter, update).upsert(true),
            )
            .await?;
        match written {
            // The bucket exists and has the wanter: a retry, or a repair, got there first.
            Err(error) if is_duplicate_key(&error) => Ok(()),
            other => other.map(drop).map_err(Into::into),
        }
    }

    /// Takes mark `op`'s entry of `wanter` out of `movie`'s bucket `bucket`.
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn remove_wanter(
        &self,
        movie: MovieId,
        bucket: i64,
        wanter: &str,
        op: MarkId,
    ) -> Result<(), ApiError> {
        let buckets = self.collection::<Document>(names::WANT_TO_SEE_BY_MOVIE);
        self.bounded(
            Call::new(names::WANT_TO_SEE_BY_MOVIE, "update"),
            buckets.update_one(
                doc! { "_id": bucket_id(movie, bucket), "movie": movie.oid(), "bucket": bucket },
                doc! { "$pull": { "entries": { "wanter": wanter, "op": op.oid() } } },
            ),
        )
        .await?;
        Ok(())
    }

    /// `movie`'s buckets from `from` down, newest first, `limit` of them (index
    /// `movie_bucket`).
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn wanter_buckets(
        &self,
        movie: MovieId,
        from: i64,
        limit: usize,
    ) -> Result<Vec<WantBucketDoc>, ApiError> {
        self.find_limited(
            names::WANT_TO_SEE_BY_MOVIE,
            doc! { "movie": movie.oid(), "bucket": { "$lte": from } },
            Some(doc! { "movie": 1, "bucket": -1 }),
            None,
            limit,
        )
        .await
    }

    /// How many wanters each movie with buckets has, exactly, in one aggregation (the
    /// reconciliation of the shown counts; movies without buckets are not listed).
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn exact_wanter_counts(
        &self,
    ) -> Result<Vec<(MovieId, i64)>, ApiError> {
        #[derive(serde::Deserialize)]
        struct Summed {
            #[serde(rename = "_id", with = "crate::store::codec::id")]
            movie: MovieId,
            n: i64,
        }
        let buckets = self.collection::<Document>(names::WANT_TO_SEE_BY_MOVIE);
        let pipeline = [doc! { "$group": {
            "_id": "$movie",
            "n": { "$sum": { "$toLong": { "$size": "$entries" } } },
        } }];
        let summed: Vec<Summed> = self
            .bounded(Call::new(names::WANT_TO_SEE_BY_MOVIE, "aggregate"), async {
                buckets
                    .aggregate(pipeline)
                    .with_type::<Summed>()
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        Ok(summed.into_iter().map(|s| (s.movie, s.n)).collect())
    }

    /// How many wanters `movie` has, exactly: the sizes of its buckets, summed by the server
    /// (one bucket per thousand wanters is read; for the platform operator, not listings).
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn exact_wanter_count(
        &self,
        movie: MovieId,
    ) -> Result<i64, ApiError> {
        let buckets = self.collection::<Document>(names::WANT_TO_SEE_BY_MOVIE);
        let pipeline = [
            doc! { "$match": { "movie": movie.oid() } },
            doc! { "$group": { "_id": null, "n": { "$sum": { "$size": "$entries" } } } },
        ];
        let summed: Vec<Document> = self
            .bounded(Call::new(names::WANT_TO_SEE_BY_MOVIE, "aggregate"), async {
                buckets.aggregate(pipeline).await?.try_collect().await
            })
            .await?;
        Ok(summed
            .first()
            .and_then(|sum| sum.get("n"))
            .and_then(|n| n.as_i64().or_else(|| n.as_i32().map(i64::from)))
            .unwrap_or(0))
    }
}
