//! Group commit: the requests that come for one document while a batch of them is being
//! written are the next batch, written together (issue 48). The holds of a showtime
//! (`holds::batch`) and its confirmations (`orders::confirm_batch`) go this way.
//!
//! The queue is a relay of leaders: the request that finds no batch running leads one, with
//! every request queued by then; when it is done it hands the lead to the oldest request that
//! queued meanwhile, which runs the next batch with everything queued by then. So no request
//! waits for more than the batch before its own, and no leader is kept from answering its own
//! client by the crowd behind it. A request waits at most until a second before its deadline,
//! and while still queued it withdraws, having sent nothing (OVERLOADED); past [`MAX_QUEUED`]
//! a request is refused at once. What a batch does is the caller's: this module only queues,
//! hands the lead over and carries the answers.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use tokio::sync::oneshot;

use crate::error::ApiError;
use crate::overload::deadline;
use crate::telemetry::metrics;

/// Most requests queued for one document's next batch in this process.
pub const MAX_QUEUED: usize = 256;

/// What a queued request hears: its answer, or that it leads the next batch.
pub enum Turn<J, A> {
    /// Boxed: answers can be large, and travel through a channel.
    Done(Box<Result<A, ApiError>>),
    Lead(J),
}

/// A queued request: its job, and where its answer goes.
pub struct Entry<J, A> {
    pub job: J,
    reply: oneshot::Sender<Turn<J, A>>,
    /// Its place in the queue, by which it withdraws.
    number: u64,
}

impl<J, A> Entry<J, A> {
    /// Answers the request (a request that gave up meanwhile is not told).
    pub fn answer(self, answer: Result<A, ApiError>) {
        let _ = self.reply.send(Turn::Done(Box::new(answer)));
    }

    /// Its job, and the rest of the entry to answer it with later.
    pub fn split(self) -> (J, Answerer<J, A>) {
        let answerer = Answerer {
            reply: self.reply,
            number: self.number,
        };
        (self.job, answerer)
    }
}

/// Answers one request whose job a batch took apart ([`Entry::split`]).
pub struct Answerer<J, A> {
    reply: oneshot::Sender<Turn<J, A>>,
    number: u64,
}

impl<J, A> Answerer<J, A> {
    pub fn answer(self, answer: Result<A, ApiError>) {
        let _ = self.reply.send(Turn::Done(Box::new(answer)));
    }

    /// The entry again, with `job` (to put back, or pass on).
    pub fn with(self, job: J) -> Entry<J, A> {
        Entry {
            job,
            reply: self.reply,
            number: self.number,
        }
    }
}

/// Answers every entry of `entries` with `error`.
pub fn refuse_all<J, A>(entries: Vec<Entry<J, A>>, error: &ApiError) {
    for entry in entries {
        entry.answer(Err(error.clone()));
    }
}

/// Answers a batch whose first read failed with `error`; returns the entries it leaves to the
/// next leader. When the door refused the leader, nothing was sent: the leader is refused, and
/// the others go back to the head of the queue (the door decides for each). Any other error is
/// everyone's.
pub fn read_failed<J, A>(mut entries: Vec<Entry<J, A>>, error: ApiError) -> Vec<Entry<J, A>> {
    if matches!(error, ApiError::Overloaded(_)) && !entries.is_empty() {
        entries.remove(0).answer(Err(error));
        return entries;
    }
    refuse_all(entries, &error);
    Vec::new()
}

/// One document's queue.
struct Queue<J, A> {
    waiting: VecDeque<Entry<J, A>>,
    /// Whether a request leads a batch now (or has been told to).
    led: bool,
}

impl<J, A> Default for Queue<J, A> {
    fn default() -> Self {
        Queue {
            waiting: VecDeque::new(),
            led: false,
        }
    }
}

/// The queues of this process, one per document `K` and admission (see [`Queues::run`]), of
/// jobs `J` answered with `A`.
pub struct Queues<K, J, A> {
    queues: Mutex<HashMap<Slot<K>, Queue<J, A>>>,
    numbers: AtomicU64,
}

impl<K, J, A> Default for Queues<K, J, A> {
    fn default() -> Self {
        Queues {
            queues: Mutex::new(HashMap::new()),
            numbers: AtomicU64::new(0),
        }
    }
}

impl<K, J, A> std::fmt::Debug for Queues<K, J, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queues").finish_non_exhaustive()
    }
}

/// A queue's key: the document, and whether its requests pass the door without waiting.
type Slot<K> = (K, bool);

/// How a request joins: it leads (no batch was running), or waits for its turn.
enum Joined<J, A> {
    Lead(J),
    Wait(u64, oneshot::Receiver<Turn<J, A>>),
}

impl<K: Hash + Eq + Copy, J, A> Queues<K, J, A> {
    fn join(&self, key: Slot<K>, job: J) -> Result<Joined<J, A>, ApiError> {
        let mut queues = self.queues.lock().expect("batch queues");
        let queue = queues.entry(key).or_default();
        if !queue.led {
            queue.led = true;
            return Ok(Joined::Lead(job));
        }
        if queue.waiting.len() >= MAX_QUEUED {
            metrics::overload_refused("showtime_queue");
            return Err(ApiError::Overloaded(format!(
                "{} requests are already waiting for this showtime's seats; retry in a moment",
                queue.waiting.len()
            )));
        }
        let (reply, turn) = oneshot::channel();
        let number = self.numbers.fetch_add(1, Ordering::Relaxed);
        queue.waiting.push_back(Entry { job, reply, number });
        Ok(Joined::Wait(number, turn))
    }

    /// Everything queued for `key` now (the leader's batch).
    fn take(&self, key: Slot<K>) -> Vec<Entry<J, A>> {
        let mut queues = self.queues.lock().expect("batch queues");
        (queues.get_mut(&key)).map_or_else(Vec::new, |queue| queue.waiting.drain(..).collect())
    }

    /// Puts `entries` back at the head of the queue, in their order (a leader the door
    /// refused leaves its batch to the next).
    fn requeue(&self, key: Slot<K>, entries: Vec<Entry<J, A>>) {
        let mut queues = self.queues.lock().expect("batch queues");
        let queue = queues.entry(key).or_default();
        for entry in entries.into_iter().rev() {
            queue.waiting.push_front(entry);
        }
    }

    /// Takes entry `number` out of the queue if it is still there (it has not been batched).
    fn withdraw(&self, key: Slot<K>, number: u64) -> bool {
        let mut queues = self.queues.lock().expect("batch queues");
        let Some(queue) = queues.get_mut(&key) else {
            return false;
        };
        let before = queue.waiting.len();
        queue.waiting.retain(|entry| entry.number != number);
        queue.waiting.len() < before
    }

    /// The batch is done: the oldest request queued meanwhile leads the next one (one that
    /// gave up is skipped: it sent nothing); with none, no batch runs.
    fn hand_over(&self, key: Slot<K>) {
        let mut queues = self.queues.lock().expect("batch queues");
        let Some(queue) = queues.get_mut(&key) else {
            return;
        };
        while let Some(entry) = queue.waiting.pop_front() {
            if entry.reply.send(Turn::Lead(entry.job)).is_ok() {
                return;
            }
        }
        queues.remove(&key);
    }

    /// Runs `job` in the next batch of `key`'s jobs. Requests that pass the door without
    /// waiting (admitted already) and those that would wait for a place batch apart: a batch
    /// led by a request waiting at the door must not keep admitted requests waiting behind it,
    /// holding places the leader waits for. A request that leads awaits
    /// `before_take()`, takes everything queued, and runs `batch` on it (its own entry first);
    /// `batch` answers every entry, and returns those it did not serve because the door
    /// refused the leader before anything was sent (they go back to the head of the queue,
    /// and the next leads them).
    pub async fn run<B, BF, T, TF>(
        &self,
        key: K,
        job: J,
        before_take: T,
        on_queued: impl FnOnce(),
        batch: B,
    ) -> Result<A, ApiError>
    where
        T: Fn() -> TF,
        TF: Future<Output = ()>,
        B: Fn(Vec<Entry<J, A>>) -> BF,
        BF: Future<Output = Vec<Entry<J, A>>>,
    {
        let key = (key, deadline::passes_door());
        let (number, mut turn) = match self.join(key, job)? {
            Joined::Lead(job) => return self.lead(key, job, &before_take, &batch).await,
            Joined::Wait(number, turn) => (number, turn),
        };
        on_queued();
        let waited = match deadline::remaining() {
            Some(left) => {
                let wait = left.saturating_sub(deadline::LAST_SECOND);
                tokio::time::timeout(wait, &mut turn).await
            }
            None => Ok((&mut turn).await),
        };
        let turn = match waited {
            Ok(turn) => turn,
            Err(_) if self.withdraw(key, number) => {
                metrics::overload_refused("showtime_queue");
                return Err(ApiError::Overloaded(
                    "the request's time ran out waiting for this showtime's seats; retry in a \
                     moment"
                        .to_owned(),
                ));
            }
            // A batch took it, or it was told to lead: its answer comes.
            Err(_) => turn.await,
        };
        match turn {
            Ok(Turn::Done(answer)) => *answer,
            Ok(Turn::Lead(job)) => self.lead(key, job, &before_take, &batch).await,
            // The leader's request was dropped mid-batch: the job may or may not be done.
            Err(_) => Err(ApiError::unavailable(
                "the showtime's batch was interrupted; retry with the idempotency key",
            )),
        }
    }

    /// Leads one batch: `own` and everything queued now; answers the others, returns its own.
    async fn lead<B, BF, T, TF>(
        &self,
        key: Slot<K>,
        own: J,
        before_take: &T,
        batch: &B,
    ) -> Result<A, ApiError>
    where
        T: Fn() -> TF,
        TF: Future<Output = ()>,
        B: Fn(Vec<Entry<J, A>>) -> BF,
        BF: Future<Output = Vec<Entry<J, A>>>,
    {
        let _leading = Leading { queues: self, key };
        let (reply, own_answer) = oneshot::channel();
        before_take().await;
        let number = self.numbers.fetch_add(1, Ordering::Relaxed);
        let mut entries = vec![Entry {
            job: own,
            reply,
            number,
        }];
        entries.extend(self.take(key));
        let unserved = batch(entries).await;
        if !unserved.is_empty() {
            self.requeue(key, unserved);
        }
        match own_answer.await {
            Ok(Turn::Done(answer)) => *answer,
            _ => Err(ApiError::internal(
                "the batch left its leader without an answer",
            )),
        }
    }
}

/// Hands the lead over when the leader is done, also when its request is dropped mid-batch
/// (a timeout): the queue never waits for a leader that is gone.
struct Leading<'a, K: Hash + Eq + Copy, J, A> {
    queues: &'a Queues<K, J, A>,
    key: Slot<K>,
}

impl<K: Hash + Eq + Copy, J, A> Drop for Leading<'_, K, J, A> {
    fn drop(&mut self) {
        self.queues.hand_over(self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Test = Queues<u8, u32, ()>;

    fn entry(number: u64) -> (Entry<u32, ()>, oneshot::Receiver<Turn<u32, ()>>) {
        let (reply, turn) = oneshot::channel();
        let entry = Entry {
            job: number as u32,
            reply,
            number,
        };
        (entry, turn)
    }

    fn led(turn: &mut oneshot::Receiver<Turn<u32, ()>>) -> Option<u32> {
        match turn.try_recv() {
            Ok(Turn::Lead(job)) => Some(job),
            _ => None,
        }
    }

    #[test]
    fn the_first_request_leads_the_next_wait_and_the_lead_passes_to_the_oldest() {
        let queues = Test::default();
        assert!(matches!(queues.join((1, true), 1), Ok(Joined::Lead(1))));
        let Ok(Joined::Wait(_, mut second)) = queues.join((1, true), 2) else {
            panic!("a batch runs: the second waits");
        };
        let Ok(Joined::Wait(_, mut third)) = queues.join((1, true), 3) else {
            panic!("and so does the third");
        };
        // Another document has its own queue.
        assert!(matches!(queues.join((2, true), 4), Ok(Joined::Lead(4))));
        queues.hand_over((1, true));
        assert_eq!(led(&mut second), Some(2), "the oldest leads next");
        assert!(third.try_recv().is_err(), "the third still waits");
        let taken = queues.take((1, true));
        assert_eq!(taken.len(), 1, "the new leader's batch takes the third");
        drop(taken);
        queues.hand_over((1, true));
        assert!(
            matches!(queues.join((1, true), 5), Ok(Joined::Lead(5))),
            "no one waits: the next request leads"
        );
    }

    #[test]
    fn requests_that_pass_the_door_and_those_that_wait_at_it_batch_apart() {
        let queues = Test::default();
        assert!(matches!(queues.join((1, false), 1), Ok(Joined::Lead(1))));
        // An admitted request does not wait behind a leader that waits at the door.
        assert!(matches!(queues.join((1, true), 2), Ok(Joined::Lead(2))));
        assert!(matches!(queues.join((1, true), 3), Ok(Joined::Wait(..))));
    }

    #[test]
    fn a_request_still_queued_withdraws_and_one_that_gave_up_is_skipped() {
        let queues = Test::default();
        let _lead = queues.join((1, true), 1);
        let gone = queues.join((1, true), 2);
        let Ok(Joined::Wait(kept_number, mut kept)) = queues.join((1, true), 3) else {
            panic!("waits");
        };
        assert!(queues.withdraw((1, true), kept_number));
        assert!(!queues.withdraw((1, true), kept_number), "once");
        let Ok(Joined::Wait(_, mut last)) = queues.join((1, true), 4) else {
            panic!("waits");
        };
        drop(gone);
        queues.hand_over((1, true));
        assert!(kept.try_recv().is_err(), "withdrawn: never told");
        assert_eq!(led(&mut last), Some(4), "the gone one is skipped");
    }

    #[test]
    fn entries_put_back_lead_next_in_their_order() {
        let queues = Test::default();
        let _lead = queues.join((1, true), 1);
        let Ok(Joined::Wait(_, mut later)) = queues.join((1, true), 4) else {
            panic!("waits");
        };
        let (first, mut first_turn) = entry(100);
        let (second, mut second_turn) = entry(101);
        queues.requeue((1, true), vec![first, second]);
        queues.hand_over((1, true));
        assert_eq!(led(&mut first_turn), Some(100));
        let taken: Vec<u32> = queues.take((1, true)).into_iter().map(|e| e.job).collect();
        assert_eq!(taken, [101, 4], "then the rest, in order");
        assert!(second_turn.try_recv().is_err() && later.try_recv().is_err());
    }

    #[test]
    fn past_the_cap_a_request_is_refused_at_once() {
        let queues = Test::default();
        let _lead = queues.join((1, true), 0);
        let waiting: Vec<_> = (0..MAX_QUEUED)
            .map(|i| {
                let Ok(joined) = queues.join((1, true), i as u32) else {
                    panic!("room for {i}");
                };
                joined
            })
            .collect();
        assert!(matches!(
            queues.join((1, true), 1),
            Err(ApiError::Overloaded(_))
        ));
        drop(waiting);
    }

    #[test]
    fn a_leader_refused_at_the_door_hands_the_others_back_and_other_errors_are_everyones() {
        let (leader, mut leader_turn) = entry(1);
        let (other, mut other_turn) = entry(2);
        let back = read_failed(vec![leader, other], ApiError::Overloaded("full".into()));
        assert_eq!(back.iter().map(|e| e.job).collect::<Vec<_>>(), [2]);
        assert!(matches!(leader_turn.try_recv(), Ok(Turn::Done(answer)) if answer.is_err()));
        assert!(
            other_turn.try_recv().is_err(),
            "not answered: it waits for the next leader"
        );
        drop(back);
        let (leader, mut leader_turn) = entry(3);
        let (other, mut other_turn) = entry(4);
        let back = read_failed(vec![leader, other], ApiError::internal("down"));
        assert!(back.is_empty());
        for turn in [&mut leader_turn, &mut other_turn] {
            assert!(matches!(turn.try_recv(), Ok(Turn::Done(answer)) if answer.is_err()));
        }
    }

    #[tokio::test]
    async fn a_batch_answers_every_request_and_the_leader_gets_its_own() {
        let queues = std::sync::Arc::new(Queues::<u8, u32, u32>::default());
        let batches = std::sync::Arc::new(AtomicU64::new(0));
        let run = |job: u32| {
            let (queues, batches) = (queues.clone(), batches.clone());
            async move {
                let batch = |entries: Vec<Entry<u32, u32>>| {
                    let batches = batches.clone();
                    async move {
                        batches.fetch_add(1, Ordering::Relaxed);
                        tokio::task::yield_now().await;
                        for entry in entries {
                            let doubled = entry.job * 2;
                            entry.answer(Ok(doubled));
                        }
                        Vec::new()
                    }
                };
                queues.run(7, job, || async {}, || {}, batch).await
            }
        };
        let answers = futures::future::join_all((0..40).map(run)).await;
        for (job, answer) in answers.into_iter().enumerate() {
            assert_eq!(answer.unwrap(), job as u32 * 2);
        }
        let batches = batches.load(Ordering::Relaxed);
        assert!(batches < 40, "requests shared batches: {batches}");
    }
}
