//! A showtime's cancellation, in its inventory (`orders::showtime_cancel` sequences it): the
//! `cancelled` mark that stops every new hold and sale, and the release of each live hold,
//! counted in the same update.

use bson::doc;
use serde::Deserialize;

use super::holds::{end_hold, hold_event};
use super::COLLECTION;
use crate::channel_events::rules::EventType;
use crate::domain::ids::ShowtimeId;
use crate::domain::seat::SeatState;
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::command_metrics::Call;
use crate::store::documents::{EventDetailsDoc, HoldDoc};
use crate::store::{new_entry, Store};

impl Store {
    /// Marks the showtime's inventory cancelled: from now on no hold is placed and no hold is
    /// sold (their filters require the mark unset). Idempotent.
    #[tracing::instrument(skip(self))]
    pub async fn mark_inventory_cancelled(&self, showtime: ShowtimeId) -> Result<(), ApiError> {
        // Told to every channel that sells the showtime: the relay finds them.
        let told = new_entry(
            EventType::ShowtimeCancelled,
            None,
            EventDetailsDoc {
                showtime: Some(showtime),
                ..Default::default()
            },
        );
        self.update_inventory_telling(
            showtime,
            doc! { "_id": showtime.oid(), "cancelled": { "$ne": true } },
            doc! { "$set": { "cancelled": true } },
            &[told],
        )
        .await?;
        // A view of its seats read before cannot refuse a hold as if it were still on sale.
        self.note_showtime_cancelled(showtime);
        Ok(())
    }

    /// Releases live hold `hold` for the showtime's cancellation: the conditional release of
    /// `holds` (the hold's entry and every seat HELD by it in the filter), which also counts
    /// it in `cancelledHolds`, in the same update, so the count is exact whoever resumes.
    /// False when the hold was gone.
    #[tracing::instrument(skip(self, hold), fields(hold = %hold.id))]
    pub async fn release_for_cancel(
        &self,
        showtime: ShowtimeId,
        hold: &HoldDoc,
    ) -> Result<bool, ApiError> {
        let (seats, mut update) = end_hold(hold, SeatState::Available, None)?;
        if let Ok(inc) = update.get_document_mut("$inc") {
            inc.insert("cancelledHolds", 1);
        }
        let mut filter = doc! { "_id": showtime.oid() };
        filter.extend(seats);
        let mut told = hold_event(EventType::HoldReleased, showtime, hold, None);
        told.details.reason = Some("SHOWTIME_CANCELLED".to_owned());
        self.update_inventory_telling(showtime, filter, update, &[told])
            .await
    }

    /// How many holds the showtime's cancellation released.
    #[tracing::instrument(skip(self))]
    pub async fn cancelled_holds(&self, showtime: ShowtimeId) -> Result<u64, ApiError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Counted {
            #[serde(default)]
            cancelled_holds: i64,
        }
        let found = self
            .bounded(
                Call::new(COLLECTION, "find"),
                self.collection::<Counted>(COLLECTION)
                    .find_one(doc! { "_id": showtime.oid() })
                    .projection(doc! { "cancelledHolds": 1 }),
            )
            .await?;
        Ok(found.map_or(0, |c| u64::try_from(c.cancelled_holds).unwrap_or(0)))
    }
}
