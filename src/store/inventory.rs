//! `seat_inventory`: one document per showtime holding the state of every seat.

use super::documents::{ObjectIdExt, SeatInventoryDoc};
use super::{names, Store};
use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;

impl Store {
    #[tracing::instrument(skip(self))]
    pub async fn inventories_by_showtime_ids(
        &self,
        ids: &[ShowtimeId],
    ) -> Result<Vec<SeatInventoryDoc>, ApiError> {
        let ids = ids.iter().map(|id| id.oid()).collect();
        self.find_by_ids(names::SEAT_INVENTORY, ids).await
    }
}
