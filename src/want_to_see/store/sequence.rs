//! `want_to_see_counts`: per movie, the sequence number of its next want-to-see mark (which
//! fixes the mark's bucket) and whether it is an outlier (its wanters outgrew a bucket).

use bson::{doc, Document};
use mongodb::options::ReturnDocument;

use super::documents::WantCountDoc;
use crate::domain::ids::MovieId;
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::command_metrics::Call;
use crate::store::{names, Store};

impl Store {
    /// Takes `movie`'s next mark sequence number: `next` of the counts returned is one more
    /// than the number taken (the counts as they are after the increment).
    ///
    /// The document as it is *after* the update, never before: under concurrent increments
    /// SecantusDB returns pre-images that repeat (16 racing `$inc` got 11 three times), while
    /// post-images are distinct. An upsert that inserted the document may come back empty on
    /// SecantusDB; the number it took is then unknown, and another is taken.
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn next_mark(
        &self,
        movie: MovieId,
    ) -> Result<WantCountDoc, ApiError> {
        let counts = self.collection::<WantCountDoc>(names::WANT_TO_SEE_COUNTS);
        for _ in 0..3 {
            let after = self
                .bounded(
                    Call::new(names::WANT_TO_SEE_COUNTS, "findAndModify"),
                    counts
                        .find_one_and_update(
                            doc! { "_id": movie.oid() },
                            doc! { "$inc": { "next": 1_i64 } },
                        )
                        .upsert(true)
                        .return_document(ReturnDocument::After),
                )
                .await?;
            if let Some(after) = after {
                return Ok(after);
            }
        }
        Err(ApiError::unavailable(
            "the database did not say which mark number it gave",
        ))
    }

    /// Flags `movie` an outlier: its wanters outgrew the first bucket.
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn flag_want_outlier(
        &self,
        movie: MovieId,
    ) -> Result<(), ApiError> {
        let counts = self.collection::<Document>(names::WANT_TO_SEE_COUNTS);
        self.bounded(
            Call::new(names::WANT_TO_SEE_COUNTS, "update"),
            counts.update_one(
                doc! { "_id": movie.oid() },
                doc! { "$set": { "outlier": true } },
            ),
        )
        .await?;
        Ok(())
    }

    /// `movie`'s counts (zero when nobody marked it).
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn want_counts(
        &self,
        movie: MovieId,
    ) -> Result<WantCountDoc, ApiError> {
        let counts = self.collection::<WantCountDoc>(names::WANT_TO_SEE_COUNTS);
        let found = self
            .bounded(
                Call::new(names::WANT_TO_SEE_COUNTS, "find"),
                counts.find_one(doc! { "_id": movie.oid() }),
            )
            .await?;
        Ok(found.unwrap_or_default())
    }

    /// Every movie someone marked (at most `limit`), for the reconciliation of the shown
    /// counts.
    #[tracing::instrument(skip(self))]
    pub(in crate::want_to_see) async fn marked_movies(
        &self,
        limit: usize,
    ) -> Result<Vec<MovieId>, ApiError> {
        #[derive(serde::Deserialize)]
        struct Marked {
            #[serde(rename = "_id", with = "crate::store::codec::id")]
            id: MovieId,
        }
        let marked: Vec<Marked> = self
            .find_limited(
                names::WANT_TO_SEE_COUNTS,
                doc! {},
                None,
                Some(doc! { "_id": 1 }),
                limit,
            )
            .await?;
        Ok(marked.into_iter().map(|m| m.id).collect())
    }
}
