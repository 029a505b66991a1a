//! Seat holds: each change to a showtime's seats is ONE atomic update of its inventory document
//! whose filter checks the precondition of every seat it changes (invariant 1). The counts move
//! in the same update (invariant 5).

use bson::{doc, Bson, Document};

use super::documents::{HoldDoc, ObjectIdExt, SeatInventoryDoc};
use super::{names, Store};
use crate::domain::ids::ShowtimeId;
use crate::domain::layout::parse_seat_label;
use crate::domain::seat::SeatState;
use crate::error::ApiError;

/// `seats.D.6.state`: seat D7's `field`. Row labels are capital letters, safe in a path.
pub(super) fn seat_path(label: &str, field: &str) -> Result<String, ApiError> {
    let (row, number) = parse_seat_label(label)?;
    Ok(format!("seats.{row}.{}.{field}", number - 1))
}

/// `$expr` that is true when the document holds `hold` and its expiry compares to the
/// database's clock with `operator`: `$lt` for "has expired", `$gt` for "is still live".
pub(super) fn hold_expiry(hold: bson::oid::ObjectId, operator: &str) -> Document {
    doc! {
        "$expr": { "$anyElementTrue": [{ "$map": {
            "input": "$holds",
            "as": "h",
            "in": { "$and": [
                { "$eq": ["$$h.id", hold] },
                { operator: ["$$h.expiresAt", "$$NOW"] },
            ] },
        } }] },
    }
}

/// The filter conditions and the update that end `hold`: every one of its seats must still be
/// HELD by it, and moves to `to` (AVAILABLE, or SOLD under `order`); the hold is dropped and
/// the counts move by its number of seats.
pub(super) fn end_hold(
    hold: &HoldDoc,
    to: SeatState,
    order: Option<bson::oid::ObjectId>,
) -> Result<(Document, Document), ApiError> {
    let (to_state, counter) = match (to, order) {
        (SeatState::Available, None) => ("AVAILABLE", "counts.available"),
        (SeatState::Sold, Some(_)) => ("SOLD", "counts.sold"),
        _ => return Err(ApiError::internal(format!("a hold cannot end in {to:?}"))),
    };
    let mut filter = Document::new();
    let mut set = Document::new();
    let mut unset = Document::new();
    for label in &hold.seats {
        filter.insert(seat_path(label, "state")?, "HELD");
        filter.insert(seat_path(label, "hold")?, hold.id);
        set.insert(seat_path(label, "state")?, to_state);
        if let Some(order) = order {
            set.insert(seat_path(label, "order")?, order);
        }
        unset.insert(seat_path(label, "hold")?, Bson::String(String::new()));
    }
    let count = hold.seats.len() as i64;
    let update = doc! {
        "$set": set,
        "$unset": unset,
        "$pull": { "holds": { "id": hold.id } },
        "$inc": { "counts.held": -count, counter: count },
    };
    Ok((filter, update))
}

impl Store {
    /// Runs one conditional update of an inventory document; true when it matched (and so
    /// changed every seat it names).
    pub(super) async fn update_inventory(
        &self,
        filter: Document,
        update: Document,
    ) -> Result<bool, ApiError> {
        let result = self
            .collection::<Document>(names::SEAT_INVENTORY)
            .update_one(filter, update)
            .await?;
        Ok(result.modified_count == 1)
    }

    /// A showtime's inventory document.
    #[tracing::instrument(skip(self))]
    pub async fn inventory(
        &self,
        showtime: ShowtimeId,
    ) -> Result<Option<SeatInventoryDoc>, ApiError> {
        Ok(self
            .collection::<SeatInventoryDoc>(names::SEAT_INVENTORY)
            .find_one(doc! { "_id": showtime.oid() })
            .await?)
    }

    /// Hold `hold` of a showtime, if it is there: only that hold is read, not the seats.
    #[tracing::instrument(skip(self))]
    pub async fn hold_of(
        &self,
        showtime: ShowtimeId,
        hold: bson::oid::ObjectId,
    ) -> Result<Option<HoldDoc>, ApiError> {
        #[derive(serde::Deserialize)]
        struct Holds {
            #[serde(default)]
            holds: Vec<HoldDoc>,
        }
        let found = self
            .collection::<Holds>(names::SEAT_INVENTORY)
            .find_one(doc! { "_id": showtime.oid() })
            .projection(doc! { "holds": { "$elemMatch": { "id": hold } } })
            .await?;
        Ok(found.and_then(|found| found.holds.into_iter().find(|h| h.id == hold)))
    }

    /// Inventories holding a hold that expired before `before` (index `hold_expiry`), with
    /// only their holds, at most `limit` of them.
    #[tracing::instrument(skip(self))]
    pub async fn inventories_with_expired_holds(
        &self,
        before: bson::DateTime,
        limit: usize,
    ) -> Result<Vec<(ShowtimeId, Vec<HoldDoc>)>, ApiError> {
        #[derive(serde::Deserialize)]
        struct Holds {
            #[serde(rename = "_id")]
            id: bson::oid::ObjectId,
            holds: Vec<HoldDoc>,
        }
        use futures::TryStreamExt;
        let found: Vec<Holds> = self
            .collection::<Holds>(names::SEAT_INVENTORY)
            .find(doc! { "holds.expiresAt": { "$lt": before } })
            .projection(doc! { "holds": 1 })
            .limit(limit as i64)
            .await?
            .try_collect()
            .await?;
        Ok(found
            .into_iter()
            .map(|inventory| (inventory.id.into(), inventory.holds))
            .collect())
    }

    /// Holds `hold.seats` in one update that matches only if every one of them is AVAILABLE
    /// and the film has not started by the database's clock. False when it did not match: some
    /// seat was taken meanwhile, or the showtime started.
    #[tracing::instrument(skip(self, hold), fields(hold = %hold.id, seats = ?hold.seats))]
    pub async fn place_hold(&self, showtime: ShowtimeId, hold: &HoldDoc) -> Result<bool, ApiError> {
        let mut filter = doc! {
            "_id": showtime.oid(),
            "$expr": { "$gt": ["$startsAt", "$$NOW"] },
        };
        let mut set = Document::new();
        for label in &hold.seats {
            filter.insert(seat_path(label, "state")?, "AVAILABLE");
            set.insert(seat_path(label, "state")?, "HELD");
            set.insert(seat_path(label, "hold")?, hold.id);
        }
        let count = hold.seats.len() as i64;
        let update = doc! {
            "$set": set,
            "$push": { "holds": bson::to_bson(hold)? },
            "$inc": { "counts.available": -count, "counts.held": count },
        };
        self.update_inventory(filter, update).await
    }

    /// Releases a live hold of its channel: its seats back to AVAILABLE. False when the hold
    /// is not (or no longer) there.
    #[tracing::instrument(skip(self, hold), fields(hold = %hold.id))]
    pub async fn release_hold(
        &self,
        showtime: ShowtimeId,
        hold: &HoldDoc,
    ) -> Result<bool, ApiError> {
        let live = doc! { "holds": { "$elemMatch": { "id": hold.id, "channel": &hold.channel } } };
        self.free_hold_seats(showtime, hold, live).await
    }

    /// Frees the seats of a hold that has expired by the database's clock (`$$NOW`). False
    /// when it has not expired, or is gone.
    #[tracing::instrument(skip(self, hold), fields(hold = %hold.id))]
    pub async fn expire_hold(
        &self,
        showtime: ShowtimeId,
        hold: &HoldDoc,
    ) -> Result<bool, ApiError> {
        self.free_hold_seats(showtime, hold, hold_expiry(hold.id, "$lt"))
            .await
    }

    /// Seats of `hold` back to AVAILABLE and the hold removed, if `condition` holds and every
    /// seat is still HELD by it.
    async fn free_hold_seats(
        &self,
        showtime: ShowtimeId,
        hold: &HoldDoc,
        condition: Document,
    ) -> Result<bool, ApiError> {
        let (seats, update) = end_hold(hold, SeatState::Available, None)?;
        let mut filter = doc! { "_id": showtime.oid() };
        filter.extend(condition);
        filter.extend(seats);
        self.update_inventory(filter, update).await
    }
}
