//! Writes of a keyed attempt that take effect only while the attempt owns its key.
//!
//! A late attempt (its gateway stalled past the key's lease, a retry took the key over and
//! answered) wakes up and carries on. Its creations are harmless (their ids are the key's
//! resource id: an insert finds the retry's document), a hold is fenced off by its id, but an
//! update has nothing of its own to fence: it would write its values again over whatever
//! changed since the retry answered. So a keyed update runs in a transaction that first
//! writes the key's record with the owning attempt in its filter.

use bson::{doc, Document};
use mongodb::options::ReturnDocument;

use super::keys as idempotency;
use crate::error::ApiError;
use crate::store::command_metrics::Call;
use crate::store::{names, Store};

/// What must still be true when a keyed attempt's write takes effect: `attempt` owns key `id`
/// (no retry took it over) and has not answered.
#[derive(Debug, Clone)]
pub struct KeyFence {
    /// `namespace:key`, the key record's `_id`.
    pub id: String,
    pub attempt: i32,
}

impl Store {
    /// Runs `write` in a transaction that first writes the key record of `fence` with the
    /// owning attempt in the filter: `None`, and nothing written, once the attempt no longer
    /// owns the key. A take-over racing the transaction writes the same record, so one of the
    /// two waits for or conflicts with the other.
    pub(crate) async fn behind_fence<T, W>(
        &self,
        fence: &KeyFence,
        write: W,
    ) -> Result<Option<T>, ApiError>
    where
        T: Send + 'static,
        W: for<'a> Fn(
                &'a Store,
                &'a mut mongodb::ClientSession,
            ) -> futures::future::BoxFuture<'a, mongodb::error::Result<T>>
            + Send
            + Sync
            + 'static,
    {
        use std::sync::{Arc, Mutex};
        let written: Arc<Mutex<Option<T>>> = Arc::default();
        let (fence, write) = (Arc::new(fence.clone()), Arc::new(write));
        let committed = self
            .in_transaction(|store, session| {
                let (fence, write, written) =
                    (Arc::clone(&fence), Arc::clone(&write), Arc::clone(&written));
                Box::pin(async move {
                    let owned = store
                        .collection::<Document>(names::IDEMPOTENCY_KEYS)
                        .update_one(
                            idempotency::owned_by(&fence.id, fence.attempt, None),
                            doc! { "$inc": { "fencedWrites": 1 } },
                        )
                        .session(&mut *session)
                        .await?;
                    if owned.matched_count == 0 {
                        return Ok(false);
                    }
                    let value = write(store, session).await?;
                    *written.lock().expect("fenced write lock") = Some(value);
                    Ok(true)
                })
            })
            .await?;
        let value = written.lock().expect("fenced write lock").take();
        Ok(value.filter(|_| committed))
    }
}

impl Store {
    /// `update_one` of `update` on the document `filter` matches, behind `fence` when there
    /// is one: true when it matched; `Fenced` (nothing written) when the attempt lost its key.
    pub(crate) async fn fenced_update_one(
        &self,
        collection: &'static str,
        filter: Document,
        update: Document,
        fence: Option<&KeyFence>,
    ) -> Result<bool, ApiError> {
        let Some(fence) = fence else {
            let documents = self.collection::<Document>(collection);
            let result = self
                .bounded(
                    Call::new(collection, "update"),
                    documents.update_one(filter, update),
                )
                .await?;
            return Ok(result.matched_count == 1);
        };
        let matched = self
            .behind_fence(fence, move |store, session| {
                let (filter, update) = (filter.clone(), update.clone());
                Box::pin(async move {
                    let documents = store.collection::<Document>(collection);
                    let result = documents
                        .update_one(filter, update)
                        .session(&mut *session)
                        .await?;
                    Ok(result.matched_count == 1)
                })
            })
            .await?;
        matched.ok_or(ApiError::Fenced {
            attempt: fence.attempt,
        })
    }

    /// `find_one_and_update` returning the document as it was, behind `fence` when there is
    /// one; `Fenced` (nothing written) when the attempt lost its key.
    pub(crate) async fn fenced_find_one_and_update(
        &self,
        collection: &'static str,
        filter: Document,
        update: Document,
        fence: Option<&KeyFence>,
    ) -> Result<Option<Document>, ApiError> {
        let Some(fence) = fence else {
            let documents = self.collection::<Document>(collection);
            return self
                .bounded(
                    Call::new(collection, "findAndModify"),
                    documents
                        .find_one_and_update(filter, update)
                        .return_document(ReturnDocument::Before),
                )
                .await;
        };
        let before = self
            .behind_fence(fence, move |store, session| {
                let (filter, update) = (filter.clone(), update.clone());
                Box::pin(async move {
                    store
                        .collection::<Document>(collection)
                        .find_one_and_update(filter, update)
                        .return_document(ReturnDocument::Before)
                        .session(&mut *session)
                        .await
                })
            })
            .await?;
        before.ok_or(ApiError::Fenced {
            attempt: fence.attempt,
        })
    }
}
