//! Sending a request's batches the moment the request can go no further without them.
//!
//! async-graphql resolves every field of a request inside the request's one task: when a poll
//! of the request returns `Pending` and nothing woke the task during that poll, every field
//! future is waiting, and those that need a document have put its key in a loader. That is
//! the moment to send each loader's batch: all keys of a level are in it (however long the
//! level took to resolve), and nothing waits for a timer. [`Driven`] polls the request and
//! does exactly that, polling the batches' fetches in the same task. A poll that woke the task
//! (async-graphql's `FuturesUnordered` wakes itself after polling each of its futures once,
//! to yield) sends nothing: the task is polled again at once, and sends then.
//!
//! Loaders whose request is not driven (the schema run without `schema::execute`, unit
//! tests) keep their quiet-period timer (`batch_loader`).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{fence, AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use futures::future::BoxFuture;
use futures::stream::{FuturesUnordered, StreamExt};
use futures::task::AtomicWaker;

/// A loader's keys waiting to be sent.
pub(super) trait Batch: Send + Sync {
    /// The fetch of the keys asked for so far, which answers their waiters; None when another
    /// call took them.
    fn take(&self) -> Option<BoxFuture<'static, ()>>;
}

/// What the loaders of one request share with its driver.
#[derive(Default)]
pub struct Dispatch {
    /// Whether a [`Driven`] polls the request: without one, loaders use their timer.
    driven: AtomicBool,
    /// Loaders with keys waiting, each once.
    waiting: Mutex<Vec<Arc<dyn Batch>>>,
    /// Whether the driver is inside a poll now (it sends what is waiting before it leaves).
    polling: AtomicBool,
    /// The request's task: woken when a key arrives outside a poll.
    task: AtomicWaker,
}

impl Dispatch {
    pub fn new() -> Arc<Self> {
        Arc::default()
    }

    pub(super) fn is_driven(&self) -> bool {
        self.driven.load(Ordering::SeqCst)
    }

    /// `batch` has keys waiting (called when its first key of a batch arrives).
    pub(super) fn wait(&self, batch: Arc<dyn Batch>) {
        self.waiting.lock().expect("dispatch lock").push(batch);
        // Paired with the fence after the driver's `polling = false`: one of the two sees
        // the other (a key is never left waiting unseen).
        fence(Ordering::SeqCst);
        if !self.polling.load(Ordering::SeqCst) {
            self.task.wake();
        }
    }

    fn take_waiting(&self) -> Vec<Arc<dyn Batch>> {
        std::mem::take(&mut *self.waiting.lock().expect("dispatch lock"))
    }

    fn anything_waiting(&self) -> bool {
        !self.waiting.lock().expect("dispatch lock").is_empty()
    }
}

/// Where the driver is in its poll, for [`Flag`].
const OUTSIDE: u8 = 0;
const IN_REQUEST: u8 = 1;
const IN_FETCHES: u8 = 2;

/// The waker the request is polled with: notes that the request was woken, and wakes its
/// task, except while the driver polls the fetches (it polls the request right after).
struct Flag {
    woken: AtomicBool,
    phase: AtomicU8,
    task: AtomicWaker,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        if self.phase.load(Ordering::SeqCst) != IN_FETCHES {
            self.task.wake();
        }
    }
}

/// A request's future, polled so that its batches go out as soon as it waits.
pub struct Driven<T> {
    request: T,
    dispatch: Arc<Dispatch>,
    flag: Arc<Flag>,
    waker: Waker,
    fetches: FuturesUnordered<BoxFuture<'static, ()>>,
}

impl<T> Driven<T> {
    /// Drives `request`, whose loaders share `dispatch`, from now on.
    pub fn new(request: T, dispatch: Arc<Dispatch>) -> Self {
        dispatch.driven.store(true, Ordering::SeqCst);
        let flag = Arc::new(Flag {
            woken: AtomicBool::new(false),
            phase: AtomicU8::new(OUTSIDE),
            task: AtomicWaker::new(),
        });
        Driven {
            request,
            dispatch,
            waker: Waker::from(Arc::clone(&flag)),
            flag,
            fetches: FuturesUnordered::new(),
        }
    }

    /// Polls the request with `poll` until it is ready, woke itself, or waits for nothing
    /// but batches that are not back yet.
    fn drive<R>(
        &mut self,
        cx: &mut Context<'_>,
        mut poll: impl FnMut(&mut T, &mut Context<'_>) -> Poll<R>,
    ) -> Poll<R> {
        self.flag.task.register(cx.waker());
        self.dispatch.task.register(cx.waker());
        self.dispatch.polling.store(true, Ordering::SeqCst);
        let polled = loop {
            // Answers that came in: the request goes on with them below.
            self.flag.phase.store(IN_FETCHES, Ordering::SeqCst);
            while let Poll::Ready(Some(())) = self.fetches.poll_next_unpin(cx) {}
            self.flag.woken.store(false, Ordering::SeqCst);
            self.flag.phase.store(IN_REQUEST, Ordering::SeqCst);
            let polled = poll(&mut self.request, &mut Context::from_waker(&self.waker));
            self.flag.phase.store(OUTSIDE, Ordering::SeqCst);
            if polled.is_ready() || self.flag.woken.load(Ordering::SeqCst) {
                break polled;
            }
            // Every field waits: send what they wait for.
            let batches = self.dispatch.take_waiting();
            if batches.is_empty() {
                break polled;
            }
            self.fetches
                .extend(batches.iter().filter_map(|batch| batch.take()));
            // Started once here (so their I/O is under way). One answered at once, or a wake
            // of the request meanwhile (not passed on to the task in this phase), lets the
            // request go on in this poll.
            self.flag.phase.store(IN_FETCHES, Ordering::SeqCst);
            let mut answered = false;
            while let Poll::Ready(Some(())) = self.fetches.poll_next_unpin(cx) {
                answered = true;
            }
            self.flag.phase.store(OUTSIDE, Ordering::SeqCst);
            if !answered && !self.flag.woken.load(Ordering::SeqCst) {
                break polled;
            }
        };
        self.dispatch.polling.store(false, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        // A key that arrived from elsewhere after the last look is not left waiting.
        if polled.is_pending() && self.dispatch.anything_waiting() {
            cx.waker().wake_by_ref();
        }
        polled
    }
}

impl<F: Future + Unpin> Future for Driven<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        self.get_mut()
            .drive(cx, |request, cx| Pin::new(request).poll(cx))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::atomic::AtomicUsize;

    use super::super::batch_loader::BatchLoader;
    use super::*;

    /// A loader counting its fetches, each of which answers after `delay`.
    fn loader(dispatch: &Arc<Dispatch>, calls: &Arc<AtomicUsize>) -> Arc<BatchLoader<u32, u32>> {
        let calls = Arc::clone(calls);
        let loader = BatchLoader::new(move |keys: Vec<u32>| {
            calls.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                Ok(keys
                    .into_iter()
                    .map(|key| (key, key * 10))
                    .collect::<HashMap<_, _>>())
            })
        });
        Arc::new(loader.dispatched_by(dispatch))
    }

    /// A level of fields, polled in a `FuturesUnordered` as async-graphql polls a list's.
    async fn level(fields: impl Iterator<Item = impl Future<Output = u32>>) -> Vec<u32> {
        fields.collect::<FuturesUnordered<_>>().collect().await
    }

    #[tokio::test]
    async fn a_level_s_keys_go_in_one_batch_and_the_next_level_in_the_next() {
        let (dispatch, calls) = (Dispatch::new(), Arc::new(AtomicUsize::new(0)));
        let loader = loader(&dispatch, &calls);
        // Two levels of 50 fields: each key of the second depends on the first's answer, and
        // the fields of a level are polled in a `FuturesUnordered` (which wakes itself to
        // yield after polling each once), as async-graphql's lists are.
        let request = level((0..50u32).map(|key| {
            let loader = Arc::clone(&loader);
            async move {
                let first = loader.load_one(key).await.unwrap().unwrap();
                loader.load_one(first + 1).await.unwrap().unwrap()
            }
        }));
        let answers = Driven::new(Box::pin(request), Arc::clone(&dispatch)).await;
        assert_eq!(answers.len(), 50);
        assert!(answers.iter().all(|answer| answer % 10 == 0));
        assert_eq!(calls.load(Ordering::SeqCst), 2, "one fetch per level");
    }

    #[tokio::test]
    async fn a_poll_cut_short_by_fields_that_yield_sends_nothing_yet() {
        let (dispatch, calls) = (Dispatch::new(), Arc::new(AtomicUsize::new(0)));
        let loader = loader(&dispatch, &calls);
        // Every other field yields before it asks (as one does whose resource is out of the
        // runtime's budget): `FuturesUnordered` returns after two of them, the rest of the
        // level not yet polled. Sending the keys asked by then would split the level.
        let request = level((0..50u32).map(|key| {
            let loader = Arc::clone(&loader);
            async move {
                if key % 2 == 1 {
                    tokio::task::yield_now().await;
                }
                loader.load_one(key).await.unwrap().unwrap()
            }
        }));
        let answers = Driven::new(Box::pin(request), Arc::clone(&dispatch)).await;
        assert_eq!(answers.len(), 50);
        assert_eq!(calls.load(Ordering::SeqCst), 1, "one fetch for the level");
    }

    #[tokio::test]
    async fn keys_asked_from_another_task_are_sent_too() {
        let (dispatch, calls) = (Dispatch::new(), Arc::new(AtomicUsize::new(0)));
        let loader = loader(&dispatch, &calls);
        let request = {
            let loader = Arc::clone(&loader);
            async move {
                // The request waits for a task that asks for a key after a while.
                let asked = tokio::spawn(async move {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    loader.load_one(7).await
                });
                asked.await.unwrap()
            }
        };
        let answer = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            Driven::new(Box::pin(request), dispatch),
        )
        .await
        .expect("the key is sent, not left waiting");
        assert_eq!(answer.unwrap(), Some(70));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn without_a_driver_the_loader_falls_back_to_its_timer() {
        let (dispatch, calls) = (Dispatch::new(), Arc::new(AtomicUsize::new(0)));
        let loader = loader(&dispatch, &calls);
        let answers = futures::future::join_all((0..10).map(|key| loader.load_one(key))).await;
        assert_eq!(answers.len(), 10);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
