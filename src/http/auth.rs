//! Who is calling: anonymous, or a sales channel identified by its API key
//! (`Authorization: Bearer bo_...`). A key that is sent must be valid: a wrong key is refused,
//! never downgraded to anonymous.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::{header, HeaderMap};

use crate::domain::api_key::ApiKey;
use crate::error::ApiError;
use crate::graphql::Caller;
use crate::store::Store;

/// How long a key found in `channels` is trusted without asking again. A new channel is seen
/// at once (only found keys are kept); a change to a channel's record (its rate limit, its
/// removal) reaches this process within this long.
const KNOWN_KEY_TTL: Duration = Duration::from_secs(30);

/// Past this many entries, expired ones are dropped.
const PRUNE_ABOVE: usize = 10_000;

/// The keys this process found lately, by hash: a channel's requests do not each look their
/// key up in the database.
#[derive(Debug, Default)]
pub struct KnownKeys {
    keys: Mutex<HashMap<String, (Caller, Instant)>>,
}

impl KnownKeys {
    fn get(&self, hash: &str) -> Option<Caller> {
        let keys = self.keys.lock().expect("known keys lock");
        keys.get(hash)
            .filter(|(_, found)| found.elapsed() < KNOWN_KEY_TTL)
            .map(|(caller, _)| caller.clone())
    }

    fn insert(&self, hash: String, caller: Caller) {
        let mut keys = self.keys.lock().expect("known keys lock");
        if keys.len() > PRUNE_ABOVE {
            keys.retain(|_, (_, found)| found.elapsed() < KNOWN_KEY_TTL);
        }
        keys.insert(hash, (caller, Instant::now()));
    }
}

/// The caller of a request; UNAUTHENTICATED for a malformed, unknown or non-bearer credential.
#[tracing::instrument(skip_all)]
pub async fn authenticate(
    store: &Store,
    known: &KnownKeys,
    headers: &HeaderMap,
) -> Result<Caller, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(Caller::anonymous());
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthenticated("the Authorization header is not text"))?;
    let token = value
        .strip_prefix("Bearer ")
        .ok_or_else(|| ApiError::unauthenticated("use `Authorization: Bearer <API key>`"))?;
    let hash = ApiKey::parse(token.trim())?.hash();
    if let Some(caller) = known.get(&hash) {
        return Ok(caller);
    }
    match store.channel_by_key_hash(&hash).await? {
        Some(channel) => {
            let caller = Caller {
                rate_limit: channel.rate_limit.map(Into::into),
                ..Caller::channel(channel.code)
            };
            known.insert(hash, caller.clone());
            Ok(caller)
        }
        None => Err(ApiError::unauthenticated("unknown API key")),
    }
}
