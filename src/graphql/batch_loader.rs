//! A request-scoped batch loader: every key asked for while a level of the query resolves is
//! fetched with one call.
//!
//! In a request run by `schema::execute` a batch goes out when the request can go no further
//! without it (`dispatch`): no timer. Elsewhere (subscriptions, the schema run on its own) the
//! loader waits until keys stop arriving for a quiet period, with a ceiling: a fixed delay
//! after the first key, as async-graphql's own DataLoader has, would split a level that takes
//! longer to resolve on a loaded machine.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::dispatch::{Batch, Dispatch};
use crate::error::ApiError;

/// A batch is sent once no key has arrived for this long...
const QUIET: Duration = Duration::from_millis(1);
/// ...or this long after its first key, whichever comes first.
const MAX_WAIT: Duration = Duration::from_millis(20);

type Fetch<K, V> =
    Box<dyn Fn(Vec<K>) -> BoxFuture<'static, Result<HashMap<K, V>, ApiError>> + Send + Sync>;
type Waiter<K, V> = (K, oneshot::Sender<Result<Option<V>, ApiError>>);

/// Loads values by key in batches; clone-free values should be `Arc`s.
pub struct BatchLoader<K, V> {
    inner: Arc<Inner<K, V>>,
}

struct Inner<K, V> {
    pending: Mutex<Pending<K, V>>,
    fetch: Fetch<K, V>,
    /// The request's dispatch, which sends batches when the request is driven.
    dispatch: Option<Arc<Dispatch>>,
}

struct Pending<K, V> {
    keys: HashSet<K>,
    waiters: Vec<Waiter<K, V>>,
    /// Counts keys asked for, so the dispatcher can tell whether more arrived while it waited.
    arrivals: u64,
    dispatcher_running: bool,
    /// Whether the dispatch knows this loader has keys waiting.
    queued: bool,
}

impl<K, V> Pending<K, V> {
    /// The keys asked for so far and their waiters, leaving none.
    fn drain(&mut self) -> (HashSet<K>, Vec<Waiter<K, V>>) {
        (
            std::mem::take(&mut self.keys),
            std::mem::take(&mut self.waiters),
        )
    }
}

impl<K, V> BatchLoader<K, V>
where
    K: Clone + Eq + Hash + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    /// A loader that fetches a batch of distinct keys with `fetch`.
    pub fn new<F>(fetch: F) -> Self
    where
        F: Fn(Vec<K>) -> BoxFuture<'static, Result<HashMap<K, V>, ApiError>>
            + Send
            + Sync
            + 'static,
    {
        BatchLoader {
            inner: Arc::new(Inner {
                pending: Mutex::new(Pending {
                    keys: HashSet::new(),
                    waiters: Vec::new(),
                    arrivals: 0,
                    dispatcher_running: false,
                    queued: false,
                }),
                fetch: Box::new(fetch),
                dispatch: None,
            }),
        }
    }

    /// The same loader, sending its batches through `dispatch` when its request is driven.
    pub fn dispatched_by(mut self, dispatch: &Arc<Dispatch>) -> Self {
        Arc::get_mut(&mut self.inner)
            .expect("a new loader is not shared yet")
            .dispatch = Some(Arc::clone(dispatch));
        self
    }

    /// The value of `key`, `None` when there is none; fetched with the other keys of its batch.
    pub async fn load_one(&self, key: K) -> Result<Option<V>, ApiError> {
        let (sender, receiver) = oneshot::channel();
        let driven = (self.inner.dispatch.as_ref()).filter(|dispatch| dispatch.is_driven());
        let start = {
            let mut pending = self.inner.pending.lock().expect("loader lock");
            pending.keys.insert(key.clone());
            pending.waiters.push((key, sender));
            pending.arrivals += 1;
            if driven.is_some() {
                !std::mem::replace(&mut pending.queued, true)
            } else {
                !std::mem::replace(&mut pending.dispatcher_running, true)
            }
        };
        match driven {
            Some(dispatch) if start => dispatch.wait(Arc::clone(&self.inner) as Arc<dyn Batch>),
            None if start => {
                tokio::spawn(Arc::clone(&self.inner).dispatch());
            }
            _ => {}
        }
        receiver
            .await
            .map_err(|_| ApiError::internal("a batch loader stopped before answering"))?
    }
}

impl<K, V> Inner<K, V>
where
    K: Clone + Eq + Hash + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    async fn dispatch(self: Arc<Self>) {
        let started = Instant::now();
        loop {
            let seen = self.pending.lock().expect("loader lock").arrivals;
            tokio::time::sleep(QUIET).await;
            let now = self.pending.lock().expect("loader lock").arrivals;
            if now == seen || started.elapsed() >= MAX_WAIT {
                break;
            }
        }
        let (keys, waiters) = {
            let mut pending = self.pending.lock().expect("loader lock");
            pending.dispatcher_running = false;
            pending.drain()
        };
        self.fetch_and_answer(keys, waiters).await;
    }

    /// Fetches `keys` and tells each waiter its value.
    fn fetch_and_answer(
        &self,
        keys: HashSet<K>,
        waiters: Vec<Waiter<K, V>>,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let fetched = (self.fetch)(keys.into_iter().collect());
        async move {
            answer(fetched.await, waiters);
        }
    }
}

impl<K, V> Batch for Inner<K, V>
where
    K: Clone + Eq + Hash + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    fn take(&self) -> Option<BoxFuture<'static, ()>> {
        let (keys, waiters) = {
            let mut pending = self.pending.lock().expect("loader lock");
            pending.queued = false;
            if pending.waiters.is_empty() {
                return None;
            }
            pending.drain()
        };
        Some(Box::pin(self.fetch_and_answer(keys, waiters)))
    }
}

/// Tells each waiter its value from `result`.
fn answer<K, V>(result: Result<HashMap<K, V>, ApiError>, waiters: Vec<Waiter<K, V>>)
where
    K: Eq + Hash,
    V: Clone,
{
    for (key, waiter) in waiters {
        let answer = match &result {
            Ok(values) => Ok(values.get(&key).cloned()),
            Err(error) => Err(error.clone()),
        };
        // The requester may have gone (a cancelled request): nothing to tell it.
        let _ = waiter.send(answer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn counting_loader(calls: Arc<AtomicUsize>) -> BatchLoader<u32, String> {
        BatchLoader::new(move |keys: Vec<u32>| {
            calls.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                Ok(keys
                    .into_iter()
                    .filter(|k| k % 2 == 0)
                    .map(|k| (k, format!("v{k}")))
                    .collect())
            })
        })
    }

    #[tokio::test]
    async fn keys_asked_together_are_fetched_in_one_call() {
        let calls = Arc::new(AtomicUsize::new(0));
        let loader = counting_loader(Arc::clone(&calls));
        let answers = futures::future::join_all((0..50).map(|k| loader.load_one(k % 10))).await;
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(answers[4].as_ref().unwrap().as_deref(), Some("v4"));
        assert_eq!(answers[3].as_ref().unwrap(), &None);
    }

    #[tokio::test]
    async fn slowly_arriving_keys_still_share_a_batch() {
        let calls = Arc::new(AtomicUsize::new(0));
        let loader = Arc::new(counting_loader(Arc::clone(&calls)));
        let tasks: Vec<_> = (0..10u32)
            .map(|k| {
                let loader = Arc::clone(&loader);
                async move {
                    // Each key arrives a little after the previous one, well within QUIET.
                    tokio::time::sleep(Duration::from_micros(100 * k as u64)).await;
                    loader.load_one(k).await
                }
            })
            .collect();
        futures::future::join_all(tasks).await;
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_failed_fetch_fails_every_waiter() {
        let loader: BatchLoader<u32, String> =
            BatchLoader::new(|_| Box::pin(async { Err(ApiError::internal("down")) }));
        let (a, b) = tokio::join!(loader.load_one(1), loader.load_one(2));
        assert!(a.is_err() && b.is_err());
    }
}
