//! The inventory's outbox (`store::outbox` relays it): its entries read and, once relayed,
//! pulled off, by this module, the only one that names the collection.

use bson::Document;

use super::COLLECTION;
use crate::domain::ids::{EventId, ShowtimeId};
use crate::error::ApiError;
use crate::store::documents::OutboxEntryDoc;
use crate::store::{OutboxKind, OutboxSource, Store};

impl Store {
    /// The outboxes of the inventories `filter` finds, at most `limit`.
    pub(crate) async fn inventory_outboxes(
        &self,
        filter: Document,
        limit: usize,
    ) -> Result<Vec<(OutboxSource, Vec<OutboxEntryDoc>)>, ApiError> {
        self.find_outboxes(COLLECTION, OutboxKind::Inventory, filter, limit)
            .await
    }

    /// Pulls relayed entries `entries` off the outboxes of the inventories of `showtimes`.
    pub(crate) async fn clear_inventory_outboxes(
        &self,
        showtimes: &[ShowtimeId],
        entries: &[EventId],
    ) -> Result<(), ApiError> {
        self.pull_outbox_entries(COLLECTION, showtimes, entries)
            .await
    }
}
