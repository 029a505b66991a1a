//! Extending a live hold: one conditional update of its entry in the showtime's inventory.

use bson::doc;

use super::holds::with_expiry;
use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::store::codec::{date, ObjectIdExt};
use crate::store::documents::HoldDoc;
use crate::store::Store;

impl Store {
    /// Replaces hold `hold`'s entry with `extended` (the same hold with a later expiry and
    /// `extended_by` set) in one update whose filter requires the entry as `hold` says it is:
    /// same id, channel, creation and expiry, never extended, and still live by the
    /// database's clock. The seats are not touched (they name the hold by id), nor the
    /// version: the seat map does not change. False when it did not match.
    #[tracing::instrument(skip(self, hold, extended), fields(hold = %hold.id, until = %extended.expires_at))]
    pub async fn extend_hold(
        &self,
        showtime: ShowtimeId,
        hold: &HoldDoc,
        extended: &HoldDoc,
    ) -> Result<bool, ApiError> {
        if extended.id != hold.id || extended.extended_by.is_none() {
            return Err(ApiError::internal(format!(
                "hold {} can only be replaced by itself, extended",
                hold.id
            )));
        }
        let mut filter = with_expiry(showtime, hold, "$gt");
        filter.insert(
            "holds",
            doc! { "$elemMatch": {
                "id": hold.id.oid(),
                "channel": &hold.channel,
                "createdAt": date(hold.created_at),
                "expiresAt": date(hold.expires_at),
                "extendedBy": { "$exists": false },
            } },
        );
        // The whole entry: a change feed may then pass it on whole (`holds.N`), as it does a
        // hold placed; SecantusDB passes on the fields that changed instead, so the on-time
        // expirer does not rely on either (`live::expiry` reads a hold whose expiry failed).
        let update = doc! { "$set": { "holds.$": bson::to_bson(extended)? } };
        self.update_inventory(filter, update).await
    }
}
