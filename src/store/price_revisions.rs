//! Changing a showtime's prices, with `showtime_price_revisions` (document versioning pattern):
//! the showtime holds the current prices and their revision number, each revision document
//! one change (who, when, before, after). A change is one transaction: the showtime written
//! with the revision it read in the filter, and the revision inserted; two changes that read
//! the same revision cannot both commit.

use std::sync::Arc;

use bson::{doc, Bson};
use chrono::{DateTime, Utc};

use super::codec::{self, oids, ObjectIdExt};
use super::command_metrics::Call;
use super::documents::{
    ChannelPriceDoc, PriceRevisionDoc, SCHEMA_VERSION, SHOWTIME_SCHEMA_VERSION,
};
use super::{names, Store};
use crate::domain::ids::{ResourceId, ShowtimeId};
use crate::error::ApiError;

/// One change of a showtime's prices, as read: applied only if the showtime is still at
/// `read_revision`, SCHEDULED and not started.
#[derive(Debug, Clone)]
pub struct PriceChange {
    pub showtime: ShowtimeId,
    pub read_revision: i64,
    /// The showtime's `freeAt` as read (upgraded when it was a version 1 document): written
    /// with the change, which stores the showtime as version 2.
    pub free_at: DateTime<Utc>,
    pub before: Vec<ChannelPriceDoc>,
    pub after: Vec<ChannelPriceDoc>,
    pub operator: String,
    pub request: ResourceId,
    pub at: DateTime<Utc>,
}

/// The `_id` of a showtime's revision `n`.
fn revision_id(showtime: ShowtimeId, revision: i64) -> String {
    format!("{showtime}:{revision}")
}

impl Store {
    /// Applies `change` in one transaction: the showtime (prices, revision + 1, and the
    /// current schema version with its fields) and the revision document. False, and nothing
    /// written, when the showtime moved from what was read (another change, a cancellation,
    /// its start).
    #[tracing::instrument(skip_all, fields(showtime = %change.showtime, revision = change.read_revision))]
    pub async fn change_showtime_prices(&self, change: &PriceChange) -> Result<bool, ApiError> {
        let revision = change.read_revision + 1;
        // A version 1 document has no `priceRevision`: revision 0 is stored as 0 or absent.
        let read: Bson = if change.read_revision == 0 {
            doc! { "$in": [0_i64, Bson::Null] }.into()
        } else {
            change.read_revision.into()
        };
        let filter = doc! {
            "_id": change.showtime.oid(),
            "priceRevision": read,
            "status": { "$nin": ["CANCELLING", "CANCELLED"] },
            "startsAt": { "$gt": codec::date(codec::now()) },
        };
        let update = doc! { "$set": {
            "prices": bson::to_bson(&change.after)?,
            "priceRevision": revision,
            "schemaVersion": SHOWTIME_SCHEMA_VERSION,
            "freeAt": codec::date(change.free_at),
        } };
        let entry = PriceRevisionDoc {
            id: revision_id(change.showtime, revision),
            schema_version: SCHEMA_VERSION,
            showtime_id: change.showtime,
            revision,
            at: change.at,
            operator: change.operator.clone(),
            request: change.request,
            before: change.before.clone(),
            after: change.after.clone(),
        };
        let writes = Arc::new((filter, update, entry));
        self.in_transaction(|store, session| {
            let writes = Arc::clone(&writes);
            Box::pin(async move {
                let (filter, update, entry) = &*writes;
                let changed = store
                    .collection::<bson::Document>(names::SHOWTIMES)
                    .update_one(filter.clone(), update.clone())
                    .session(&mut *session)
                    .await?;
                if changed.matched_count != 1 {
                    return Ok(false);
                }
                store
                    .collection::<PriceRevisionDoc>(names::SHOWTIME_PRICE_REVISIONS)
                    .insert_one(entry)
                    .session(&mut *session)
                    .await?;
                Ok(true)
            })
        })
        .await
    }

    /// The revision request `request` made of `showtime`, if it made one (a retry finding an
    /// earlier attempt's change).
    #[tracing::instrument(skip(self))]
    pub async fn price_revision_by_request(
        &self,
        showtime: ShowtimeId,
        request: ResourceId,
    ) -> Result<Option<PriceRevisionDoc>, ApiError> {
        self.bounded(
            Call::new(names::SHOWTIME_PRICE_REVISIONS, "find"),
            self.collection::<PriceRevisionDoc>(names::SHOWTIME_PRICE_REVISIONS)
                .find_one(doc! { "showtimeId": showtime.oid(), "request": request.oid() }),
        )
        .await
    }

    /// The price revisions of `showtimes`, each showtime's newest first, at most `per_showtime`
    /// of each, in one `find` (index `showtime_revision`). It reads every revision of those
    /// showtimes: a revision is an operator's price change, a handful per showtime.
    #[tracing::instrument(skip(self))]
    pub async fn price_revisions(
        &self,
        showtimes: &[ShowtimeId],
        per_showtime: usize,
    ) -> Result<Vec<PriceRevisionDoc>, ApiError> {
        use futures::TryStreamExt;
        let filter = doc! { "showtimeId": { "$in": oids(showtimes) } };
        let all: Vec<PriceRevisionDoc> = self
            .bounded(Call::new(names::SHOWTIME_PRICE_REVISIONS, "find"), async {
                self.collection::<PriceRevisionDoc>(names::SHOWTIME_PRICE_REVISIONS)
                    .find(filter)
                    .sort(doc! { "showtimeId": 1, "revision": -1 })
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        let mut kept: Vec<PriceRevisionDoc> = Vec::with_capacity(all.len());
        for revision in all {
            let of_same = kept
                .iter()
                .rev()
                .take_while(|r| r.showtime_id == revision.showtime_id)
                .count();
            if of_same < per_showtime {
                kept.push(revision);
            }
        }
        Ok(kept)
    }
}
