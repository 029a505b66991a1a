//! Creating showtimes' inventories: by the scheduler (`catalogue::store::schedule`, which inserts them
//! just before its transaction, see there), and as given by tests.

use bson::doc;

use super::COLLECTION;
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::command_metrics::Call;
use crate::store::documents::SeatInventoryDoc;
use crate::store::Store;

impl Store {
    /// Inserts `inventories`; one whose showtime id is there already (an earlier attempt
    /// of this scheduler, or of the same keyed request) is replaced only while unused
    /// (`version` 0, not cancelled) and copied from an older read of its hall than this one.
    pub(crate) async fn write_inventories(
        &self,
        inventories: &[SeatInventoryDoc],
    ) -> Result<(), ApiError> {
        let existing = self.insert_new(COLLECTION, inventories).await?;
        let documents = self.collection::<SeatInventoryDoc>(COLLECTION);
        for inventory in existing.into_iter().filter_map(|i| inventories.get(i)) {
            let unused_and_older = doc! {
                "_id": inventory.id.oid(),
                "version": 0,
                "cancelled": { "$ne": true },
                "hallScheduleVersion": { "$lt": inventory.hall_schedule_version },
            };
            self.bounded(
                Call::new(COLLECTION, "update"),
                documents.replace_one(unused_and_older, inventory),
            )
            .await?;
        }
        Ok(())
    }

    /// Inserts `inventories` as given, without the scheduler's checks (exact test catalogues).
    #[cfg(feature = "test-hooks")]
    pub(crate) async fn insert_inventories(
        &self,
        inventories: &[SeatInventoryDoc],
    ) -> Result<(), ApiError> {
        self.insert_all(COLLECTION, inventories).await
    }
}
