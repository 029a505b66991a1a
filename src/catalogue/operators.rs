//! Creating operators (from the command line).

use crate::catalogue::rules::operator::OperatorScope;
use crate::domain::api_key::{validate_operator_code, ApiKey};
use crate::domain::global_id::{self, GlobalId};
use crate::error::ApiError;
use crate::store::Store;

/// Creates operator `code` with `scope` given as the API's cinema ids (`None`: every cinema)
/// and returns its key, which is shown once: only its hash is stored. BAD_USER_INPUT for a
/// bad code, an id that is not a cinema's, or a cinema that does not exist.
pub async fn create_operator(
    store: &Store,
    code: &str,
    name: &str,
    cinemas: Option<&[String]>,
) -> Result<ApiKey, ApiError> {
    validate_operator_code(code)?;
    if name.trim().is_empty() {
        return Err(ApiError::bad_input("an operator needs a name"));
    }
    let scope = match cinemas {
        None => OperatorScope::All,
        Some(ids) => {
            let ids = ids
                .iter()
                .map(|id| global_id::cinema_id(id.trim()))
                .collect::<Result<Vec<_>, _>>()?;
            let found = store.cinemas_by_ids(&ids).await?;
            if let Some(missing) = ids.iter().find(|id| !found.iter().any(|c| c.id == **id)) {
                return Err(ApiError::bad_input(format!(
                    "cinema {} does not exist",
                    GlobalId::Cinema(*missing).encode()
                )));
            }
            OperatorScope::Cinemas(ids)
        }
    };
    let key = ApiKey::generate_operator(&mut rand::rng());
    store
        .create_operator(code, name.trim(), key.hash(), &scope)
        .await?;
    Ok(key)
}
