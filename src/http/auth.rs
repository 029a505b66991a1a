//! Who is calling: anonymous, or a sales channel identified by its API key
//! (`Authorization: Bearer bo_...`). A key that is sent must be valid: a wrong key is refused,
//! never downgraded to anonymous.

use axum::http::{header, HeaderMap};

use crate::domain::api_key::ApiKey;
use crate::error::ApiError;
use crate::graphql::Caller;
use crate::store::Store;

/// The caller of a request; UNAUTHENTICATED for a malformed, unknown or non-bearer credential.
#[tracing::instrument(skip_all)]
pub async fn authenticate(store: &Store, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(Caller::anonymous());
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthenticated("the Authorization header is not text"))?;
    let token = value
        .strip_prefix("Bearer ")
        .ok_or_else(|| ApiError::unauthenticated("use `Authorization: Bearer <API key>`"))?;
    let key = ApiKey::parse(token.trim())?;
    match store.channel_by_key_hash(&key.hash()).await? {
        Some(channel) => Ok(Caller {
            rate_limit: channel.rate_limit.map(Into::into),
            ..Caller::channel(channel.code)
        }),
        None => Err(ApiError::unauthenticated("unknown API key")),
    }
}
