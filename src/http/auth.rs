//! Who is calling: anonymous, a sales channel identified by its API key
//! (`Authorization: Bearer bo_...`), or an operator identified by its own (`bop_...`). A key that is sent must be valid: a wrong key is refused,
//! never downgraded to anonymous.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::{header, HeaderMap};

use crate::domain::api_key::{ApiKey, KeyKind};
use crate::error::ApiError;
use crate::graphql::Caller;
use crate::store::Store;

/// How long a key found in `channels` is trusted without asking again. A change to a channel's
/// record (its rate limit, its removal) reaches this process within this long.
const KNOWN_KEY_TTL: Duration = Duration::from_secs(30);

/// How long an unknown key is refused without asking again: a channel created meanwhile can
/// use its key after at most this long.
const UNKNOWN_KEY_TTL: Duration = Duration::from_secs(5);

/// Past this many entries, expired ones are dropped.
const PRUNE_ABOVE: usize = 10_000;

/// The keys this process looked up lately, by hash: the channel a key belongs to, or `None`
/// for a key no channel has. A channel's requests do not each look their key up in the
/// database, nor do repeated wrong keys.
#[derive(Debug, Default)]
pub struct KnownKeys {
    keys: Mutex<HashMap<String, (Option<Caller>, Instant)>>,
}

fn fresh(caller: &Option<Caller>, found: Instant) -> bool {
    let ttl = if caller.is_some() {
        KNOWN_KEY_TTL
    } else {
        UNKNOWN_KEY_TTL
    };
    found.elapsed() < ttl
}

impl KnownKeys {
    fn get(&self, hash: &str) -> Option<Option<Caller>> {
        let keys = self.keys.lock().expect("known keys lock");
        keys.get(hash)
            .filter(|(caller, found)| fresh(caller, *found))
            .map(|(caller, _)| caller.clone())
    }

    fn insert(&self, hash: String, caller: Option<Caller>) {
        let mut keys = self.keys.lock().expect("known keys lock");
        if keys.len() > PRUNE_ABOVE {
            keys.retain(|_, (caller, found)| fresh(caller, *found));
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
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(Caller::anonymous());
    };
    if values.next().is_some() {
        // Proxies and frameworks disagree on which of two would count: count neither.
        return Err(ApiError::unauthenticated(
            "send one Authorization header, not several",
        ));
    }
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthenticated("the Authorization header is not text"))?;
    authenticate_credential(store, known, value).await
}

/// The channel whose API key `credential` (`Bearer <API key>`) carries; UNAUTHENTICATED when
/// it is malformed or unknown. Also used for the key a WebSocket connection sends in its
/// `connection_init`.
pub async fn authenticate_credential(
    store: &Store,
    known: &KnownKeys,
    credential: &str,
) -> Result<Caller, ApiError> {
    let token = credential
        .strip_prefix("Bearer ")
        .ok_or_else(|| ApiError::unauthenticated("use `Authorization: Bearer <API key>`"))?;
    let key = ApiKey::parse(token.trim())?;
    let hash = key.hash();
    let unknown = || ApiError::unauthenticated("unknown API key");
    if let Some(known) = known.get(&hash) {
        return known.ok_or_else(unknown);
    }
    let found = match key.kind() {
        KeyKind::Channel => store
            .channel_by_key_hash(&hash)
            .await?
            .map(|channel| Caller {
                rate_limit: channel.rate_limit.map(Into::into),
                ..Caller::channel(channel.code)
            }),
        KeyKind::Operator => store
            .operator_by_key_hash(&hash)
            .await?
            .map(|operator| Caller {
                door: operator.door.map(|door| crate::graphql::Door {
                    cinema: door.cinema_id,
                    name: door.name,
                }),
                ..Caller::operator(operator.code)
            }),
    };
    match found {
        Some(caller) => {
            known.insert(hash, Some(caller.clone()));
            Ok(caller)
        }
        None => {
            // Remembered briefly, so a client retrying a wrong key (or guessing keys) costs
            // no database look-up each time.
            known.insert(hash, None);
            Err(unknown())
        }
    }
}
