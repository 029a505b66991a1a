//! Idempotency keys: a retried write with the same key and input has one effect and gets the
//! first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED; concurrent requests
//! with one key produce one effect.
//!
//! **The lease.** The request that claims a key is attempt 1. It holds a lease on the key and
//! renews it while it runs (a heartbeat every third of the lease). Other requests with the key
//! wait for its answer. Only when the lease has lapsed by the database's clock (the attempt's
//! gateway died or stalled) does one of them take the key over as the next attempt, so a dead
//! attempt is replaced within one lease and a live one never is.
//!
//! **The fence.** A stalled attempt may wake up after it was replaced. Everything it would
//! write on the key's behalf then matches nothing: the answer is stored only while its attempt
//! owns the key; a hold is placed only under the attempt's own hold id, which the taking-over
//! attempt fences off first (see `holds`); an order and a cancellation are single-use (one
//! order id per key, sold from one hold; a cancellation stamped with the key's id). A replaced
//! attempt stops its operation as soon as its heartbeat learns it, and answers with the stored
//! answer of the attempt that won.
//!
//! **Finding the earlier effect.** What an operation creates gets its id from the key before it
//! runs (`Attempt`), so a take-over finds what the earlier attempt made (a hold, an order, a
//! cancellation, a release) and answers with it instead of doing it again.

use std::future::Future;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::answers::{replay, stored};
use super::rules::KeyPolicy;
use super::store::{Claim, KeyFence, KeyState, NewKey, Outcome};
use crate::domain::ids::{HoldId, ResourceId};
use crate::error::ApiError;
use crate::store::{PausePoint, Store};

/// How often a request waiting for another attempt's answer looks at the key again.
const POLL: Duration = Duration::from_millis(25);

/// One attempt at a keyed operation (or an unkeyed operation): the ids it gives what it
/// creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempt {
    resource: ResourceId,
    number: i32,
    keyed: bool,
}

impl Attempt {
    /// An operation without a key: attempt 1 of nothing, with a fresh id.
    pub fn unkeyed() -> Self {
        Attempt {
            resource: crate::store::new_id(),
            number: 1,
            keyed: false,
        }
    }

    /// The one attempt at an operation whose resource is `resource` whoever runs it (a
    /// waiting party's offer: every gateway that makes it places the same hold, once).
    pub fn of_resource(resource: ResourceId) -> Self {
        Attempt {
            resource,
            number: 1,
            keyed: false,
        }
    }

    /// Whether the operation has an idempotency key (a retry may come and look for what this
    /// attempt did).
    pub fn keyed(&self) -> bool {
        self.keyed
    }

    /// The id of what the key's operation creates or stamps, the same for every attempt (an
    /// order: whichever attempt sells the hold sells it to this order).
    pub fn resource_id(&self) -> ResourceId {
        self.resource
    }

    /// 1 for the first attempt at a key, 2 for the one that took it over first, and so on.
    pub fn number(&self) -> i32 {
        self.number
    }

    /// Whether an earlier attempt may have done part of the work (this one took the key over).
    pub fn taken_over(&self) -> bool {
        self.number > 1
    }

    /// The id this attempt gives a hold: attempt 1's is the key's resource id, a later
    /// attempt's is derived from it, so that each attempt's hold id is its own and a
    /// taking-over attempt can fence off every earlier attempt's.
    pub fn own_id(&self) -> HoldId {
        id_of_attempt(self.resource, self.number)
    }

    /// The hold ids of the earlier attempts of this key.
    pub fn earlier_ids(&self) -> Vec<HoldId> {
        (1..self.number)
            .map(|n| id_of_attempt(self.resource, n))
            .collect()
    }
}

/// Attempt `n`'s id: the resource id for attempt 1; for later ones its timestamp (so the id
/// still says when the key was first used) and 8 bytes of SHA-256(resource id, n).
fn id_of_attempt(resource: ResourceId, n: i32) -> HoldId {
    if n <= 1 {
        return HoldId(resource.0);
    }
    let mut hasher = Sha256::new();
    hasher.update(resource.0);
    hasher.update(n.to_be_bytes());
    let digest = hasher.finalize();
    let mut bytes = [0; 12];
    bytes[..4].copy_from_slice(&resource.0[..4]);
    bytes[4..].copy_from_slice(&digest[..8]);
    HoldId(bytes)
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
    let json = serde_json::to_vec(request)
        .map_err(|error| ApiError::internal_caused("hashing a request", error))?;
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

/// What to do next with a key.
enum Step<T> {
    /// Run the operation as this attempt.
    Run(Attempt),
    /// Wait for the answer of the attempt that owns the key, or take it over.
    Follow(KeyState<T>),
}

/// Runs `body` once per (channel, key): with no key it simply runs. `body` gets the attempt,
/// which names the ids to give what it creates; it may be called again by a request that
/// takes the key over.
pub async fn once<T, F, Fut>(
    store: &Store,
    policy: &KeyPolicy,
    channel: &str,
    key: Option<&str>,
    operation: &str,
    request: &impl Serialize,
    body: F,
) -> Result<T, ApiError>
where
    T: Serialize + DeserializeOwned,
    F: Fn(Attempt) -> Fut,
    Fut: Future<Output = Result<T, ApiError>>,
{
    once_unless_refused(store, policy, channel, key, operation, request, None, body).await
}

/// [`once`], for a request already found refused (`refusal`, a business refusal) by a read
/// made after it came and before it did anything: a new key is recorded with that answer
/// in one insert, and `body` does not run. A key used before is followed as by `once`, the
/// refusal dropped: its own first answer is the answer. On a hot showtime most holds of
/// named seats are refused so; this spares each the claim's separate write (issue 34).
#[allow(clippy::too_many_arguments)] // `once`'s arguments, and the refusal.
pub async fn once_unless_refused<T, F, Fut>(
    store: &Store,
    policy: &KeyPolicy,
    channel: &str,
    key: Option<&str>,
    operation: &str,
    request: &impl Serialize,
    refusal: Option<ApiError>,
    body: F,
) -> Result<T, ApiError>
where
    T: Serialize + DeserializeOwned,
    F: Fn(Attempt) -> Fut,
    Fut: Future<Output = Result<T, ApiError>>,
{
    let Some(key) = key else {
        return match refusal {
            Some(refusal) => Err(refusal),
            None => body(Attempt::unkeyed()).await,
        };
    };
    validate_key(key)?;
    let new_key = NewKey {
        id: key_id(channel, key),
        operation: operation.to_owned(),
        request_hash: hash_request(operation, request)?,
        resource_id: crate::store::new_id(),
        lease: policy.lease,
    };
    let id = new_key.id.as_str();
    // No later than the record's creation, if this request makes it (attempt 1).
    let claimed_at = chrono::Utc::now();
    let claim = match &refusal {
        Some(refused) => {
            store
                .claim_key_refused::<T>(&new_key, stored(refused))
                .await?
        }
        None => store.claim_key::<T>(&new_key).await?,
    };
    let mut step = match (claim, refusal) {
        // The refusal is the key's answer now.
        (Claim::Fresh, Some(refusal)) => return Err(refusal),
        (Claim::Fresh, None) => Step::Run(Attempt {
            resource: new_key.resource_id,
            number: 1,
            keyed: true,
        }),
        (Claim::Existing(state), _) => Step::Follow(state),
        (Claim::Reused, _) => {
            return Err(ApiError::IdempotencyKeyReused(format!(
                "idempotency key `{key}` was used with another request"
            )))
        }
    };
    let mut waiting_since = tokio::time::Instant::now();
    loop {
        step = match step {
            Step::Run(attempt) => {
                let result = run_attempt(store, policy, id, attempt, &body).await;
                let created = (attempt.number == 1).then_some(claimed_at);
                match finish(store, &new_key, attempt, created, result).await? {
                    Some(answer) => return answer,
                    // Replaced: the attempt that owns the key now answers; wait for it.
                    None => {
                        waiting_since = tokio::time::Instant::now();
                        Step::Follow(current(store, id).await?)
                    }
                }
            }
            Step::Follow(state) => {
                if let Some(outcome) = state.outcome {
                    return replay(outcome);
                }
                let lapsed = state.lease_until <= crate::store::now();
                if lapsed && store.take_over_key(id, state.attempt, policy.lease).await? {
                    Step::Run(Attempt {
                        resource: state.resource_id,
                        number: state.attempt + 1,
                        keyed: true,
                    })
                } else if waiting_since.elapsed() >= policy.max_wait {
                    return Err(ApiError::unavailable(format!(
                        "attempt {} with idempotency key {id} is still running",
                        state.attempt
                    )));
                } else {
                    tokio::time::sleep(POLL).await;
                    Step::Follow(current(store, id).await?)
                }
            }
        };
    }
}

/// The record id of `key` in key space `channel`.
fn key_id(channel: &str, key: &str) -> String {
    format!("{channel}:{key}")
}

/// What `attempt`'s updates must carry so that they take effect only while it owns `key` (of
/// key space `channel`): a late attempt, woken after a retry took the key over and answered,
/// writes nothing (`KeyFence`). `None` without a key.
pub fn fence(channel: &str, key: Option<&str>, attempt: Attempt) -> Option<KeyFence> {
    key.filter(|_| attempt.keyed).map(|key| KeyFence {
        id: key_id(channel, key),
        attempt: attempt.number,
    })
}

async fn current<T: DeserializeOwned>(store: &Store, id: &str) -> Result<KeyState<T>, ApiError> {
    store
        .key_state(id)
        .await?
        .ok_or_else(|| ApiError::internal("an idempotency key vanished while in use"))
}

/// Runs `body` as `attempt`, renewing its lease meanwhile. When the heartbeat learns that the
/// attempt was replaced, the operation stops where it is (as if its gateway had died there:
/// the next attempt finds and finishes what it did) and the attempt is `Fenced`.
async fn run_attempt<T, F, Fut>(
    store: &Store,
    policy: &KeyPolicy,
    id: &str,
    attempt: Attempt,
    body: &F,
) -> Result<T, ApiError>
where
    F: Fn(Attempt) -> Fut,
    Fut: Future<Output = Result<T, ApiError>>,
{
    store.pause_point(PausePoint::AfterClaim).await;
    let mut abandon_if_dropped = AbandonOnDrop {
        store: Some(store.clone()),
        id: id.to_owned(),
        attempt: attempt.number,
    };
    let operation = async {
        store.pause_point(PausePoint::BeforeEffect).await;
        body(attempt).await
    };
    let result = tokio::select! {
        biased;
        replaced = heartbeat(store, policy.lease, id, attempt.number) => Err(replaced),
        result = operation => result,
    };
    abandon_if_dropped.store = None;
    result
}

/// Renews the lease of `attempt` every third of the lease; returns (the `Fenced` error) once
/// the attempt no longer owns the key. A renewal that fails (the database is away) is tried
/// again at the next beat: the lease may then lapse, and the fence keeps a late write harmless.
async fn heartbeat(store: &Store, lease: Duration, id: &str, attempt: i32) -> ApiError {
    let mut beats = tokio::time::interval_at(tokio::time::Instant::now() + lease / 3, lease / 3);
    loop {
        beats.tick().await;
        match store.renew_key_lease(id, attempt, lease).await {
            Ok(true) => {}
            Ok(false) => return ApiError::Fenced { attempt },
            Err(error) => tracing::warn!(%error, id, attempt, "could not renew a key's lease"),
        }
    }
}

/// Gives up the key's lease when a request is dropped mid-attempt (the client went away, or
/// the request timed out), so that a retry need not wait for the lease to lapse.
struct AbandonOnDrop {
    store: Option<Store>,
    id: String,
    attempt: i32,
}

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        let Some(store) = self.store.take() else {
            return;
        };
        let (id, attempt) = (std::mem::take(&mut self.id), self.attempt);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(error) = store.abandon_key(&id, attempt).await {
                    tracing::warn!(%error, id, attempt, "could not give up a dropped attempt's key");
                }
            });
        }
    }
}

/// Stores the answer of `attempt`, unless the effect is unknown (the database failed or went
/// away mid-operation): then the attempt gives the key up, so that a retry takes it over at
/// once and finds what was done. `None` when the attempt no longer owns the key: its answer
/// does not count.
async fn finish<T: Serialize>(
    store: &Store,
    key: &NewKey,
    attempt: Attempt,
    created: Option<chrono::DateTime<chrono::Utc>>,
    result: Result<T, ApiError>,
) -> Result<Option<Result<T, ApiError>>, ApiError> {
    let id = key.id.as_str();
    let outcome = match &result {
        Err(ApiError::Fenced { .. }) => return Ok(None),
        Err(error) if error.effect_unknown() => {
            if let Err(error) = store.abandon_key(id, attempt.number).await {
                tracing::warn!(%error, "could not give up an idempotency key");
            }
            return Ok(Some(result));
        }
        Ok(value) => Outcome::Ok(value),
        Err(error) => Outcome::Error(stored(error)),
    };
    if store
        .finish_key(key, attempt.number, created, &outcome)
        .await?
    {
        Ok(Some(result))
    } else {
        tracing::info!(
            id,
            attempt = attempt.number,
            "a replaced attempt finished late"
        );
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_attempt_has_its_own_hold_id_and_knows_the_earlier_ones() {
        let resource: ResourceId = crate::store::new_id();
        let first = Attempt {
            resource,
            number: 1,
            keyed: true,
        };
        let third = Attempt {
            resource,
            number: 3,
            keyed: true,
        };
        assert_eq!(first.own_id(), HoldId(resource.0));
        assert!(first.earlier_ids().is_empty() && !first.taken_over());
        let earlier = third.earlier_ids();
        assert_eq!(earlier.len(), 2);
        assert_eq!(earlier[0], HoldId(resource.0));
        assert_ne!(earlier[1], HoldId(resource.0));
        assert!(!earlier.contains(&third.own_id()));
        assert_eq!(
            third.resource_id(),
            resource,
            "one order id for every attempt"
        );
        assert_eq!(
            crate::store::created_at(third.own_id()),
            crate::store::created_at(resource),
            "a derived id keeps the key's first use time"
        );
        assert_eq!(
            id_of_attempt(resource, 2),
            earlier[1],
            "derived ids are stable"
        );
    }

    #[test]
    fn keys_are_printable_ascii_of_at_most_100_characters() {
        assert!(validate_key("cart-42").is_ok());
        assert!(validate_key(&"x".repeat(100)).is_ok());
        for bad in ["", "with space", "键", &"x".repeat(101)] {
            assert!(validate_key(bad).is_err(), "{bad:?}");
        }
    }
}
