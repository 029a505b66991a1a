//! Who may write what, and the record of what they wrote.

use std::future::Future;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::rules::OperatorScope;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::{CinemaId, ResourceId};
use crate::error::ApiError;
use crate::idempotency::{self, Attempt, KeyPolicy};
use crate::store::documents::{AuditDoc, SCHEMA_VERSION};
use crate::store::{self, CrashPoint, Store};

/// FORBIDDEN unless operator `code` may write `cinema` (the platform may write every cinema; a
/// chain the cinemas of its scope). Read fresh: a change of scope counts at once.
#[tracing::instrument(skip(store))]
pub async fn authorize(store: &Store, code: &str, cinema: CinemaId) -> Result<(), ApiError> {
    if store.operator_may_write(code, cinema).await? {
        Ok(())
    } else {
        Err(ApiError::forbidden(format!(
            "operator `{code}` may not write cinema {}",
            GlobalId::Cinema(cinema).encode()
        )))
    }
}

/// The cinemas operator `code` may write, read fresh (UNAUTHENTICATED when it is gone).
#[tracing::instrument(skip(store))]
pub async fn operator_scope(store: &Store, code: &str) -> Result<OperatorScope, ApiError> {
    let operator = store
        .operator_by_code(code)
        .await?
        .ok_or_else(|| ApiError::unauthenticated(format!("operator `{code}` does not exist")))?;
    Ok(if operator.all_cinemas {
        OperatorScope::All
    } else {
        OperatorScope::Cinemas(operator.cinema_ids)
    })
}

/// Whether operator `code` is the platform's (every cinema, the audit log), read fresh.
pub async fn is_platform(store: &Store, code: &str) -> Result<bool, ApiError> {
    store.operator_is_platform(code).await
}

/// Adds `cinema` to operator `code`'s scope (a cinema it created). Idempotent.
pub async fn add_to_scope(store: &Store, code: &str, cinema: CinemaId) -> Result<(), ApiError> {
    store.add_to_operator_scope(code, cinema).await
}

/// The key space of an operator's idempotency keys (`idempotency::once`'s namespace): apart from
/// every channel's, since a channel code cannot contain `/`.
pub fn operator_keys(code: &str) -> String {
    format!("operator/{code}")
}

/// Where a keyed write runs: the store, the key policy, the operator, its key and request.
pub struct Keyed<'a, R: Serialize> {
    pub store: &'a Store,
    pub keys: &'a KeyPolicy,
    pub operator: &'a str,
    pub key: Option<&'a str>,
    pub request: &'a R,
}

impl<R: Serialize> Keyed<'_, R> {
    /// What `attempt`'s updates carry so that a late attempt writes nothing
    /// (`idempotency::fence`); `None` without a key.
    pub fn fence(&self, attempt: Attempt) -> Option<idempotency::KeyFence> {
        idempotency::fence(&operator_keys(self.operator), self.key, attempt)
    }

    /// Runs `body` once per the operator's idempotency key (`idempotency::once` in the
    /// operator's own key space).
    pub async fn once<T, F, Fut>(&self, operation: &str, body: F) -> Result<T, ApiError>
    where
        T: Serialize + DeserializeOwned,
        F: Fn(Attempt) -> Fut,
        Fut: Future<Output = Result<T, ApiError>>,
    {
        let namespace = operator_keys(self.operator);
        idempotency::once(
            self.store,
            self.keys,
            &namespace,
            self.key,
            operation,
            self.request,
            body,
        )
        .await
    }
}

/// One write to record: what it wrote, and its fields before and after.
#[derive(Debug)]
pub struct Audited<'a> {
    pub operator: &'a str,
    pub operation: &'a str,
    pub cinema: Option<CinemaId>,
    pub subject: GlobalId,
    pub before: Option<String>,
    pub after: Option<String>,
}

impl Audited<'_> {
    /// JSON text of `value`, for `before` and `after`.
    pub fn json(value: &impl Serialize) -> Option<String> {
        serde_json::to_string(value).ok()
    }

    /// JSON text of the fields `keys` (stored names) of `value`: what an update wrote.
    pub fn fields(value: &impl Serialize, keys: &[&str]) -> Option<String> {
        let serde_json::Value::Object(all) = serde_json::to_value(value).ok()? else {
            return None;
        };
        let picked: serde_json::Map<_, _> = all
            .into_iter()
            .filter(|(key, _)| keys.contains(&key.as_str()))
            .collect();
        serde_json::to_string(&picked).ok()
    }
}

/// Records `entry` in the audit log under the attempt's resource id (fresh for a write
/// without a key), so a retry that repeats the record (it took the key over after the write)
/// leaves one entry.
pub async fn record(store: &Store, attempt: Attempt, entry: Audited<'_>) -> Result<(), ApiError> {
    record_under(store, attempt.resource_id(), entry).await
}

/// [`record`] under `id`: the write's own id when it is not the attempt's (a cancellation
/// another request began is recorded under that request).
pub async fn record_under(
    store: &Store,
    id: ResourceId,
    entry: Audited<'_>,
) -> Result<(), ApiError> {
    if store.crash_armed(CrashPoint::BeforeAudit) {
        return Err(ApiError::internal(format!(
            "injected crash at {:?}",
            CrashPoint::BeforeAudit
        )));
    }
    store
        .record_audit(&AuditDoc {
            id,
            schema_version: SCHEMA_VERSION,
            operator: entry.operator.to_owned(),
            operation: entry.operation.to_owned(),
            at: store::now(),
            cinema_id: entry.cinema,
            subject: entry.subject.encode(),
            before: entry.before,
            after: entry.after,
        })
        .await
}
