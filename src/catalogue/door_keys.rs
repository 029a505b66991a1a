//! Door staff keys: an operator makes one per door of its cinema, for the scanners there.
//!
//! A door key is an operator record scoped to one cinema and to admission only: it writes no
//! catalogue (its scope lists no cinema, and `calling_operator` refuses it), sells nothing
//! (it is not a channel's) and admits only that cinema's tickets. Its key is shown once and
//! stored as a hash. Making one takes no idempotency key, on purpose: a stored answer would
//! be the secret itself; a lost answer is mended by revoking the key and making another.

use rand::RngCore;

use super::cinemas::cinema_exists;
use crate::admissions::rules::validate_door_name;
use crate::domain::api_key::ApiKey;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::CinemaId;
use crate::error::ApiError;
use crate::idempotency::Attempt;
use crate::operators::{authorize, record, Audited};
use crate::store::documents::{DoorDoc, OperatorDoc};
use crate::store::Store;

/// A door key just made: its record and its key (shown this once).
#[derive(Debug)]
pub struct NewDoorKey {
    pub record: OperatorDoc,
    pub key: ApiKey,
}

/// Makes a door staff key for door `door` of `cinema`, as operator `operator` (who must
/// write the cinema: FORBIDDEN otherwise, NOT_FOUND for a cinema that does not exist).
#[tracing::instrument(skip(store))]
pub async fn create_door_key(
    store: &Store,
    operator: &str,
    cinema: CinemaId,
    door: &str,
) -> Result<NewDoorKey, ApiError> {
    let name = validate_door_name(door)?;
    cinema_exists(store, cinema).await?;
    authorize(store, operator, cinema).await?;
    let mut bytes = [0u8; 6];
    rand::rng().fill_bytes(&mut bytes);
    let code: String = std::iter::once("door-".to_owned())
        .chain(bytes.iter().map(|b| format!("{b:02x}")))
        .collect();
    let key = ApiKey::generate_operator(&mut rand::rng());
    let door = DoorDoc {
        cinema_id: cinema,
        name,
        created_by: operator.to_owned(),
        created_at: Some(crate::store::now()),
    };
    let record_doc = store.create_door_key(&code, key.hash(), door).await?;
    audit(store, operator, "createDoorKey", cinema, &record_doc).await?;
    Ok(NewDoorKey {
        record: record_doc,
        key,
    })
}

/// Revokes door key `code` of `cinema` as operator `operator`: NOT_FOUND when the cinema has
/// no such key. Gateways that saw the key lately refuse it within their key cache's life
/// (30 seconds).
#[tracing::instrument(skip(store))]
pub async fn revoke_door_key(
    store: &Store,
    operator: &str,
    cinema: CinemaId,
    code: &str,
) -> Result<OperatorDoc, ApiError> {
    cinema_exists(store, cinema).await?;
    authorize(store, operator, cinema).await?;
    let not_found = || ApiError::not_found(format!("cinema has no door key `{code}`"));
    let found = store.door_key(code).await?.ok_or_else(not_found)?;
    if found.door.as_ref().map(|door| door.cinema_id) != Some(cinema) {
        return Err(not_found());
    }
    if !store.revoke_door_key(code, cinema).await? {
        return Err(not_found());
    }
    audit(store, operator, "revokeDoorKey", cinema, &found).await?;
    Ok(found)
}

/// The most door keys one cinema lists.
pub const MAX_DOOR_KEYS: i64 = 100;

/// The door staff keys of `cinema`, by code, for operator `operator` (FORBIDDEN outside its
/// scope): a key whose answer was lost (the database went away as it was made) shows here,
/// to be revoked.
#[tracing::instrument(skip(store))]
pub async fn door_keys(
    store: &Store,
    operator: &str,
    cinema: CinemaId,
) -> Result<Vec<OperatorDoc>, ApiError> {
    cinema_exists(store, cinema).await?;
    authorize(store, operator, cinema).await?;
    store.door_keys_of(cinema, MAX_DOOR_KEYS).await
}

async fn audit(
    store: &Store,
    operator: &str,
    operation: &str,
    cinema: CinemaId,
    key: &OperatorDoc,
) -> Result<(), ApiError> {
    let door = key.door.as_ref().map(|door| door.name.as_str());
    let entry = serde_json::json!({ "doorKey": key.code, "door": door });
    record(
        store,
        Attempt::unkeyed(),
        Audited {
            operator,
            operation,
            cinema: Some(cinema),
            subject: GlobalId::Cinema(cinema),
            before: None,
            after: Audited::json(&entry),
        },
    )
    .await
}
