//! Bulk inserts shared by the features' store code.

use serde::Serialize;

use super::command_metrics::Call;
use super::{is_duplicate_key, Store};
use crate::error::ApiError;

/// Whether an insert failed only because some of its documents' unique keys were taken:
/// those were written before (an earlier attempt, another claim), the rest were inserted.
pub(crate) fn only_duplicate_keys(error: &mongodb::error::Error) -> bool {
    use mongodb::error::ErrorKind;
    match &*error.kind {
        ErrorKind::InsertMany(failure) => {
            failure.write_concern_error.is_none()
                && failure
                    .write_errors
                    .as_ref()
                    .is_some_and(|errors| errors.iter().all(|e| e.code == 11000))
        }
        _ => is_duplicate_key(error),
    }
}

impl Store {
    /// An unordered bulk insert of documents whose ids are fresh or fixed by an idempotency
    /// key: one whose `_id` exists already was written by an earlier attempt, and is not an
    /// error. Returns the positions in `docs` of those that existed. One document (an
    /// operator's write) runs within the operation timeout; a bulk load (the demo's chunks,
    /// thousands of halls) as long as it takes.
    pub(crate) async fn insert_new<T: Serialize + Send + Sync>(
        &self,
        collection: &'static str,
        docs: &[T],
    ) -> Result<Vec<usize>, ApiError> {
        self.insert_new_within(collection, docs, docs.len() == 1)
            .await
    }

    /// [`Store::insert_new`] of a request's documents (a batch of orders): within the
    /// operation timeout and through the gate, whatever their number.
    pub(crate) async fn insert_new_bounded<T: Serialize + Send + Sync>(
        &self,
        collection: &'static str,
        docs: &[T],
    ) -> Result<Vec<usize>, ApiError> {
        self.insert_new_within(collection, docs, true).await
    }

    async fn insert_new_within<T: Serialize + Send + Sync>(
        &self,
        collection: &'static str,
        docs: &[T],
        bounded: bool,
    ) -> Result<Vec<usize>, ApiError> {
        use mongodb::error::ErrorKind;
        if docs.is_empty() {
            return Ok(Vec::new());
        }
        let documents = self.collection::<T>(collection);
        let insert = documents.insert_many(docs).ordered(false);
        let outcome = if bounded {
            self.bounded_raw(Call::new(collection, "insert"), insert)
                .await?
        } else {
            insert.await
        };
        let error = match outcome {
            Ok(_) => return Ok(Vec::new()),
            Err(error) => error,
        };
        match &*error.kind {
            ErrorKind::InsertMany(failure) if only_duplicate_keys(&error) => Ok(failure
                .write_errors
                .iter()
                .flatten()
                .map(|e| e.index)
                .collect()),
            _ if docs.len() == 1 && is_duplicate_key(&error) => Ok(vec![0]),
            _ => Err(error.into()),
        }
    }

    /// An unordered bulk insert of documents that are all new (the demo's catalogue, exact
    /// test catalogues).
    pub(crate) async fn insert_all<T: Serialize + Send + Sync>(
        &self,
        collection: &str,
        docs: &[T],
    ) -> Result<(), ApiError> {
        if docs.is_empty() {
            return Ok(());
        }
        self.collection::<T>(collection)
            .insert_many(docs)
            .ordered(false)
            .await?;
        Ok(())
    }
}
