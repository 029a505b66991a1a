//! A key's answer as its record keeps it, and back: what a replay of the request answers.

use super::store::{Outcome, StoredAdmission, StoredError};
use crate::error::ApiError;

/// A refusal as its key's record keeps it, for replays.
pub(super) fn stored(error: &ApiError) -> StoredError {
    StoredError {
        code: error.code().as_str().to_owned(),
        message: error.client_message(),
        seats: error.seats().to_vec(),
        reason: error.reason().or(error.product()).map(str::to_owned),
        admitted: match error {
            ApiError::AlreadyAdmitted { at, door, .. }
            | ApiError::AlreadyCollected { at, door, .. } => Some(StoredAdmission {
                at: *at,
                door: door.clone(),
            }),
            _ => None,
        },
    }
}

/// The answer a replay gives: the first answer, as its key's record keeps it.
pub(super) fn replay<T>(outcome: Outcome<T>) -> Result<T, ApiError> {
    match outcome {
        Outcome::Ok(value) => Ok(value),
        Outcome::Error(StoredError {
            admitted: Some(admitted),
            message,
            code,
            ..
        }) if code == "ALREADY_COLLECTED" => Err(ApiError::AlreadyCollected {
            message,
            at: admitted.at,
            door: admitted.door,
        }),
        Outcome::Error(StoredError {
            admitted: Some(admitted),
            message,
            ..
        }) => Err(ApiError::AlreadyAdmitted {
            message,
            at: admitted.at,
            door: admitted.door,
        }),
        Outcome::Error(error) => Err(ApiError::from_stored(
            &error.code,
            error.message,
            error.seats,
            error.reason,
        )),
    }
}
