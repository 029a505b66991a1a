//! Creating operators (from the command line and the demo).

use super::rules::{check_new_operator, OperatorScope};
use crate::domain::api_key::ApiKey;
use crate::error::ApiError;
use crate::store::Store;

/// Creates operator `code` named `name` with `scope`, and returns its key, which is shown
/// once: only its hash is stored. BAD_USER_INPUT for a bad code, an empty name, or a code
/// taken. The cinemas of `scope` are the caller's to check (`catalogue::create_operator`).
pub async fn create_operator(
    store: &Store,
    code: &str,
    name: &str,
    scope: &OperatorScope,
) -> Result<ApiKey, ApiError> {
    check_new_operator(code, name)?;
    let key = ApiKey::generate_operator(&mut rand::rng());
    store
        .create_operator(code, name.trim(), key.hash(), scope)
        .await?;
    Ok(key)
}
