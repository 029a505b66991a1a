//! `seat_inventory`: one document per showtime holding the state of every seat.

use bson::doc;

use super::{COLLECTION, VERSION};
use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::store::documents::SeatMapDoc;
use crate::store::Store;

impl Store {
    /// The seat maps of showtimes `ids`, in one `find`: counts and capacity only, or with
    /// every seat's kind and state when `with_seats` (never the holds, fences or notes the
    /// booking code keeps beside them).
    #[tracing::instrument(skip(self))]
    pub async fn seat_maps_by_showtime_ids(
        &self,
        ids: &[ShowtimeId],
        with_seats: bool,
    ) -> Result<Vec<SeatMapDoc>, ApiError> {
        let projection = if with_seats {
            doc! { "capacity": 1, "counts": 1, "seats": 1, "admitted": 1 }
        } else {
            doc! { "capacity": 1, "counts": 1, "admitted": 1 }
        };
        self.find_by_ids_projected(COLLECTION, ids, projection)
            .await
    }

    /// A showtime's seat map for a live subscriber: every seat's kind and state, the counts,
    /// the version they are at, and the live holds (whose expiry the subscriber's gateway
    /// announces on time). None when the showtime has no inventory.
    #[tracing::instrument(skip(self))]
    pub async fn live_seat_map(&self, id: ShowtimeId) -> Result<Option<SeatMapDoc>, ApiError> {
        let projection =
            doc! { "capacity": 1, "counts": 1, "seats": 1, VERSION: 1, "holds": 1, "admitted": 1 };
        let mut found = self
            .find_by_ids_projected(COLLECTION, &[id], projection)
            .await?;
        Ok(found.pop())
    }
}
