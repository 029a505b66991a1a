//! Blocking and unblocking seats of a showtime (broken seats, staff seats): ONE conditional
//! update of its inventory document, like every seat change (invariant 1). Only AVAILABLE
//! seats are blocked and only BLOCKED ones unblocked, so a held or sold seat is never touched.

use bson::{doc, Document};

use super::{seat_path, COLLECTION, VERSION};
use crate::domain::ids::ShowtimeId;
use crate::domain::seat::BlockMove;
use crate::error::ApiError;
use crate::idempotency::KeyFence;
use crate::store::codec::ObjectIdExt;
use crate::store::Store;

impl Store {
    /// Moves every seat of `labels` (validated, distinct) one way in one update that matches
    /// only if each of them is in the state the move starts from, the film has not started by
    /// the database's clock and the showtime is not cancelled. The counts move by exactly the
    /// number of seats, and the version by one (live seat maps). False when it did not match:
    /// the caller reads the inventory to learn why. Behind `fence`, a keyed attempt's move
    /// takes effect only while it owns its key (`fenced_writes`): a late one would otherwise
    /// block again seats unblocked since its retry answered.
    #[tracing::instrument(skip(self))]
    pub async fn move_blocked_seats(
        &self,
        showtime: ShowtimeId,
        labels: &[String],
        direction: BlockMove,
        fence: Option<&KeyFence>,
    ) -> Result<bool, ApiError> {
        let (from, to, down, up) = match direction {
            BlockMove::Block => ("AVAILABLE", "BLOCKED", "counts.available", "counts.blocked"),
            BlockMove::Unblock => ("BLOCKED", "AVAILABLE", "counts.blocked", "counts.available"),
        };
        let mut filter = doc! {
            // `$expr` inside `$and`, not beside `_id`: some servers plan the latter as a scan.
            "$and": [
                { "_id": showtime.oid() },
                { "$expr": { "$gt": ["$startsAt", "$$NOW"] } },
            ],
            "cancelled": { "$ne": true },
        };
        let mut set = Document::new();
        for label in labels {
            filter.insert(seat_path(label, "state")?, from);
            set.insert(seat_path(label, "state")?, to);
        }
        let count = labels.len() as i64;
        let update = doc! {
            "$set": set,
            "$inc": { down: -count, up: count, VERSION: 1 },
        };
        let moved = self
            .fenced_update_one(COLLECTION, filter, update, fence)
            .await?;
        if moved && direction == BlockMove::Unblock {
            self.note_seats_freed(showtime, labels);
        }
        Ok(moved)
    }
}
