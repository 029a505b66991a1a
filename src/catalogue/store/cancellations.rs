//! The writes of a showtime's cancellation (`orders::showtime_cancel` sequences them): the
//! showtime's status moves (SCHEDULED → CANCELLING → CANCELLED, each conditional on the one
//! before), the inventory's `cancelled` mark and the release of each live hold, counted in
//! the inventory in the same update (`inventory`). The orders are cancelled through `orders`.

use bson::{doc, Document};
use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::domain::ids::{ResourceId, ShowtimeId};
use crate::error::ApiError;
use crate::store::codec::{self, date, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::documents::ShowtimeStatus;
use crate::store::{names, Store};

/// Where a showtime's cancellation stands, as its document says.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancellationState {
    #[serde(default)]
    pub status: ShowtimeStatus,
    /// The request that began the cancellation (its idempotency key's resource id).
    #[serde(default, with = "codec::optional_id")]
    pub cancel_request: Option<ResourceId>,
    #[serde(default, with = "codec::optional_time")]
    pub cancelled_at: Option<DateTime<Utc>>,
}

impl Store {
    /// The cancellation state of showtime `showtime`; None when there is no such showtime.
    #[tracing::instrument(skip(self))]
    pub async fn cancellation_state(
        &self,
        showtime: ShowtimeId,
    ) -> Result<Option<CancellationState>, ApiError> {
        self.bounded(
            Call::new(names::SHOWTIMES, "find"),
            self.collection::<CancellationState>(names::SHOWTIMES)
                .find_one(doc! { "_id": showtime.oid() })
                .projection(doc! { "status": 1, "cancelRequest": 1, "cancelledAt": 1 }),
        )
        .await
    }

    /// The first write of a cancellation: a SCHEDULED showtime (or one written before
    /// statuses existed) becomes CANCELLING, stamped with request `request` and the time, and
    /// enters the `cancelling` index the resumer reads. False when it was not SCHEDULED.
    #[tracing::instrument(skip(self))]
    pub async fn begin_showtime_cancel(
        &self,
        showtime: ShowtimeId,
        request: ResourceId,
        at: DateTime<Utc>,
    ) -> Result<bool, ApiError> {
        let result = self
            .bounded(
                Call::new(names::SHOWTIMES, "update"),
                self.collection::<Document>(names::SHOWTIMES).update_one(
                    doc! {
                        "_id": showtime.oid(),
                        "status": { "$nin": ["CANCELLING", "CANCELLED"] },
                    },
                    doc! { "$set": {
                        "status": "CANCELLING",
                        "cancelRequest": request.oid(),
                        "cancelledAt": date(at),
                        "cancellingSince": date(at),
                    } },
                ),
            )
            .await?;
        Ok(result.modified_count == 1)
    }

    /// The last write of a cancellation: CANCELLING becomes CANCELLED and the showtime leaves
    /// the `cancelling` index. False when it was not CANCELLING (done already).
    #[tracing::instrument(skip(self))]
    pub async fn finish_showtime_cancel(&self, showtime: ShowtimeId) -> Result<bool, ApiError> {
        let result = self
            .bounded(
                Call::new(names::SHOWTIMES, "update"),
                self.collection::<Document>(names::SHOWTIMES).update_one(
                    doc! { "_id": showtime.oid(), "status": "CANCELLING" },
                    doc! {
                        "$set": { "status": "CANCELLED" },
                        "$unset": { "cancellingSince": "" },
                    },
                ),
            )
            .await?;
        Ok(result.modified_count == 1)
    }

    /// Showtimes whose cancellation began before `before` and is not finished, at most
    /// `limit` (sparse index `cancelling`: only those are in it).
    #[tracing::instrument(skip(self))]
    pub async fn cancelling_showtimes(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<ShowtimeId>, ApiError> {
        #[derive(Deserialize)]
        struct Id {
            #[serde(rename = "_id", with = "codec::id")]
            id: ShowtimeId,
        }
        let found: Vec<Id> = self
            .find_limited(
                names::SHOWTIMES,
                doc! { "cancellingSince": { "$lt": date(before) } },
                None,
                Some(doc! { "_id": 1 }),
                limit,
            )
            .await?;
        Ok(found.into_iter().map(|id| id.id).collect())
    }
}
