//! The door: whether a request may use the database, decided before its first command.
//!
//! A request is admitted when fewer than the limit ([`super::limit`], which follows the
//! database's latency) are in flight; once admitted it keeps its place until it ends, so its
//! later commands are never refused for load (a hold placed is never left standing by a
//! refused confirmation of the same request). A request that finds the limit reached waits
//! in a short queue, and is refused (OVERLOADED, 503 with `Retry-After`) when no place comes
//! free in time, having sent nothing.
//!
//! The queue follows "Fail at Scale" (ACM Queue, 2015): CoDel-style deadlines and adaptive
//! LIFO. While the queue empties now and then, a waiter may wait the door's wait
//! (`--admission-wait-ms`, [`CALM_WAIT`]); once it has not been empty for [`INTERVAL`], the
//! gateway is behind, and a newcomer waits only an eighth of that and places go to the
//! newest waiters first (the oldest are the likeliest to
//! have been given up on by their clients, and a standing queue only adds its length to
//! every answer).
//!
//! Requests that finish a purchase (a confirmation, a release, a cancellation: [`Class::Finish`])
//! are admitted whatever the limit: they are what frees seats for the next buyer, there are
//! no more of them than holds were admitted, and refusing one leaves a placed hold keeping
//! its seats from everyone until it expires.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::limit::AdaptiveLimit;
use crate::error::ApiError;

/// How long a newcomer may wait for a place while the queue keeps emptying, by default (an
/// eighth of it once the queue has stood for [`INTERVAL`]).
pub const CALM_WAIT: Duration = Duration::from_millis(40);
/// How long the queue may stand before the gateway counts as behind.
pub const INTERVAL: Duration = Duration::from_millis(100);
/// Most requests waiting at once; one more is refused at once.
pub const MAX_WAITING: usize = 256;
/// The lowest the limit goes: a database slower than ever still gets some work.
pub const MIN_LIMIT: usize = 2;

/// What a request does, for its place in line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Reads and every other write: waits for a place.
    Read,
    /// Starts a purchase (a hold): waits for a place.
    Start,
    /// Finishes one (confirm, release, cancel): admitted whatever the limit.
    Finish,
}

/// The door of one process (its requests' lane); cheap to clone.
#[derive(Debug, Clone)]
pub struct Door {
    inner: Arc<Mutex<State>>,
    /// How long a newcomer waits while the queue keeps emptying.
    calm_wait: Duration,
}

#[derive(Debug)]
struct State {
    limit: AdaptiveLimit,
    in_flight: usize,
    waiting: VecDeque<oneshot::Sender<Ticket>>,
    /// When the queue was last seen empty.
    empty_at: Instant,
}

/// A request's place, given back when dropped.
#[derive(Debug)]
pub struct Ticket {
    door: Option<Arc<Mutex<State>>>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some(door) = self.door.take() {
            let mut state = door.lock().expect("door");
            state.in_flight -= 1;
            hand_over(&door, &mut state);
        }
    }
}

impl Door {
    /// A door whose limit moves between [`MIN_LIMIT`] and `ceiling` (the connections there
    /// are), where a newcomer waits at most `wait` for a place.
    pub fn new(ceiling: usize, wait: Duration) -> Self {
        let now = Instant::now();
        let ceiling = ceiling.max(1);
        Door {
            inner: Arc::new(Mutex::new(State {
                limit: AdaptiveLimit::new(ceiling.div_ceil(2), MIN_LIMIT, ceiling, now),
                in_flight: 0,
                waiting: VecDeque::new(),
                empty_at: now,
            })),
            calm_wait: wait,
        }
    }

    /// A place for a request of `class` that has `left` of its time, or OVERLOADED once no
    /// place came free within the queue's wait.
    pub async fn admit(&self, class: Class, left: Duration) -> Result<Ticket, ApiError> {
        let receiver = {
            let mut state = self.inner.lock().expect("door");
            let now = Instant::now();
            state.waiting.retain(|waiter| !waiter.is_closed());
            if state.waiting.is_empty() {
                state.empty_at = now;
            }
            let free = state.in_flight < state.limit.get() && state.waiting.is_empty();
            if class == Class::Finish || free {
                state.in_flight += 1;
                return Ok(self.ticket());
            }
            if state.waiting.len() >= MAX_WAITING {
                return Err(refusal(state.limit.get()));
            }
            let (sender, receiver) = oneshot::channel();
            state.waiting.push_back(sender);
            let wait = if now.saturating_duration_since(state.empty_at) > INTERVAL {
                self.calm_wait / 8
            } else {
                self.calm_wait
            };
            (receiver, wait.min(left), state.limit.get())
        };
        let (receiver, wait, limit) = receiver;
        match tokio::time::timeout(wait, receiver).await {
            Ok(Ok(ticket)) => Ok(ticket),
            _ => Err(refusal(limit)),
        }
    }

    /// A command of an admitted request answered in `latency`.
    pub fn answered(&self, latency: Duration) {
        let mut state = self.inner.lock().expect("door");
        let in_flight = state.in_flight;
        state.limit.sample(latency, in_flight, Instant::now());
        hand_over(&self.inner, &mut state);
    }

    /// A command that got no answer within its time.
    pub fn timed_out(&self) {
        self.inner.lock().expect("door").limit.timed_out();
    }

    /// The limit now.
    pub fn limit(&self) -> usize {
        self.inner.lock().expect("door").limit.get()
    }

    /// Requests admitted and not finished.
    pub fn in_flight(&self) -> usize {
        self.inner.lock().expect("door").in_flight
    }

    /// Takes `count` places until the tickets are dropped, whatever the limit (tests: a door
    /// with no place free).
    #[cfg(feature = "test-hooks")]
    pub fn occupy(&self, count: usize) -> Vec<Ticket> {
        (0..count)
            .map(|_| {
                self.inner.lock().expect("door").in_flight += 1;
                self.ticket()
            })
            .collect()
    }

    fn ticket(&self) -> Ticket {
        Ticket {
            door: Some(Arc::clone(&self.inner)),
        }
    }
}

/// Gives free places to waiters: the oldest first while the queue keeps emptying, the newest
/// once it has stood for [`INTERVAL`].
fn hand_over(door: &Arc<Mutex<State>>, state: &mut State) {
    let now = Instant::now();
    while state.in_flight < state.limit.get() {
        let behind = now.saturating_duration_since(state.empty_at) > INTERVAL;
        let next = if behind {
            state.waiting.pop_back()
        } else {
            state.waiting.pop_front()
        };
        let Some(waiter) = next else { break };
        state.in_flight += 1;
        let ticket = Ticket {
            door: Some(Arc::clone(door)),
        };
        if let Err(mut unsent) = waiter.send(ticket) {
            // The waiter gave up: its place is not taken (and the ticket must not give it back
            // through the lock held here).
            unsent.door = None;
            state.in_flight -= 1;
        }
    }
    if state.waiting.is_empty() {
        state.empty_at = now;
    }
}

fn refusal(limit: usize) -> ApiError {
    crate::telemetry::metrics::overload_refused("admission");
    ApiError::Overloaded(format!(
        "the database is as busy as this gateway lets it be ({limit} requests at once); retry \
         in a moment"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    const LONG: Duration = Duration::from_secs(5);

    /// A door whose limit is `limit` (its ceiling; the limit starts at half of it, so it is
    /// raised by commands answered quickly while the door is full).
    async fn door_of(limit: usize) -> Door {
        let door = Door::new(limit, CALM_WAIT);
        let places = door.occupy(limit);
        let mut now = 0;
        while door.limit() < limit {
            door.answered(Duration::from_millis(1));
            now += 1;
            if now % 8 == 0 {
                tokio::time::sleep(super::super::limit::WINDOW_TIME).await;
            }
        }
        drop(places);
        door
    }

    #[tokio::test]
    async fn past_the_limit_a_request_waits_briefly_then_is_refused() {
        let door = door_of(2).await;
        let _first = door.admit(Class::Read, LONG).await.unwrap();
        let _second = door.admit(Class::Start, LONG).await.unwrap();
        let started = Instant::now();
        let refused = door.admit(Class::Start, LONG).await.unwrap_err();
        assert_eq!(refused.code(), ErrorCode::Unavailable);
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(refused.effect_unknown(), "a retry runs again");
        assert_eq!(door.in_flight(), 2);
    }

    #[tokio::test]
    async fn a_request_finishing_a_purchase_is_admitted_whatever_the_limit() {
        let door = door_of(2).await;
        let _taken = door.occupy(2);
        let finish = door
            .admit(Class::Finish, LONG)
            .await
            .expect("never refused");
        assert_eq!(door.in_flight(), 3);
        drop(finish);
        assert_eq!(door.in_flight(), 2);
    }

    #[tokio::test]
    async fn a_place_given_back_goes_to_a_waiter() {
        let door = door_of(1).await;
        let first = door.admit(Class::Read, LONG).await.unwrap();
        let waiting = {
            let door = door.clone();
            tokio::spawn(async move { door.admit(Class::Start, LONG).await.map(drop) })
        };
        tokio::task::yield_now().await;
        drop(first);
        waiting
            .await
            .unwrap()
            .expect("admitted once the place was free");
        assert_eq!(door.in_flight(), 0, "and its place given back");
    }

    #[tokio::test]
    async fn a_waiter_that_gave_up_takes_no_place() {
        let door = door_of(1).await;
        let first = door.admit(Class::Read, LONG).await.unwrap();
        door.admit(Class::Read, Duration::from_millis(1))
            .await
            .expect_err("gave up");
        drop(first);
        assert_eq!(door.in_flight(), 0);
        let _again = door.admit(Class::Read, LONG).await.expect("a place");
    }

    /// Two waiters, "old" then "new", for a door of one place held; `behind` makes the queue
    /// look as if it had stood for longer than [`INTERVAL`]. Which is admitted first.
    async fn first_served(behind: bool) -> &'static str {
        let door = door_of(1).await;
        let held = door.admit(Class::Read, LONG).await.unwrap();
        let (sender, mut order) = tokio::sync::mpsc::unbounded_channel();
        let spawn = |name: &'static str| {
            let (door, sender) = (door.clone(), sender.clone());
            tokio::spawn(async move {
                if let Ok(ticket) = door.admit(Class::Read, LONG).await {
                    sender.send(name).unwrap();
                    drop(ticket);
                }
            })
        };
        let old = spawn("old");
        while door.inner.lock().unwrap().waiting.is_empty() {
            tokio::task::yield_now().await;
        }
        let new = spawn("new");
        while door.inner.lock().unwrap().waiting.len() < 2 {
            tokio::task::yield_now().await;
        }
        if behind {
            door.inner.lock().unwrap().empty_at -= 2 * INTERVAL;
        }
        drop(held);
        let first = order.recv().await.unwrap();
        new.await.unwrap();
        old.await.unwrap();
        first
    }

    #[tokio::test]
    async fn while_the_queue_keeps_emptying_the_oldest_waiter_goes_first() {
        assert_eq!(first_served(false).await, "old");
    }

    #[tokio::test]
    async fn once_the_queue_has_stood_the_newest_waiter_goes_first() {
        assert_eq!(first_served(true).await, "new");
    }

    #[tokio::test]
    async fn a_full_queue_refuses_at_once() {
        let door = door_of(1).await;
        let _held = door.admit(Class::Read, LONG).await.unwrap();
        let waiters: Vec<_> = (0..MAX_WAITING)
            .map(|_| {
                let door = door.clone();
                tokio::spawn(async move { door.admit(Class::Read, LONG).await.map(drop) })
            })
            .collect();
        while door.inner.lock().unwrap().waiting.len() < MAX_WAITING {
            tokio::task::yield_now().await;
        }
        let started = Instant::now();
        door.admit(Class::Start, LONG).await.expect_err("full");
        assert!(started.elapsed() < CALM_WAIT / 8, "refused without waiting");
        for waiter in waiters {
            let _ = waiter.await.unwrap();
        }
    }
}
