//! The door: whether a request may use the database, decided before its first command.
//!
//! A request is admitted when fewer than the limit ([`super::limit`], which follows the
//! database's latency) are in flight; once admitted it keeps its place until it ends, so its
//! later commands are never refused for load (a hold placed is never left standing by a
//! refused confirmation of the same request). A request that finds the limit reached joins a
//! queue, first come first served, when the places come free often enough for its turn to
//! come within the door's wait (`--admission-wait-ms`, 2 s), by how long places are held and
//! how often the line has been served lately ([`super::wait_estimate`]). One that would wait
//! longer is refused at once (OVERLOADED, 503 with `Retry-After`), having sent nothing: a
//! refusal costs the crowd no queueing and the client no wait. A queued request whose turn
//! does not come within the wait after all is refused then, having sent nothing either.
//!
//! Why not a short fixed wait (the 40 ms of `--db-pool-wait-ms` before, or CoDel's 5 ms
//! under a standing queue): 64 buyers at once on a gateway that serves 16 at a time always
//! have 48 waiting, each for a few tens of milliseconds; refusing them instead refused seven
//! purchases in ten (issue 48) while the database had room for all of them a moment later.
//! A queue only hurts when it makes requests outlive their clients; the estimate refuses
//! exactly those, and at once.
//!
//! Requests that finish a purchase (a confirmation, a release, a cancellation: [`Class::Finish`])
//! are never refused here: they are what frees seats for the next buyer, and refusing one
//! leaves a placed hold keeping its seats from everyone until it expires. They wait in a line
//! of their own, served before any other, for as long as their deadline allows; they do not
//! pass the limit, which would let a crowd of confirmations take the database past its
//! capacity, the collapse the limit is there to prevent.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use super::limit::{in_probe_slot, AdaptiveLimit};
use super::wait_estimate::WaitEstimate;
use crate::error::ApiError;

/// How long a request may wait for its place, by default. 64 buyers in a closed loop on
/// this machine's database (77 to 88 hold-and-confirm pairs a second) wait about 0.8 s for
/// each hold's turn, and the estimate of it swings around that: with 1 s, 14 to 22% of their
/// holds were refused at once; with 2 s, none (issue 48). A buyer's app waits 2 s without
/// complaint, and the request's own time (`--request-timeout-ms`, 10 s) leaves it room to run.
pub const WAIT: Duration = Duration::from_secs(2);
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
    /// How long a request may wait for its place.
    wait: Duration,
}

#[derive(Debug)]
struct State {
    limit: AdaptiveLimit,
    /// Whether the limit probes the database in the wall clock's slots (`limit`).
    probes: bool,
    in_flight: usize,
    waiting: VecDeque<oneshot::Sender<Ticket>>,
    /// Requests that finish a purchase, served before `waiting`.
    finishing: VecDeque<oneshot::Sender<Ticket>>,
    /// How long a turn takes to come, from what places and the line did lately.
    estimate: WaitEstimate,
    /// How many requests were in flight or waiting, over time.
    load: Load,
}

/// The requests in flight or waiting, integrated over time: what this gateway wanted of the
/// database on average since it was last asked (`Door::take_demand`).
#[derive(Debug)]
struct Load {
    /// Request-seconds since `from`, counted up to `at`.
    area: f64,
    at: Instant,
    from: Instant,
}

impl Load {
    fn new(now: Instant) -> Self {
        Load {
            area: 0.0,
            at: now,
            from: now,
        }
    }

    /// `requests` were in flight or waiting since the last count.
    fn count(&mut self, requests: usize, now: Instant) {
        let since = now.saturating_duration_since(self.at);
        self.area += since.as_secs_f64() * requests as f64;
        self.at = self.at.max(now);
    }

    /// The average since the last time it was taken (`requests` now, over no time), and
    /// starts again.
    fn take(&mut self, requests: usize, now: Instant) -> f64 {
        self.count(requests, now);
        let span = now.saturating_duration_since(self.from).as_secs_f64();
        let average = if span > 0.0 {
            self.area / span
        } else {
            requests as f64
        };
        *self = Load::new(now);
        average
    }
}

/// A request's place, given back when dropped.
#[derive(Debug)]
pub struct Ticket {
    door: Option<Arc<Mutex<State>>>,
    since: Instant,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some(door) = self.door.take() {
            let now = Instant::now();
            let held = now.saturating_duration_since(self.since);
            let mut state = door.lock().expect("door");
            state.count_load(now);
            state.in_flight -= 1;
            state.estimate.place_held(held);
            hand_over(&door, &mut state);
        }
    }
}

impl Door {
    /// A door whose limit moves between [`MIN_LIMIT`] and `ceiling` (the connections there
    /// are), where a request waits at most `wait` for a place, and whose limit measures the
    /// database in probe slots if `probes` (production; tests that set a limit do not).
    pub fn new(ceiling: usize, wait: Duration, probes: bool) -> Self {
        let now = Instant::now();
        let ceiling = ceiling.max(1);
        Door {
            inner: Arc::new(Mutex::new(State {
                limit: AdaptiveLimit::new(ceiling.div_ceil(2), MIN_LIMIT, ceiling, now),
                probes,
                in_flight: 0,
                waiting: VecDeque::new(),
                finishing: VecDeque::new(),
                estimate: WaitEstimate::new(now),
                load: Load::new(now),
            })),
            wait,
        }
    }

    /// A place for a request of `class` that has `left` of its time, or OVERLOADED: at once
    /// when its turn would not come within the door's wait, or once it did not. A request
    /// that finishes a purchase waits for as long as it has.
    pub async fn admit(&self, class: Class, left: Duration) -> Result<Ticket, ApiError> {
        let receiver = {
            let mut state = self.inner.lock().expect("door");
            state.forget_gone(Instant::now());
            let limit = state.limit_now();
            let ahead = state.finishing.len()
                + match class {
                    Class::Finish => 0,
                    Class::Read | Class::Start => state.waiting.len(),
                };
            if state.in_flight < limit && ahead == 0 {
                state.in_flight += 1;
                return Ok(self.ticket());
            }
            let (sender, receiver) = oneshot::channel();
            let wait = match class {
                Class::Finish => {
                    state.finishing.push_back(sender);
                    left
                }
                Class::Read | Class::Start => {
                    let wait = self.wait.min(left);
                    if state.waiting.len() >= MAX_WAITING {
                        return Err(refusal(limit, Refused::LineFull));
                    }
                    let expected = state.expected_wait(ahead, Instant::now());
                    if expected > wait {
                        return Err(refusal(limit, Refused::TooFarOff(expected)));
                    }
                    if state.waiting.is_empty() {
                        state.estimate.line_started(Instant::now());
                    }
                    state.waiting.push_back(sender);
                    wait
                }
            };
            (receiver, wait, limit)
        };
        let (receiver, wait, limit) = receiver;
        match tokio::time::timeout(wait, receiver).await {
            Ok(Ok(ticket)) => Ok(ticket),
            _ => Err(refusal(limit, Refused::AfterWaiting(wait))),
        }
    }

    /// A command of an admitted request answered in `latency`.
    pub fn answered(&self, latency: Duration) {
        let mut state = self.inner.lock().expect("door");
        let now = Instant::now();
        state.count_load(now);
        let in_flight = state.in_flight;
        let probing = state.probing();
        state.limit.sample(latency, in_flight, now, probing);
        hand_over(&self.inner, &mut state);
    }

    /// `gateways` live gateways share the database, this one with `share` of their work
    /// ([`super::limit::pool_share`]): it probes with that part of
    /// [`super::limit::PROBE_LIMIT`], grows its limit by that part of one gateway's growth,
    /// and lets in at most that part of the ceiling; the part of the ceiling.
    pub fn set_gateways(&self, gateways: usize, share: f64) -> usize {
        let mut state = self.inner.lock().expect("door");
        state.count_load(Instant::now());
        state.limit.set_gateways(gateways, share);
        let ceiling = state.limit.ceiling();
        // A larger part may have places for those waiting now.
        hand_over(&self.inner, &mut state);
        ceiling
    }

    /// How many requests were in flight or waiting here, on average since the last call:
    /// what this gateway wants of the database, for its share of the ceiling.
    pub fn take_demand(&self) -> f64 {
        let mut state = self.inner.lock().expect("door");
        let now = Instant::now();
        state.forget_gone(now);
        let requests = state.requests();
        state.load.take(requests, now)
    }

    /// How many requests the door lets in during a probe slot at most.
    pub fn probe_limit(&self) -> usize {
        self.inner.lock().expect("door").limit.probe_limit()
    }

    /// A command that got no answer within its time.
    pub fn timed_out(&self) {
        self.inner.lock().expect("door").limit.timed_out();
    }

    /// The limit now (outside a probe slot).
    pub fn limit(&self) -> usize {
        self.inner.lock().expect("door").limit.get(false)
    }

    /// The latency the limit compares the database's with: its lowest recent probe (before
    /// the first, the average).
    pub fn baseline(&self) -> Duration {
        self.inner.lock().expect("door").limit.long_latency()
    }

    /// Requests waiting for a place: those finishing a purchase, and the others.
    pub fn waiting(&self) -> (usize, usize) {
        let mut state = self.inner.lock().expect("door");
        state.forget_gone(Instant::now());
        (state.finishing.len(), state.waiting.len())
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
                let mut state = self.inner.lock().expect("door");
                state.count_load(Instant::now());
                state.in_flight += 1;
                drop(state);
                self.ticket()
            })
            .collect()
    }

    fn ticket(&self) -> Ticket {
        Ticket {
            door: Some(Arc::clone(&self.inner)),
            since: Instant::now(),
        }
    }
}

impl State {
    /// Requests in flight or waiting (a waiter that gave up counts until it is dropped from
    /// its line).
    fn requests(&self) -> usize {
        self.in_flight + self.waiting.len() + self.finishing.len()
    }

    /// Counts the load up to `now`: called before anything changes the requests.
    fn count_load(&mut self, now: Instant) {
        let requests = self.requests();
        self.load.count(requests, now);
    }

    /// Counts the load up to `now`, then drops the waiters that gave up from their lines.
    fn forget_gone(&mut self, now: Instant) {
        self.count_load(now);
        self.waiting.retain(|waiter| !waiter.is_closed());
        self.finishing.retain(|waiter| !waiter.is_closed());
    }

    /// How long a request with `ahead` requests before it would wait for its place (by the
    /// limit outside probe slots: a slot is over before a turn is due).
    fn expected_wait(&self, ahead: usize, now: Instant) -> Duration {
        (self.estimate).expected(ahead, self.waiting.len(), self.limit.get(false), now)
    }

    /// Whether the limit is probing the database now.
    fn probing(&self) -> bool {
        self.probes && in_probe_slot(since_epoch())
    }

    /// How many requests may be in flight now.
    fn limit_now(&self) -> usize {
        self.limit.get(self.probing())
    }
}

/// The wall clock's time: probe slots fall on it, the same on every gateway.
fn since_epoch() -> Duration {
    (std::time::SystemTime::now())
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
}

/// Gives free places to waiters: those finishing a purchase first, then the others, each
/// line oldest first.
fn hand_over(door: &Arc<Mutex<State>>, state: &mut State) {
    // Nothing moves the limit while places are handed over: read it (and the clock) once.
    let limit = state.limit_now();
    while state.in_flight < limit {
        let (waiter, of_line) = match state.finishing.pop_front() {
            Some(waiter) => (waiter, false),
            None => match state.waiting.pop_front() {
                Some(waiter) => (waiter, true),
                None => break,
            },
        };
        state.in_flight += 1;
        let now = Instant::now();
        let ticket = Ticket {
            door: Some(Arc::clone(door)),
            since: now,
        };
        match waiter.send(ticket) {
            Ok(()) if of_line => state.estimate.line_served(now),
            Ok(()) => {}
            Err(mut unsent) => {
                // The waiter gave up: its place is not taken (and the ticket must not give it
                // back through the lock held here).
                unsent.door = None;
                state.in_flight -= 1;
            }
        }
    }
}

/// When a request was refused: at the door, its turn being too far off, or in line, its turn
/// not having come within its wait. Told apart in the metrics (`admission`,
/// `admission_wait`) and the message: the second costs the client its wait, and many of them
/// say the estimate is wrong.
enum Refused {
    /// [`MAX_WAITING`] wait already.
    LineFull,
    /// The turn would come after this long.
    TooFarOff(Duration),
    /// No turn came within this long.
    AfterWaiting(Duration),
}

fn refusal(limit: usize, refused: Refused) -> ApiError {
    let (reason, when) = match refused {
        Refused::LineFull => ("admission", format!("; {MAX_WAITING} wait already")),
        Refused::TooFarOff(expected) => (
            "admission",
            format!("; a turn would come in about {} ms", expected.as_millis()),
        ),
        Refused::AfterWaiting(wait) => (
            "admission_wait",
            format!("; no turn came within {} ms", wait.as_millis()),
        ),
    };
    crate::telemetry::metrics::overload_refused(reason);
    ApiError::Overloaded(format!(
        "the database is as busy as this gateway lets it be ({limit} requests at once{when}); \
         retry in a moment"
    ))
}

#[cfg(test)]
mod tests {
    use futures::FutureExt;

    use super::super::wait_estimate::LINE_KNOWN;
    use super::*;
    use crate::error::ErrorCode;

    const LONG: Duration = Duration::from_secs(5);

    /// A door whose limit is `limit` (its ceiling; the limit starts at half of it, so it is
    /// raised by commands answered quickly while the door is full).
    async fn door_of(limit: usize) -> Door {
        let door = Door::new(limit, Duration::from_millis(100), false);
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

    #[test]
    fn the_load_is_the_time_average_of_the_requests_since_it_was_last_taken() {
        let start = Instant::now();
        let at = |millis: u64| start + Duration::from_millis(millis);
        let mut load = Load::new(start);
        // 4 requests for 100 ms, then 10 for 300 ms: 8.5 on average.
        load.count(4, at(100));
        assert!((load.take(10, at(400)) - 8.5).abs() < 1e-9);
        // Counted afresh: 2 for the next 200 ms.
        load.count(2, at(600));
        assert!((load.take(2, at(600)) - 2.0).abs() < 1e-9);
        // Taken twice at once: what is there now.
        assert!((load.take(3, at(600)) - 3.0).abs() < 1e-9);
    }

    #[tokio::test]
    async fn places_held_and_requests_waiting_are_what_the_door_wants() {
        // Places for one (a fresh door's limit) and no wait that runs out during the test.
        let door = Door::new(2, LONG, false);
        door.take_demand();
        let held = door.occupy(2);
        let waiter = {
            let door = door.clone();
            tokio::spawn(async move { door.admit(Class::Start, LONG).await.map(drop) })
        };
        while door.inner.lock().unwrap().waiting.is_empty() {
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        // Two in flight and one waiting for nearly all the time since it was last taken.
        let wanted = door.take_demand();
        assert!((2.2..=3.0).contains(&wanted), "{wanted}");
        drop(held);
        waiter.await.unwrap().unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(door.take_demand() < 0.5, "nothing since");
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
    async fn a_request_finishing_a_purchase_waits_for_the_next_place_before_any_other() {
        let door = door_of(1).await;
        let held = door.admit(Class::Read, LONG).await.unwrap();
        let hold = {
            let door = door.clone();
            tokio::spawn(async move { door.admit(Class::Start, LONG).await.map(drop) })
        };
        while door.inner.lock().unwrap().waiting.is_empty() {
            tokio::task::yield_now().await;
        }
        // Longer than the door's wait: a purchase's end is never refused for load.
        let started = Instant::now();
        let finish = {
            let door = door.clone();
            tokio::spawn(async move { door.admit(Class::Finish, LONG).await })
        };
        while door.inner.lock().unwrap().finishing.is_empty() {
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
        drop(held);
        let finish = finish.await.unwrap().expect("never refused");
        assert!(started.elapsed() >= Duration::from_millis(150));
        assert_eq!(
            door.in_flight(),
            1,
            "the finish has the place, the hold waits"
        );
        drop(finish);
        // The hold waited past the door's wait (100 ms): refused, having sent nothing.
        hold.await.unwrap().expect_err("its turn came too late");
    }

    #[tokio::test]
    async fn a_line_served_slowly_refuses_at_once_what_it_would_keep_past_the_wait() {
        let door = door_of(1).await;
        let first = door.admit(Class::Read, LONG).await.unwrap();
        let waiting = {
            let door = door.clone();
            tokio::spawn(async move { door.admit(Class::Start, LONG).await })
        };
        while door.inner.lock().unwrap().waiting.is_empty() {
            tokio::task::yield_now().await;
        }
        // The line is served once in 90 ms (the door's wait is 100 ms); the place was held
        // briefly on average before, so the places' estimate alone would let the next queue.
        {
            // And at that pace before, often enough for the pace to be trusted.
            let mut state = door.inner.lock().unwrap();
            let mut then = Instant::now() - Duration::from_millis(90) * LINE_KNOWN as u32;
            state.estimate = WaitEstimate::new(then);
            state.estimate.place_held(Duration::from_millis(1));
            for _ in 1..LINE_KNOWN {
                then += Duration::from_millis(90);
                state.estimate.line_served(then);
            }
        }
        tokio::time::sleep(Duration::from_millis(90)).await;
        drop(first);
        let second = waiting.await.unwrap().expect("served within the wait");
        // One waits ahead now: its turn and the next would come after ~180 ms.
        let ahead = {
            let door = door.clone();
            tokio::spawn(async move { door.admit(Class::Start, LONG).await.map(drop) })
        };
        while door.inner.lock().unwrap().waiting.is_empty() {
            tokio::task::yield_now().await;
        }
        // Refused at once: the answer is there at the first poll, not after a wait.
        (door.admit(Class::Read, LONG).now_or_never())
            .expect("decided without waiting")
            .expect_err("its turn would come too late");
        drop(second);
        ahead.await.unwrap().expect("the one ahead is served");
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

    #[tokio::test]
    async fn waiters_are_admitted_first_come_first_served() {
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
        let first = spawn("first");
        while door.inner.lock().unwrap().waiting.is_empty() {
            tokio::task::yield_now().await;
        }
        let second = spawn("second");
        while door.inner.lock().unwrap().waiting.len() < 2 {
            tokio::task::yield_now().await;
        }
        drop(held);
        first.await.unwrap();
        second.await.unwrap();
        assert_eq!(order.recv().await, Some("first"));
        assert_eq!(order.recv().await, Some("second"));
    }

    #[tokio::test]
    async fn a_request_whose_turn_would_come_too_late_is_refused_at_once() {
        let door = Door::new(1, Duration::from_millis(100), false);
        // Places have been held 60 ms on average: one waiter's turn comes in time, the
        // second's (120 ms) would not.
        (door.inner.lock().unwrap().estimate).place_held(Duration::from_millis(60));
        let _held = door.admit(Class::Read, LONG).await.unwrap();
        let waiting = {
            let door = door.clone();
            tokio::spawn(async move { door.admit(Class::Read, LONG).await.map(drop) })
        };
        while door.inner.lock().unwrap().waiting.is_empty() {
            tokio::task::yield_now().await;
        }
        (door.admit(Class::Start, LONG).now_or_never())
            .expect("decided without waiting")
            .expect_err("too late");
        waiting.abort();
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
        (door.admit(Class::Start, LONG).now_or_never())
            .expect("decided without waiting")
            .expect_err("full");
        for waiter in waiters {
            let _ = waiter.await.unwrap();
        }
    }

    /// How far into the probe cycle the wall clock is.
    fn into_cycle() -> Duration {
        let every = super::super::limit::PROBE_EVERY;
        Duration::from_nanos((since_epoch().as_nanos() % every.as_nanos()) as u64)
    }

    #[tokio::test]
    async fn in_a_probe_slot_a_few_are_let_in_and_the_line_goes_on_after_it() {
        use super::super::limit::{PROBE_EVERY, PROBE_LIMIT, PROBE_SLOT};
        let door = Door::new(16, LONG, true);
        assert_eq!(door.limit(), 8, "half the ceiling");
        // A slow machine can miss a slot's end while checking it: then the next slot.
        for _ in 0..3 {
            tokio::time::sleep(PROBE_EVERY - into_cycle() + Duration::from_millis(5)).await;
            let mut admitted = Vec::new();
            for _ in 0..PROBE_LIMIT {
                let ticket = door.admit(Class::Read, LONG).now_or_never();
                admitted.push(ticket.expect("a place free").unwrap());
            }
            let next = {
                let door = door.clone();
                tokio::spawn(async move { door.admit(Class::Start, LONG).await })
            };
            tokio::time::sleep(Duration::from_millis(20)).await;
            door.answered(Duration::from_millis(1));
            let waited_in_the_slot = !next.is_finished();
            if into_cycle() >= PROBE_SLOT {
                drop(admitted);
                next.await.unwrap().unwrap();
                continue;
            }
            assert!(
                waited_in_the_slot,
                "{PROBE_LIMIT} in flight are all a slot lets in"
            );
            tokio::time::sleep(PROBE_SLOT - into_cycle() + Duration::from_millis(5)).await;
            door.answered(Duration::from_millis(1));
            let third = next.await.unwrap().expect("let in once the slot is over");
            assert_eq!(door.in_flight(), PROBE_LIMIT + 1);
            drop((admitted, third));
            return;
        }
        panic!("three probe slots ended before the test could look at them");
    }
}
