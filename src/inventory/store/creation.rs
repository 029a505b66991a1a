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
        use mongodb::error::ErrorKind;
        let documents = self.collection::<SeatInventoryDoc>(COLLECTION);
        let insert = documents.insert_many(inventories).ordered(false);
        // One inventory (a `scheduleShowtime`) within the operation timeout; a demo chunk of
        // thousands as long as it takes.
        let outcome = if inventories.len() == 1 {
            self.bounded_raw(Call::new(COLLECTION, "insert"), insert)
                .await?
        } else {
            insert.await
        };
        let existing: Vec<usize> = match outcome {
            Ok(_) => return Ok(()),
            Err(error) => match &*error.kind {
                ErrorKind::InsertMany(failure)
                    if failure.write_concern_error.is_none()
                        && failure
                            .write_errors
                            .as_ref()
                            .is_some_and(|errors| errors.iter().all(|e| e.code == 11000)) =>
                {
                    let errors = failure.write_errors.iter().flatten();
                    errors.map(|e| e.index).collect()
                }
                _ if inventories.len() == 1 && crate::store::is_duplicate_key(&error) => {
                    vec![0]
                }
                _ => return Err(error.into()),
            },
        };
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
