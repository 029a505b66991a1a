//! `idempotency_keys`: one record per (channel, key) remembering what the first request asked
//! and answered. The unique `_id` makes two concurrent requests with one key race for a single
//! insert; the loser waits for the winner's answer. A TTL index keeps records 48 hours.

use bson::oid::ObjectId;
use bson::{doc, DateTime, Document};
use serde::{Deserialize, Serialize};

use super::channels::is_duplicate_key;
use super::{names, Store};
use crate::error::ApiError;

/// How long a key is remembered (at least the promised 24 hours).
pub const KEEP_SECONDS: u64 = 48 * 3600;

/// A key's record.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IdempotencyRecord {
    /// `channel:key`.
    #[serde(rename = "_id")]
    pub id: String,
    pub operation: String,
    /// SHA-256 of the request's input: the same key with another input is refused.
    pub request_hash: String,
    /// The id the operation gives what it creates, fixed before it runs, so a retry after a
    /// crash finds what the first attempt made instead of making it twice.
    pub resource_id: ObjectId,
    /// Bumped by whoever takes over an abandoned attempt, so only one does.
    pub attempt: i32,
    /// The stored answer once the operation finished; `None` while it runs.
    pub outcome: Option<Document>,
    /// Set when the attempt at `attempt` failed without knowing its effect (an internal
    /// error): a retry may take the key over at once instead of waiting for it.
    #[serde(default)]
    pub abandoned: bool,
    pub created_at: DateTime,
}

impl Store {
    /// Inserts a fresh record; `Ok(None)` when the key exists, with the existing record.
    #[tracing::instrument(skip(self, record), fields(id = %record.id))]
    pub async fn claim_idempotency_key(
        &self,
        record: &IdempotencyRecord,
    ) -> Result<Option<IdempotencyRecord>, ApiError> {
        let keys = self.collection::<IdempotencyRecord>(names::IDEMPOTENCY_KEYS);
        match keys.insert_one(record).await {
            Ok(_) => Ok(None),
            Err(error) if is_duplicate_key(&error) => keys
                .find_one(doc! { "_id": &record.id })
                .await?
                .map(Some)
                .ok_or_else(|| ApiError::internal("an idempotency key vanished while claimed")),
            Err(error) => Err(error.into()),
        }
    }

    /// The record of a key.
    pub async fn idempotency_record(
        &self,
        id: &str,
    ) -> Result<Option<IdempotencyRecord>, ApiError> {
        Ok(self
            .collection::<IdempotencyRecord>(names::IDEMPOTENCY_KEYS)
            .find_one(doc! { "_id": id })
            .await?)
    }

    /// Takes over an unfinished record at `attempt`; false when another caller did first or it
    /// finished meanwhile.
    pub async fn take_over_idempotency_key(
        &self,
        id: &str,
        attempt: i32,
    ) -> Result<bool, ApiError> {
        let result = self
            .collection::<IdempotencyRecord>(names::IDEMPOTENCY_KEYS)
            .update_one(
                doc! { "_id": id, "attempt": attempt, "outcome": null },
                doc! { "$inc": { "attempt": 1 }, "$set": { "abandoned": false } },
            )
            .await?;
        Ok(result.modified_count == 1)
    }

    /// Marks the attempt at `attempt` of a key as given up (it failed without knowing its
    /// effect), unless it finished or was taken over meanwhile.
    pub async fn abandon_idempotency_key(&self, id: &str, attempt: i32) -> Result<(), ApiError> {
        self.collection::<IdempotencyRecord>(names::IDEMPOTENCY_KEYS)
            .update_one(
                doc! { "_id": id, "attempt": attempt, "outcome": null },
                doc! { "$set": { "abandoned": true } },
            )
            .await?;
        Ok(())
    }

    /// Stores the answer of a key's operation.
    pub async fn finish_idempotency_key(
        &self,
        id: &str,
        outcome: Document,
    ) -> Result<(), ApiError> {
        self.collection::<IdempotencyRecord>(names::IDEMPOTENCY_KEYS)
            .update_one(doc! { "_id": id }, doc! { "$set": { "outcome": outcome } })
            .await?;
        Ok(())
    }
}
