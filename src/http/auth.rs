//! Who is calling: anonymous, a sales channel identified by its API key
//! (`Authorization: Bearer bo_...`), or an operator identified by its own (`bop_...`). A key that is sent must be valid: a wrong key is refused,
//! never downgraded to anonymous.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{header, HeaderMap};
use futures::future::{BoxFuture, FutureExt, Shared};

use crate::domain::api_key::{ApiKey, KeyKind};
use crate::error::ApiError;
use crate::graphql::Caller;
use crate::store::Store;

/// How long a key found in `channels` is trusted without asking again. A change to a channel's
/// record (its rate limit, its removal) reaches this process within this long (and one request).
const KNOWN_KEY_TTL: Duration = Duration::from_secs(30);

/// How long a known key is still served after its TTL while the database does not answer the
/// look-up that would renew it: a slow or absent database does not lock out every channel.
const KNOWN_KEY_STALE_LIMIT: Duration = Duration::from_secs(600);

/// How long an unknown key is refused without asking again: a channel created meanwhile can
/// use its key after at most this long.
const UNKNOWN_KEY_TTL: Duration = Duration::from_secs(5);

/// Past this many entries, expired ones are dropped.
const PRUNE_ABOVE: usize = 10_000;

/// One look-up of a key, shared by every request that waits for it.
type Lookup = Shared<BoxFuture<'static, Result<Option<Caller>, ApiError>>>;

/// The keys this process looked up lately, by hash: the channel a key belongs to, or `None`
/// for a key no channel has. A channel's requests do not each look their key up in the
/// database, nor do repeated wrong keys; concurrent requests with a key not yet known share
/// one look-up (a cold gateway meeting a crowd sends one per key, not one per request).
#[derive(Default)]
pub struct KnownKeys {
    keys: Mutex<HashMap<String, (Option<Caller>, Instant)>>,
    lookups: Mutex<HashMap<String, Lookup>>,
}

impl std::fmt::Debug for KnownKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KnownKeys")
            .field("keys", &self.keys.lock().map(|keys| keys.len()).ok())
            .field("lookups", &self.lookups_in_flight())
            .finish()
    }
}

/// What the cache says of a key.
enum Cached {
    Fresh(Option<Caller>),
    /// A channel's key past its TTL: served while a look-up renews it.
    Stale(Caller),
    Unknown,
}

impl KnownKeys {
    fn get(&self, hash: &str) -> Cached {
        let keys = self.keys.lock().expect("known keys lock");
        match keys.get(hash) {
            Some((caller, found)) if fresh(caller, *found) => Cached::Fresh(caller.clone()),
            Some((Some(caller), found)) if found.elapsed() < KNOWN_KEY_STALE_LIMIT => {
                Cached::Stale(caller.clone())
            }
            _ => Cached::Unknown,
        }
    }

    fn insert(&self, hash: String, caller: Option<Caller>) {
        let mut keys = self.keys.lock().expect("known keys lock");
        if keys.len() > PRUNE_ABOVE {
            keys.retain(|_, (caller, found)| kept(caller, *found));
        }
        keys.insert(hash, (caller, Instant::now()));
    }

    /// The look-up of `key` in flight, or a new one.
    fn lookup(&self, store: &Store, key: &ApiKey, hash: &str) -> Lookup {
        let mut lookups = self.lookups.lock().expect("key look-ups lock");
        if let Some(lookup) = lookups.get(hash) {
            return lookup.clone();
        }
        let lookup = look_up(store.clone(), key.kind(), hash.to_owned())
            .boxed()
            .shared();
        lookups.insert(hash.to_owned(), lookup.clone());
        lookup
    }

    /// Waits for `key`'s look-up (shared with every other request waiting for it) and keeps
    /// its answer; a failed look-up keeps nothing, so the next request asks again.
    async fn look_up_shared(&self, store: &Store, key: &ApiKey, hash: &str) -> LookedUp {
        let lookup = self.lookup(store, key, hash);
        let answer = lookup.clone().await;
        {
            let mut lookups = self.lookups.lock().expect("key look-ups lock");
            if lookups.get(hash).is_some_and(|l| l.ptr_eq(&lookup)) {
                lookups.remove(hash);
            }
        }
        if let Ok(caller) = &answer {
            self.insert(hash.to_owned(), caller.clone());
        }
        answer
    }

    /// Renews a stale key in the background (one look-up however many requests see it stale).
    fn renew(self: &Arc<Self>, store: &Store, key: ApiKey, hash: String) {
        let already = (self.lookups.lock().expect("key look-ups lock")).contains_key(&hash);
        if already {
            return;
        }
        let (known, store) = (Arc::clone(self), store.clone());
        tokio::spawn(async move {
            if let Err(error) = known.look_up_shared(&store, &key, &hash).await {
                tracing::debug!(%error, "renewing a known API key failed; it is served meanwhile");
            }
        });
    }

    /// Keys with a look-up in flight (tests).
    pub fn lookups_in_flight(&self) -> usize {
        self.lookups.lock().expect("key look-ups lock").len()
    }
}

type LookedUp = Result<Option<Caller>, ApiError>;

fn fresh(caller: &Option<Caller>, found: Instant) -> bool {
    let ttl = if caller.is_some() {
        KNOWN_KEY_TTL
    } else {
        UNKNOWN_KEY_TTL
    };
    found.elapsed() < ttl
}

/// Whether an entry is still worth keeping: fresh, or a channel's key that may be served stale.
fn kept(caller: &Option<Caller>, found: Instant) -> bool {
    fresh(caller, found) || (caller.is_some() && found.elapsed() < KNOWN_KEY_STALE_LIMIT)
}

/// The caller a key hash belongs to, from the database.
async fn look_up(store: Store, kind: KeyKind, hash: String) -> LookedUp {
    Ok(match kind {
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
    })
}

/// The caller of a request; UNAUTHENTICATED for a malformed, unknown or non-bearer credential.
#[tracing::instrument(skip_all)]
pub async fn authenticate(
    store: &Store,
    known: &Arc<KnownKeys>,
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
    known: &Arc<KnownKeys>,
    credential: &str,
) -> Result<Caller, ApiError> {
    let token = credential
        .strip_prefix("Bearer ")
        .ok_or_else(|| ApiError::unauthenticated("use `Authorization: Bearer <API key>`"))?;
    let key = ApiKey::parse(token.trim())?;
    let hash = key.hash();
    let unknown = || ApiError::unauthenticated("unknown API key");
    let found = match known.get(&hash) {
        Cached::Fresh(found) => found,
        Cached::Stale(caller) => {
            known.renew(store, key, hash);
            return Ok(caller);
        }
        // An unknown key is remembered too (briefly), so a client retrying a wrong key, or
        // guessing keys, costs no database look-up each time.
        Cached::Unknown => known.look_up_shared(store, &key, &hash).await?,
    };
    found.ok_or_else(unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `now` minus `ago`, or `None` on a machine up for less than that.
    fn ago(ago: Duration) -> Option<Instant> {
        Instant::now().checked_sub(ago)
    }

    #[test]
    fn a_channels_key_past_its_ttl_is_served_stale_until_the_limit_and_an_unknown_one_is_not() {
        let known = KnownKeys::default();
        let second = Duration::from_secs(1);
        let (Some(stale), Some(unknown), Some(too_old)) = (
            ago(KNOWN_KEY_TTL + second),
            ago(UNKNOWN_KEY_TTL + second),
            ago(KNOWN_KEY_STALE_LIMIT + second),
        ) else {
            return;
        };
        let maoyan = || Some(Caller::channel("maoyan".to_owned()));
        {
            let mut keys = known.keys.lock().unwrap();
            keys.insert("fresh".into(), (maoyan(), Instant::now()));
            keys.insert("stale".into(), (maoyan(), stale));
            keys.insert("unknown".into(), (None, unknown));
            keys.insert("too old".into(), (maoyan(), too_old));
        }
        assert!(matches!(known.get("fresh"), Cached::Fresh(Some(_))));
        assert!(matches!(known.get("stale"), Cached::Stale(_)));
        assert!(matches!(known.get("unknown"), Cached::Unknown));
        assert!(matches!(known.get("too old"), Cached::Unknown));
        assert!(matches!(known.get("never seen"), Cached::Unknown));
    }
}
