//! Idempotency keys: a retried write with the same key and input has one effect and gets the
//! first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED; concurrent requests
//! with one key produce one effect (one of them runs, the others wait for its answer).
//!
//! What an operation creates gets its id before the operation runs (`resource_id`), so if the
//! gateway dies after the effect but before storing the answer, the retry that takes the key
//! over finds the hold or order the first attempt made instead of making another.

use std::future::Future;
use std::time::Duration;

use bson::oid::ObjectId;
use bson::{doc, DateTime, Document};
use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::store::idempotency::IdempotencyRecord;
use crate::store::Store;

/// How long a request waits for the answer of a concurrent one with its key before taking the
/// key over as abandoned.
const WAIT_FOR_FIRST: Duration = Duration::from_secs(10);
const POLL: Duration = Duration::from_millis(25);

/// The id an operation gives what it creates, and whether that may exist already: only when a
/// request takes over a key whose first attempt did not finish. Otherwise the id is new and the
/// operation need not look for it (no extra query on the hot path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceId {
    pub id: ObjectId,
    pub may_exist: bool,
}

impl ResourceId {
    /// A new id, of nothing yet.
    pub fn fresh() -> Self {
        ResourceId {
            id: ObjectId::new(),
            may_exist: false,
        }
    }
}

/// Validates a client's idempotency key: 1 to 100 printable ASCII characters.
fn validate_key(key: &str) -> Result<(), ApiError> {
    if (1..=100).contains(&key.len()) && key.chars().all(|c| c.is_ascii_graphic()) {
        Ok(())
    } else {
        Err(ApiError::bad_input(
            "idempotencyKey must be 1 to 100 printable ASCII characters",
        ))
    }
}

fn hash_request(operation: &str, request: &impl Serialize) -> Result<String, ApiError> {
    let json = serde_json::to_vec(request).map_err(ApiError::internal)?;
    let mut hasher = Sha256::new();
    hasher.update(operation.as_bytes());
    hasher.update([0]);
    hasher.update(&json);
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Runs `body` once per (channel, key): with no key it simply runs. `body` gets the id to give
/// what it creates.
pub async fn once<T, F, Fut>(
    store: &Store,
    channel: &str,
    key: Option<&str>,
    operation: &str,
    request: &impl Serialize,
    body: F,
) -> Result<T, ApiError>
where
    T: Serialize + DeserializeOwned,
    F: Fn(ResourceId) -> Fut,
    Fut: Future<Output = Result<T, ApiError>>,
{
    let Some(key) = key else {
        return body(ResourceId::fresh()).await;
    };
    validate_key(key)?;
    let record = IdempotencyRecord {
        id: format!("{channel}:{key}"),
        operation: operation.to_owned(),
        request_hash: hash_request(operation, request)?,
        resource_id: ObjectId::new(),
        attempt: 0,
        outcome: None,
        abandoned: false,
        created_at: DateTime::now(),
    };
    let Some(mut existing) = store.claim_idempotency_key(&record).await? else {
        let fresh = ResourceId {
            id: record.resource_id,
            may_exist: false,
        };
        return finish(store, &record.id, 0, body(fresh).await).await;
    };
    if existing.operation != record.operation || existing.request_hash != record.request_hash {
        return Err(ApiError::IdempotencyKeyReused(format!(
            "idempotency key `{key}` was used with another request"
        )));
    }
    let waiting_since = tokio::time::Instant::now();
    loop {
        if let Some(outcome) = &existing.outcome {
            return replay(outcome);
        }
        if (existing.abandoned || waiting_since.elapsed() >= WAIT_FOR_FIRST)
            && store
                .take_over_idempotency_key(&record.id, existing.attempt)
                .await?
        {
            let taken_over = ResourceId {
                id: existing.resource_id,
                may_exist: true,
            };
            let attempt = existing.attempt + 1;
            return finish(store, &record.id, attempt, body(taken_over).await).await;
        }
        tokio::time::sleep(POLL).await;
        existing = store
            .idempotency_record(&record.id)
            .await?
            .ok_or_else(|| ApiError::internal("an idempotency key vanished while in use"))?;
    }
}

/// Stores the answer, unless it is an internal error: then nothing is known of the effect, and
/// the attempt is marked abandoned so that a retry takes the key over at once (finding what
/// was made through the resource id). A gateway that dies mid-attempt marks nothing; a retry
/// then takes over after `WAIT_FOR_FIRST`.
async fn finish<T: Serialize>(
    store: &Store,
    id: &str,
    attempt: i32,
    result: Result<T, ApiError>,
) -> Result<T, ApiError> {
    let outcome = match &result {
        Ok(value) => doc! { "ok": bson::to_bson(value)? },
        Err(ApiError::Internal(_)) => {
            if let Err(error) = store.abandon_idempotency_key(id, attempt).await {
                tracing::warn!(%error, "could not mark an idempotency key abandoned");
            }
            return result;
        }
        Err(error) => doc! { "error": {
            "code": error.code().as_str(),
            "message": error.client_message(),
            "seats": error.seats(),
        } },
    };
    store.finish_idempotency_key(id, outcome).await?;
    result
}

fn replay<T: DeserializeOwned>(outcome: &Document) -> Result<T, ApiError> {
    if let Some(value) = outcome.get("ok") {
        return Ok(bson::from_bson(value.clone())?);
    }
    let error = outcome
        .get_document("error")
        .map_err(|_| ApiError::internal("a stored answer has neither `ok` nor `error`"))?;
    let seats = error
        .get_array("seats")
        .map(|seats| {
            seats
                .iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    Err(ApiError::from_parts(
        error.get_str("code").unwrap_or_default(),
        error.get_str("message").unwrap_or_default().to_owned(),
        seats,
    ))
}
