//! Single-document inserts into one collection, sent together: the inserts of a collection that
//! come while one of its inserts is running are the next one (`group_commit`'s relay of
//! leaders), one unordered `insert` command for all of them, each told whether its document
//! was new or its `_id` existed already.
//!
//! Every keyed request claims its idempotency key with an insert before it does anything: on
//! a hot showtime that was 1.8 claims per successful seat change, the largest share of the
//! database's commands (issue 48's impatient client, 150 clients on 2 showtimes, one gateway).

use bson::Document;
use serde::Serialize;

use super::command_metrics::Call;
use super::{PausePoint, Store};
use crate::error::ApiError;
use crate::group_commit::{read_failed, Entry, Queues};

/// What became of one document of a grouped insert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inserted {
    /// It was written.
    New,
    /// A document with its `_id` (or another unique key) was there already; nothing written.
    Existed,
}

/// The queues of this process's grouped inserts, one per collection.
pub(super) type InsertQueues = Queues<&'static str, Document, Inserted>;

type Queued = Entry<Document, Inserted>;

impl Store {
    /// Inserts `document` into `collection` with the other inserts of it that come meanwhile,
    /// in one command: whether it was written, or a document with its unique key existed.
    pub(crate) async fn insert_grouped<T: Serialize>(
        &self,
        collection: &'static str,
        document: &T,
    ) -> Result<Inserted, ApiError> {
        let document = bson::to_document(document)?;
        self.inserts
            .run(
                collection,
                document,
                || self.pause_point(PausePoint::InsertBatchBeforeTake),
                || self.note_insert_queued(),
                |entries| self.insert_batch(collection, entries),
            )
            .await
    }

    /// Inserts the documents of `entries` in one unordered command and answers each.
    async fn insert_batch(&self, collection: &'static str, entries: Vec<Queued>) -> Vec<Queued> {
        use mongodb::error::ErrorKind;
        let documents = entries.iter().map(|entry| &entry.job);
        let target = self.collection::<Document>(collection);
        let insert = target.insert_many(documents).ordered(false);
        let sent = self
            .bounded_raw(Call::new(collection, "insert"), insert)
            .await;
        let error = match sent {
            // Nothing was sent (the door refused the leader), or no answer came.
            Err(error) => return read_failed(entries, error),
            Ok(Ok(_)) => {
                for entry in entries {
                    entry.answer(Ok(Inserted::New));
                }
                return Vec::new();
            }
            Ok(Err(error)) => error,
        };
        let refused = match &*error.kind {
            ErrorKind::InsertMany(failure) if failure.write_concern_error.is_none() => {
                failure.write_errors.clone().unwrap_or_default()
            }
            _ => {
                let error = ApiError::from(error);
                crate::group_commit::refuse_all(entries, &error);
                return Vec::new();
            }
        };
        for (at, entry) in entries.into_iter().enumerate() {
            let answer = match refused.iter().find(|refused| refused.index == at) {
                None => Ok(Inserted::New),
                Some(refused) if refused.code == 11000 => Ok(Inserted::Existed),
                Some(refused) => Err(ApiError::internal(format!(
                    "an insert into {collection} was refused: {} ({})",
                    refused.message, refused.code
                ))),
            };
            entry.answer(answer);
        }
        Vec::new()
    }
}
