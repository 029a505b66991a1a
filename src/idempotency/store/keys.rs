//! `idempotency_keys`: one record per (channel, key) remembering what the first request asked,
//! which attempt owns the key now, and, once it finished, what it answered.
//!
//! The unique `_id` makes concurrent requests with one key race for a single insert: the
//! winner is attempt 1 and holds a lease it renews while it runs; the others wait for its
//! answer. A retry takes the key over (attempt + 1) only once the lease has lapsed by the
//! database's clock, and every write on the record is conditional on the attempt that makes
//! it, so a late attempt's writes match nothing. A TTL index keeps records 48 hours.
//!
//! So an answered record never changes: the process that wrote or read an answer keeps the
//! record in memory for a while (`store::final_records`), and a replay it receives is
//! answered from there, with no command.

use std::time::{Duration, Instant};

use bson::{doc, Bson, Document};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::domain::ids::ResourceId;
use crate::error::ApiError;
use crate::idempotency::rules::KEEP_SECONDS;
use crate::store::command_metrics::Call;
use crate::store::{codec, is_duplicate_key, names, Store};

/// A key's record as stored. `outcome` stays raw until the operation is known to match, so a
/// key reused for another operation is refused rather than failing to decode.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct KeyDoc {
    /// `channel:key`.
    #[serde(rename = "_id")]
    id: String,
    operation: String,
    /// SHA-256 of the request's input: the same key with another input is refused.
    request_hash: String,
    /// The id the operation gives what it creates, fixed for the key.
    #[serde(with = "codec::id")]
    resource_id: ResourceId,
    /// The attempt that owns the key: 1 for the first, bumped by each take-over.
    attempt: i32,
    /// The owning attempt's lease: renewed while it runs; once past (by the database's
    /// clock) a retry may take the key over.
    #[serde(with = "codec::time")]
    lease_until: DateTime<Utc>,
    /// The stored answer once an attempt finished; absent while one runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    outcome: Option<Bson>,
    #[serde(with = "codec::time")]
    created_at: DateTime<Utc>,
}

/// What a new key's record says.
#[derive(Debug, Clone)]
pub struct NewKey {
    /// `channel:key`.
    pub id: String,
    pub operation: String,
    pub request_hash: String,
    pub resource_id: ResourceId,
    pub lease: Duration,
}

/// An answer as stored: the operation's value, or the error a client was given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome<T> {
    Ok(T),
    Error(StoredError),
}

/// An error a client was given, as stored for replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredError {
    pub code: String,
    pub message: String,
    #[serde(default)]
    pub seats: Vec<String>,
    /// VOUCHER_REFUSED's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// ALREADY_ADMITTED's when and where.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admitted: Option<StoredAdmission>,
}

/// When and at which door a ticket was admitted, as an ALREADY_ADMITTED answer stored it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredAdmission {
    #[serde(with = "codec::time")]
    pub at: DateTime<Utc>,
    pub door: String,
}

/// Where a key stands.
#[derive(Debug, Clone)]
pub struct KeyState<T> {
    pub resource_id: ResourceId,
    /// The attempt that owns it (or answered).
    pub attempt: i32,
    /// The owning attempt's lease, as written (judged by the database's clock).
    pub lease_until: DateTime<Utc>,
    pub outcome: Option<Outcome<T>>,
}

/// What claiming a key found.
#[derive(Debug)]
pub enum Claim<T> {
    /// The key is new: attempt 1 owns it.
    Fresh,
    /// The key was used before for this very request.
    Existing(KeyState<T>),
    /// The key was used before for another request.
    Reused,
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// `{$and: [{_id}, {attempt}, no outcome, extra...]}`: the record while `attempt` owns it.
/// (`$expr` beside `_id` at the top level is planned as a collection scan by some servers;
/// inside `$and` it is not.)
pub(in crate::idempotency) fn owned_by(
    id: &str,
    attempt: i32,
    extra: Option<Document>,
) -> Document {
    let mut all = vec![
        doc! { "_id": id },
        doc! { "attempt": attempt },
        doc! { "outcome": { "$exists": false } },
    ];
    all.extend(extra);
    doc! { "$and": all }
}

/// `leaseUntil = $$NOW + lease`, by the database's clock (an update pipeline stage).
fn lease_from_now(lease: Duration) -> Document {
    doc! { "$dateAdd": { "startDate": "$$NOW", "unit": "millisecond", "amount": millis(lease) } }
}

impl KeyDoc {
    /// What claiming the key for `key`'s request finds in this record.
    fn claim_for<T: DeserializeOwned>(self, key: &NewKey) -> Result<Claim<T>, ApiError> {
        if self.operation != key.operation || self.request_hash != key.request_hash {
            return Ok(Claim::Reused);
        }
        self.state().map(Claim::Existing)
    }

    fn state<T: DeserializeOwned>(self) -> Result<KeyState<T>, ApiError> {
        Ok(KeyState {
            resource_id: self.resource_id,
            attempt: self.attempt,
            lease_until: self.lease_until,
            outcome: self.outcome.map(bson::from_bson).transpose()?,
        })
    }
}

impl Store {
    /// Inserts a fresh record owned by attempt 1 (its first lease from this gateway's clock;
    /// the heartbeat renews it by the database's), or reports what the key holds.
    #[tracing::instrument(skip(self, key), fields(id = %key.id))]
    pub(in crate::idempotency) async fn claim_key<T: DeserializeOwned>(
        &self,
        key: &NewKey,
    ) -> Result<Claim<T>, ApiError> {
        self.insert_key(key, None).await
    }

    /// Records key `key` as answered already with `refusal`, decided before the request did
    /// anything: in one insert, where a claim and its answer take two. `Fresh` when it was
    /// new (the refusal is its answer now); else what [`Store::claim_key`] finds.
    #[tracing::instrument(skip(self, key, refusal), fields(id = %key.id))]
    pub(in crate::idempotency) async fn claim_key_refused<T: DeserializeOwned>(
        &self,
        key: &NewKey,
        refusal: StoredError,
    ) -> Result<Claim<T>, ApiError> {
        let outcome = bson::to_bson(&Outcome::<()>::Error(refusal))?;
        self.insert_key(key, Some(outcome)).await
    }

    async fn insert_key<T: DeserializeOwned>(
        &self,
        key: &NewKey,
        outcome: Option<Bson>,
    ) -> Result<Claim<T>, ApiError> {
        if let Some(known) = self.known_answered(&key.id) {
            return known.claim_for(key);
        }
        let keys = self.collection::<KeyDoc>(names::IDEMPOTENCY_KEYS);
        let now = Utc::now();
        let record = KeyDoc {
            id: key.id.clone(),
            operation: key.operation.clone(),
            request_hash: key.request_hash.clone(),
            resource_id: key.resource_id,
            attempt: 1,
            lease_until: now + chrono::TimeDelta::milliseconds(millis(key.lease)),
            outcome,
            created_at: now,
        };
        match self
            .bounded_raw(
                Call::new(names::IDEMPOTENCY_KEYS, "insert"),
                keys.insert_one(&record),
            )
            .await?
        {
            Ok(_) => {
                self.keep_if_answered(&record);
                Ok(Claim::Fresh)
            }
            Err(error) if is_duplicate_key(&error) => {
                let existing = self
                    .bounded(
                        Call::new(names::IDEMPOTENCY_KEYS, "find"),
                        keys.find_one(doc! { "_id": &key.id }),
                    )
                    .await?
                    .ok_or_else(|| {
                        ApiError::internal("an idempotency key vanished while claimed")
                    })?;
                self.keep_if_answered(&existing);
                existing.claim_for(key)
            }
            Err(error) => Err(error.into()),
        }
    }

    /// Where key `id` stands now.
    #[tracing::instrument(skip(self))]
    pub async fn key_state<T: DeserializeOwned>(
        &self,
        id: &str,
    ) -> Result<Option<KeyState<T>>, ApiError> {
        self.bounded(
            Call::new(names::IDEMPOTENCY_KEYS, "find"),
            self.collection::<KeyDoc>(names::IDEMPOTENCY_KEYS)
                .find_one(doc! { "_id": id }),
        )
        .await?
        .map(|record| {
            self.keep_if_answered(&record);
            record.state()
        })
        .transpose()
    }

    /// Renews the lease of `attempt` (the heartbeat). False when the attempt no longer owns
    /// the key: a retry took it over.
    #[tracing::instrument(skip(self))]
    pub(in crate::idempotency) async fn renew_key_lease(
        &self,
        id: &str,
        attempt: i32,
        lease: Duration,
    ) -> Result<bool, ApiError> {
        let update = vec![doc! { "$set": { "leaseUntil": lease_from_now(lease) } }];
        let result = self
            .bounded(
                Call::new(names::IDEMPOTENCY_KEYS, "update"),
                self.collection::<KeyDoc>(names::IDEMPOTENCY_KEYS)
                    .update_one(owned_by(id, attempt, None), update),
            )
            .await?;
        Ok(result.matched_count == 1)
    }

    /// Takes key `id` over from `attempt`, whose lease has lapsed by the database's clock: the
    /// next attempt owns it, with a fresh lease. False when the lease is still running, the
    /// key was answered, or another retry took it over first.
    #[tracing::instrument(skip(self))]
    pub(in crate::idempotency) async fn take_over_key(
        &self,
        id: &str,
        attempt: i32,
        lease: Duration,
    ) -> Result<bool, ApiError> {
        let lapsed = doc! { "$expr": { "$lt": ["$leaseUntil", "$$NOW"] } };
        let update = vec![doc! { "$set": {
            "attempt": attempt + 1,
            "leaseUntil": lease_from_now(lease),
        } }];
        let result = self
            .bounded(
                Call::new(names::IDEMPOTENCY_KEYS, "update"),
                self.collection::<KeyDoc>(names::IDEMPOTENCY_KEYS)
                    .update_one(owned_by(id, attempt, Some(lapsed)), update),
            )
            .await?;
        Ok(result.modified_count == 1)
    }

    /// Ends the lease of `attempt` at once (it failed without knowing its effect), so a retry
    /// may take the key over without waiting; a no-op if it no longer owns the key.
    #[tracing::instrument(skip(self))]
    pub(in crate::idempotency) async fn abandon_key(
        &self,
        id: &str,
        attempt: i32,
    ) -> Result<(), ApiError> {
        self.bounded(
            Call::new(names::IDEMPOTENCY_KEYS, "update"),
            self.collection::<KeyDoc>(names::IDEMPOTENCY_KEYS)
                .update_one(
                    owned_by(id, attempt, None),
                    doc! { "$set": { "leaseUntil": bson::DateTime::from_millis(0) } },
                ),
        )
        .await?;
        Ok(())
    }

    /// Stores the answer of `attempt` of `key`'s request. False when the attempt no longer
    /// owns the key (it was taken over): the answer of the attempt that did counts, not this
    /// one. `created`: when the record was made, if known (by attempt 1, which made it).
    #[tracing::instrument(skip(self, key, outcome), fields(id = %key.id))]
    pub(in crate::idempotency) async fn finish_key<T: Serialize>(
        &self,
        key: &NewKey,
        attempt: i32,
        created: Option<DateTime<Utc>>,
        outcome: &Outcome<T>,
    ) -> Result<bool, ApiError> {
        let outcome = bson::to_bson(outcome)?;
        // Sent with the other answers that come meanwhile (a batch's requests end together).
        let set = doc! { "outcome": outcome.clone() };
        let stored = (self.set_grouped(
            names::IDEMPOTENCY_KEYS,
            owned_by(&key.id, attempt, None),
            set,
        ))
        .await?;
        if let (true, Some(created_at)) = (stored, created) {
            self.keep_if_answered(&KeyDoc {
                id: key.id.clone(),
                operation: key.operation.clone(),
                request_hash: key.request_hash.clone(),
                resource_id: key.resource_id,
                attempt,
                lease_until: created_at,
                outcome: Some(outcome),
                created_at,
            });
        }
        Ok(stored)
    }

    /// Keeps `record` in memory if it is answered (so final), never past the moment the TTL
    /// index may remove it from the database.
    fn keep_if_answered(&self, record: &KeyDoc) {
        if record.outcome.is_none() {
            return;
        }
        let age = (Utc::now() - record.created_at)
            .to_std()
            .unwrap_or_default();
        let left = Duration::from_secs(KEEP_SECONDS).saturating_sub(age);
        (self.final_records()).keep(&record.id, record, Instant::now() + left);
    }

    /// Key `id`'s record, if this process knows it answered.
    fn known_answered(&self, id: &str) -> Option<KeyDoc> {
        self.final_records().get(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_are_stored_as_ok_or_error() {
        let ok = bson::to_bson(&Outcome::Ok(vec!["A1".to_owned()])).unwrap();
        assert_eq!(ok, Bson::Document(doc! { "ok": ["A1"] }));
        let error = Outcome::<()>::Error(StoredError {
            code: "SEAT_UNAVAILABLE".into(),
            message: "taken".into(),
            seats: vec!["A1".into()],
            reason: None,
            admitted: None,
        });
        let stored = bson::to_bson(&error).unwrap();
        assert_eq!(
            stored,
            Bson::Document(
                doc! { "error": { "code": "SEAT_UNAVAILABLE", "message": "taken", "seats": ["A1"] } }
            )
        );
        assert_eq!(bson::from_bson::<Outcome<()>>(stored).unwrap(), error);
    }
}
