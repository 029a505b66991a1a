//! Creating operators (from the command line), their scope given as the API's cinema ids.

use crate::domain::api_key::ApiKey;
use crate::domain::global_id::{self, GlobalId};
use crate::error::ApiError;
use crate::operators;
use crate::operators::rules::{check_new_operator, OperatorScope};
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
    check_new_operator(code, name)?;
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
    operators::create_operator(store, code, name, &scope).await
}
