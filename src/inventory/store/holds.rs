//! Seat holds: each change to a showtime's seats is ONE atomic update of its inventory document
//! whose filter checks the precondition of every seat it changes (invariant 1). The counts move
//! in the same update (invariant 5).

use bson::{doc, Bson, Document};
use chrono::{DateTime, Utc};

use super::{seat_path, COLLECTION, VERSION};
use crate::channel_events::rules::EventType;
use crate::domain::ids::{HoldId, OrderId, ResourceId, ShowtimeId};
use crate::domain::seat::SeatState;
use crate::error::ApiError;
use crate::store::codec::{self, date, oids, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::documents::{
    EventDetailsDoc, HoldDoc, OutboxEntryDoc, SeatInventoryDoc, RELEASE_NOTES_KEPT,
};
use crate::store::Store;

/// `$expr` that is true when the document holds `hold` and its expiry compares to the
/// database's clock with `operator`: `$lt` for "has expired", `$gt` for "is still live".
pub(in crate::inventory) fn hold_expiry(hold: HoldId, operator: &str) -> Document {
    doc! {
        "$expr": { "$anyElementTrue": [{ "$map": {
            "input": "$holds",
            "as": "h",
            "in": { "$and": [
                { "$eq": ["$$h.id", hold.oid()] },
                { operator: ["$$h.expiresAt", "$$NOW"] },
            ] },
        } }] },
    }
}

/// `{$and: [{_id}, {$expr: hold_expiry}]}`: the showtime's inventory while `hold`'s expiry
/// compares with `operator` to the database's clock. (`$expr` sits inside `$and`, not beside
/// `_id`: some servers plan the latter as a collection scan.)
pub(in crate::inventory) fn with_expiry(
    showtime: ShowtimeId,
    hold: &HoldDoc,
    operator: &str,
) -> Document {
    doc! { "$and": [{ "_id": showtime.oid() }, hold_expiry(hold.id, operator)] }
}

/// The filter conditions and the update that end `hold`: its entry must still be there (same
/// id, channel and creation) and every one of its seats still HELD by it. The seats move to
/// `to` (AVAILABLE, or SOLD under `order`), the entry is dropped, and the counts move by its
/// number of seats.
pub(in crate::inventory) fn end_hold(
    hold: &HoldDoc,
    to: SeatState,
    order: Option<OrderId>,
) -> Result<(Document, Document), ApiError> {
    let (to_state, counter) = match (to, order) {
        (SeatState::Available, None) => ("AVAILABLE", "counts.available"),
        (SeatState::Sold, Some(_)) => ("SOLD", "counts.sold"),
        _ => return Err(ApiError::internal(format!("a hold cannot end in {to:?}"))),
    };
    let (id, created_at) = (hold.id.oid(), date(hold.created_at));
    let entry = doc! { "id": id, "channel": &hold.channel, "createdAt": created_at };
    let mut filter = doc! { "holds": { "$elemMatch": entry } };
    let mut set = Document::new();
    let mut unset = Document::new();
    for label in &hold.seats {
        filter.insert(seat_path(label, "state")?, "HELD");
        filter.insert(seat_path(label, "hold")?, id);
        set.insert(seat_path(label, "state")?, to_state);
        if let Some(order) = order {
            set.insert(seat_path(label, "order")?, order.oid());
        }
        unset.insert(seat_path(label, "hold")?, Bson::String(String::new()));
    }
    let count = hold.seats.len() as i64;
    let update = doc! {
        "$set": set,
        "$unset": unset,
        // Only the entry the filter matched (hold ids are unique, and this says so).
        "$pull": { "holds": { "id": id, "createdAt": created_at } },
        "$inc": { "counts.held": -count, counter: count, VERSION: 1 },
    };
    Ok((filter, update))
}

/// The event of a change to `hold` (placed, released, expired, or sold to `order`), told to
/// the hold's channel.
pub(in crate::inventory) fn hold_event(
    kind: EventType,
    showtime: ShowtimeId,
    hold: &HoldDoc,
    order: Option<OrderId>,
) -> OutboxEntryDoc {
    let mut details = EventDetailsDoc {
        showtime: Some(showtime),
        hold: Some(hold.id),
        order,
        seats: hold.seats.clone(),
        ..Default::default()
    };
    // A hold placed for a waiting party is told as its offer.
    let kind = match (&hold.offer, kind) {
        (Some(offer), EventType::HoldPlaced) => {
            details.customer = Some(offer.customer.clone());
            EventType::WaitingListOffered
        }
        _ => kind,
    };
    crate::store::new_entry(kind, Some(&hold.channel), details)
}

/// What fencing off earlier attempts' hold ids found.
#[derive(Debug)]
pub enum HoldFence {
    /// None of them is live, and none can ever be placed now.
    Fenced,
    /// One of them is live: an earlier attempt placed it.
    Live(Box<HoldDoc>),
    /// The showtime has no seat inventory.
    NoInventory,
}

impl Store {
    /// A showtime's inventory document.
    #[tracing::instrument(skip(self))]
    pub async fn inventory(
        &self,
        showtime: ShowtimeId,
    ) -> Result<Option<SeatInventoryDoc>, ApiError> {
        self.bounded(
            Call::new(COLLECTION, "find"),
            self.collection::<SeatInventoryDoc>(COLLECTION)
                .find_one(doc! { "_id": showtime.oid() }),
        )
        .await
    }

    /// Every hold in a showtime's inventory (only the holds are read, not the seats); `None`
    /// when the showtime has no inventory.
    #[tracing::instrument(skip(self))]
    pub async fn holds_of_showtime(
        &self,
        showtime: ShowtimeId,
    ) -> Result<Option<Vec<HoldDoc>>, ApiError> {
        self.holds_projected(showtime, doc! { "holds": 1 }).await
    }

    /// Every hold of a showtime's inventory and whether the showtime is cancelled (its mark),
    /// the seats not read; `None` when the showtime has no inventory.
    #[tracing::instrument(skip(self))]
    pub async fn holds_and_mark(
        &self,
        showtime: ShowtimeId,
    ) -> Result<Option<(Vec<HoldDoc>, bool)>, ApiError> {
        #[derive(serde::Deserialize)]
        struct HoldsAndMark {
            #[serde(default)]
            holds: Vec<HoldDoc>,
            #[serde(default)]
            cancelled: bool,
        }
        let found = self
            .bounded(
                Call::new(COLLECTION, "find"),
                self.collection::<HoldsAndMark>(COLLECTION)
                    .find_one(doc! { "_id": showtime.oid() })
                    .projection(doc! { "holds": 1, "cancelled": 1 }),
            )
            .await?;
        Ok(found.map(|found| (found.holds, found.cancelled)))
    }

    /// The `holds` of a showtime's inventory as `projection` keeps them; `None` when the
    /// showtime has no inventory.
    async fn holds_projected(
        &self,
        showtime: ShowtimeId,
        projection: Document,
    ) -> Result<Option<Vec<HoldDoc>>, ApiError> {
        #[derive(serde::Deserialize)]
        struct Holds {
            #[serde(default)]
            holds: Vec<HoldDoc>,
        }
        let found = self
            .bounded(
                Call::new(COLLECTION, "find"),
                self.collection::<Holds>(COLLECTION)
                    .find_one(doc! { "_id": showtime.oid() })
                    .projection(projection),
            )
            .await?;
        Ok(found.map(|found| found.holds))
    }

    /// Hold `hold` of a showtime, if it is there: only that hold is read, not the seats.
    #[tracing::instrument(skip(self))]
    pub async fn hold_of(
        &self,
        showtime: ShowtimeId,
        hold: HoldId,
    ) -> Result<Option<HoldDoc>, ApiError> {
        Ok(self.live_hold_among(showtime, &[hold]).await?.flatten())
    }

    /// The live hold of a showtime whose id is one of `ids` (hold ids are unique, and these
    /// are one key's attempts: at most one is live), with only that hold read; `None` when the
    /// showtime has no inventory.
    async fn live_hold_among(
        &self,
        showtime: ShowtimeId,
        ids: &[HoldId],
    ) -> Result<Option<Option<HoldDoc>>, ApiError> {
        let projection = doc! { "holds": { "$elemMatch": { "id": { "$in": oids(ids) } } } };
        let found = self.holds_projected(showtime, projection).await?;
        Ok(found.map(|holds| holds.into_iter().find(|h| ids.contains(&h.id))))
    }

    /// Inventories holding a hold that expired before `before` (index `hold_expiry`), with
    /// only their holds, at most `limit` of them.
    #[tracing::instrument(skip(self))]
    pub async fn inventories_with_expired_holds(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<(ShowtimeId, Vec<HoldDoc>)>, ApiError> {
        #[derive(serde::Deserialize)]
        struct Holds {
            #[serde(rename = "_id", with = "codec::id")]
            id: ShowtimeId,
            holds: Vec<HoldDoc>,
        }
        use futures::TryStreamExt;
        let holds = self.collection::<Holds>(COLLECTION);
        let found: Vec<Holds> = self
            .bounded(Call::new(COLLECTION, "find"), async {
                holds
                    .find(doc! { "holds.expiresAt": { "$lt": date(before) } })
                    .projection(doc! { "holds": 1 })
                    .limit(limit as i64)
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        Ok(found
            .into_iter()
            .map(|inventory| (inventory.id, inventory.holds))
            .collect())
    }

    /// Holds `hold.seats` in one update that matches only if every one of them is AVAILABLE,
    /// the film has not started by the database's clock, the showtime is not cancelled, no
    /// hold with the hold's id is there and its id is not fenced off. False when it did not match: some seat was taken
    /// meanwhile, the showtime started, or the id may not be placed (the caller reads again
    /// to learn which).
    #[tracing::instrument(skip(self, hold), fields(hold = %hold.id, seats = ?hold.seats))]
    pub async fn place_hold(&self, showtime: ShowtimeId, hold: &HoldDoc) -> Result<bool, ApiError> {
        self.place_holds(showtime, std::slice::from_ref(hold)).await
    }

    /// Places `holds` (of different seats) together in one update, all or none, on the same
    /// conditions as [`Store::place_hold`] for each: the group commit of the holds waiting for
    /// one showtime (`holds::batch`). One seat change (`version` moves by one), one event per
    /// hold.
    #[tracing::instrument(skip_all, fields(holds = holds.len()))]
    pub async fn place_holds(
        &self,
        showtime: ShowtimeId,
        holds: &[HoldDoc],
    ) -> Result<bool, ApiError> {
        let ids: Vec<_> = holds.iter().map(|hold| hold.id.oid()).collect();
        let mut filter = doc! {
            // `$expr` inside `$and`, not beside `_id`: some servers plan the latter as a scan.
            "$and": [
                { "_id": showtime.oid() },
                { "$expr": { "$gt": ["$startsAt", "$$NOW"] } },
            ],
            "holds.id": { "$nin": &ids },
            "fencedHolds": { "$nin": &ids },
            // A cancelled showtime takes no hold (see `orders::showtime_cancel`).
            "cancelled": { "$ne": true },
        };
        let mut set = Document::new();
        let mut count = 0;
        for hold in holds {
            for label in &hold.seats {
                let state = seat_path(label, "state")?;
                if filter.contains_key(&state) {
                    return Err(ApiError::internal(format!(
                        "two holds of one group take seat {label}"
                    )));
                }
                filter.insert(state.clone(), "AVAILABLE");
                set.insert(state, "HELD");
                set.insert(seat_path(label, "hold")?, hold.id.oid());
            }
            count += hold.seats.len() as i64;
        }
        let update = doc! {
            "$set": set,
            "$push": { "holds": { "$each": bson::to_bson(holds)? } },
            "$inc": { "counts.available": -count, "counts.held": count, VERSION: 1 },
        };
        let told: Vec<_> = (holds.iter())
            .map(|hold| hold_event(EventType::HoldPlaced, showtime, hold, None))
            .collect();
        self.update_inventory_telling(showtime, filter, update, &told)
            .await
    }

    /// Releases a live hold of its channel: its seats back to AVAILABLE, and, for a keyed
    /// release, a note that release `request` did it (see `released_by`). False when the hold
    /// is not (or no longer) there.
    #[tracing::instrument(skip(self, hold), fields(hold = %hold.id))]
    pub async fn release_hold(
        &self,
        showtime: ShowtimeId,
        hold: &HoldDoc,
        request: Option<ResourceId>,
    ) -> Result<bool, ApiError> {
        let (seats, mut update) = end_hold(hold, SeatState::Available, None)?;
        if let Some(request) = request {
            let released =
                doc! { "id": hold.id.oid(), "seats": &hold.seats, "request": request.oid() };
            update.insert(
                "$push",
                doc! { "releasedHolds": { "$each": [released], "$slice": -RELEASE_NOTES_KEPT } },
            );
        }
        let mut filter = doc! { "_id": showtime.oid() };
        filter.extend(seats);
        let told = hold_event(EventType::HoldReleased, showtime, hold, None);
        let released = self
            .update_inventory_telling(showtime, filter, update, &[told])
            .await?;
        if released {
            self.note_seats_freed(showtime, &hold.seats);
        }
        Ok(released)
    }

    /// The seats of hold `hold` if keyed release `request` released it and its note is still
    /// there.
    #[tracing::instrument(skip(self))]
    pub async fn released_by(
        &self,
        showtime: ShowtimeId,
        hold: HoldId,
        request: ResourceId,
    ) -> Result<Option<Vec<String>>, ApiError> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Released {
            #[serde(default)]
            released_holds: Vec<crate::store::documents::ReleasedHoldDoc>,
        }
        let found = self
            .bounded(Call::new(COLLECTION, "find"), 
                self.collection::<Released>(COLLECTION)
                    .find_one(doc! { "_id": showtime.oid() })
                    .projection(doc! { "releasedHolds": { "$elemMatch": { "id": hold.oid(), "request": request.oid() } } }),
            )
            .await?;
        Ok(found.and_then(|found| {
            found
                .released_holds
                .into_iter()
                .find(|released| released.id == hold && released.request == request)
                .map(|released| released.seats)
        }))
    }

    /// Drops the note of hold `hold`'s release (its answer is stored).
    #[tracing::instrument(skip(self))]
    pub async fn forget_release(&self, showtime: ShowtimeId, hold: HoldId) -> Result<(), ApiError> {
        self.bounded(
            Call::new(COLLECTION, "update"),
            self.collection::<Document>(COLLECTION).update_one(
                doc! { "_id": showtime.oid(), "releasedHolds.id": hold.oid() },
                doc! { "$pull": { "releasedHolds": { "id": hold.oid() } } },
            ),
        )
        .await?;
        Ok(())
    }

    /// Fences off hold ids `ids` (those of earlier attempts of an idempotency key) so that
    /// they can never be placed, unless one of them is live: then that hold is returned, for
    /// the caller to answer with. One conditional update: the fence is set only if none is
    /// live.
    #[tracing::instrument(skip(self))]
    pub async fn fence_holds(
        &self,
        showtime: ShowtimeId,
        ids: &[HoldId],
    ) -> Result<HoldFence, ApiError> {
        // A live hold found by the update's miss may expire before it is read: look again.
        for _ in 0..3 {
            let fenced = self
                .bounded(
                    Call::new(COLLECTION, "update"),
                    self.collection::<Document>(COLLECTION).update_one(
                        doc! { "_id": showtime.oid(), "holds.id": { "$nin": oids(ids) } },
                        doc! { "$addToSet": { "fencedHolds": { "$each": oids(ids) } } },
                    ),
                )
                .await?;
            if fenced.matched_count == 1 {
                return Ok(HoldFence::Fenced);
            }
            match self.live_hold_among(showtime, ids).await? {
                None => return Ok(HoldFence::NoInventory),
                Some(Some(hold)) => return Ok(HoldFence::Live(Box::new(hold))),
                Some(None) => {}
            }
        }
        Err(ApiError::internal(format!(
            "could not fence the holds {ids:?} of showtime {showtime}"
        )))
    }

    /// Frees the seats of a hold that has expired by the database's clock (`$$NOW`). False
    /// when it has not expired, or is gone.
    #[tracing::instrument(skip(self, hold), fields(hold = %hold.id))]
    pub async fn expire_hold(
        &self,
        showtime: ShowtimeId,
        hold: &HoldDoc,
    ) -> Result<bool, ApiError> {
        let (seats, update) = end_hold(hold, SeatState::Available, None)?;
        let mut filter = with_expiry(showtime, hold, "$lt");
        filter.extend(seats);
        let told = hold_event(EventType::HoldExpired, showtime, hold, None);
        let expired = self
            .update_inventory_telling(showtime, filter, update, &[told])
            .await?;
        if expired {
            self.note_seats_freed(showtime, &hold.seats);
        }
        Ok(expired)
    }
}
