//! The gate in front of the driver's connection pool: one permit per pooled connection, so a
//! command that passes it finds a connection, instead of waiting in the driver's queue, which
//! has no bound.
//!
//! The requests' lane has a door ([`Door`]) in front of it: a request's first command after
//! the request was classified (see `overload::deadline`) first takes the request a place,
//! or refuses it (OVERLOADED, 503) having sent nothing. The door's limit follows the
//! latency of the commands that pass here and never exceeds the permits, so an admitted
//! request finds a connection; its commands wait for one until its deadline, and no command
//! starts with less of the request's time left than commands have lately taken: the driver
//! would be stopped mid-command, its connection closed, and its work done in vain. Outside a
//! request (background passes) a command waits up to the database timeout.
//!
//! Requests and background passes each have a gate and a pool of their own (`Lane`), so
//! background passes cannot take the connections requests need.
//!
//! The requests' pool (`--db-max-pool-size`) is what all live gateways together may keep in
//! flight: each takes its part, the door's ceiling ([`Gate::set_gateways`]).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;
use crate::overload::{deadline, Door};
use crate::telemetry::metrics;

/// No command is started with less time left than this, however fast commands have been.
const MIN_COMMAND_TIME: Duration = Duration::from_millis(2);

/// Which pool a store handle's commands use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    Requests,
    Background,
}

impl Lane {
    fn name(self) -> &'static str {
        match self {
            Lane::Requests => "requests",
            Lane::Background => "background",
        }
    }
}

/// The permits of one lane.
#[derive(Debug)]
pub(crate) struct Gate {
    lane: Lane,
    permits: Arc<Semaphore>,
    /// The permits this lane has now: on the requests' lane, this gateway's part of the pool
    /// (the door's ceiling); elsewhere the pool.
    part: Mutex<usize>,
    /// Permits to withdraw as their commands end (the part shrank while they were in use).
    owed: AtomicUsize,
    /// Admits requests before their first command (the requests' lane only).
    door: Option<Door>,
    /// A moving average of how long commands took, in microseconds.
    typical_micros: AtomicU64,
}

/// A request's admission under way: dropped before the door answered (the command's caller
/// gave up on it), it leaves the admission to the request's next command.
struct Admitting(Option<crate::overload::Class>);

impl Admitting {
    fn done(mut self) {
        self.0 = None;
    }
}

impl Drop for Admitting {
    fn drop(&mut self) {
        if let Some(class) = self.0 {
            deadline::abandoned(class);
        }
    }
}

/// A command's right to a connection, and the time it may take.
pub(crate) struct Pass<'a> {
    permit: Option<OwnedSemaphorePermit>,
    owed: &'a AtomicUsize,
    pub(crate) budget: Duration,
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        if self.owed.load(Ordering::Relaxed) > 0
            && (self.owed)
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |owed| {
                    owed.checked_sub(1)
                })
                .is_ok()
        {
            if let Some(permit) = self.permit.take() {
                permit.forget();
            }
        }
    }
}

impl Gate {
    /// A gate of `size` permits; on the requests' lane, with a door where a request waits at
    /// most `admission_wait` for a place, whose limit probes the database if `probes`.
    pub(crate) fn new(lane: Lane, size: usize, admission_wait: Duration, probes: bool) -> Self {
        let size = size.max(1);
        Gate {
            lane,
            permits: Arc::new(Semaphore::new(size)),
            part: Mutex::new(size),
            owed: AtomicUsize::new(0),
            door: (lane == Lane::Requests).then(|| Door::new(size, admission_wait, probes)),
            typical_micros: AtomicU64::new(0),
        }
    }

    /// A pass for one command that may take `timeout` at most; OVERLOADED when the door
    /// refuses the request, no connection comes free in time, or the request's time left
    /// cannot finish a command.
    pub(crate) async fn enter(&self, timeout: Duration) -> Result<Pass<'_>, ApiError> {
        let arrived = Instant::now();
        let request = match self.lane {
            Lane::Requests => deadline::next_command(),
            Lane::Background => None,
        };
        if let (Some(command), Some(door)) = (request, &self.door) {
            if let Some(class) = command.admit {
                let left = command.deadline.saturating_duration_since(arrived);
                let admitting = Admitting(Some(class));
                // Boxed: the wait is the slow path (see below).
                let admitted = Box::pin(door.admit(class, left)).await;
                admitting.done();
                match admitted {
                    Ok(ticket) => deadline::keep(ticket),
                    Err(refusal) => {
                        deadline::refused();
                        return Err(refusal);
                    }
                }
            } else if command.settling && !Box::pin(deadline::admission_settled()).await {
                return Err(ApiError::Overloaded(
                    "the request was refused at the door; retry in a moment".to_owned(),
                ));
            }
        }
        let wait = match request {
            Some(command) => command.deadline.saturating_duration_since(arrived),
            None => timeout,
        };
        let permit = match Arc::clone(&self.permits).try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                // Boxed: the slow path's timer would otherwise be part of every store call's
                // future (see `Store::bounded_raw`).
                let acquire = Box::pin(tokio::time::timeout(
                    wait,
                    Arc::clone(&self.permits).acquire_owned(),
                ));
                match acquire.await {
                    Ok(Ok(permit)) => permit,
                    _ => {
                        metrics::overload_refused("connection_wait");
                        return Err(ApiError::Overloaded(format!(
                            "no database connection came free within {} ms; retry in a moment",
                            wait.as_millis()
                        )));
                    }
                }
            }
        };
        let now = Instant::now();
        metrics::db_connection_wait(self.lane.name(), now - arrived);
        let budget = match request {
            Some(command) => {
                let left = command.deadline.saturating_duration_since(now);
                if left < self.typical().max(MIN_COMMAND_TIME) {
                    metrics::overload_refused("no_time_left");
                    return Err(ApiError::Overloaded(format!(
                        "the request has {} ms left, less than a database command takes; \
                         retry in a moment",
                        left.as_millis()
                    )));
                }
                left.min(timeout)
            }
            None => timeout,
        };
        Ok(Pass {
            permit: Some(permit),
            owed: &self.owed,
            budget,
        })
    }

    /// Folds a finished command's time into the average (one eighth of the new one) and the
    /// door's limit.
    pub(crate) fn took(&self, took: Duration) {
        if let Some(door) = &self.door {
            door.answered(took);
        }
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        let _ = self
            .typical_micros
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                Some(if old == 0 {
                    micros
                } else {
                    old - old / 8 + micros / 8
                })
            });
    }

    /// A command that got no answer within its budget.
    pub(crate) fn timed_out(&self) {
        if let Some(door) = &self.door {
            door.timed_out();
        }
    }

    /// Requests waiting at the door: those finishing a purchase, and the others.
    pub(crate) fn admission_waiting(&self) -> (usize, usize) {
        self.door.as_ref().map_or((0, 0), Door::waiting)
    }

    /// Tells the door how many gateways share the database and this one's `share` of the
    /// pool (the requests' lane), and keeps as many permits as the door's ceiling, this
    /// gateway's part of the pool.
    pub(crate) fn set_gateways(&self, gateways: usize, share: f64) {
        if let Some(door) = &self.door {
            self.resize(door.set_gateways(gateways, share));
        }
    }

    /// How many requests were in flight or waiting at the door, on average since the last
    /// call (the requests' lane; none elsewhere).
    pub(crate) fn take_demand(&self) -> f64 {
        self.door.as_ref().map_or(0.0, Door::take_demand)
    }

    /// Gives this gate `part` permits: at once when it grows, as commands end when they are
    /// in use.
    fn resize(&self, part: usize) {
        let mut now = self.part.lock().expect("part");
        if part > *now {
            let grow = part - *now;
            // Permits still owed stay instead.
            let kept = (self.owed)
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |owed| {
                    Some(owed - owed.min(grow))
                })
                .map_or(0, |owed| owed.min(grow));
            self.permits.add_permits(grow - kept);
        } else if part < *now {
            let shrink = *now - part;
            let forgotten = self.permits.forget_permits(shrink);
            self.owed.fetch_add(shrink - forgotten, Ordering::AcqRel);
        }
        *now = part;
    }

    /// How many commands this lane may have in flight at once now.
    pub(crate) fn permits(&self) -> usize {
        *self.part.lock().expect("part")
    }

    /// How many requests the door lets in during a probe slot (the requests' lane; the
    /// permits elsewhere).
    pub(crate) fn admission_probe_limit(&self) -> usize {
        self.door
            .as_ref()
            .map_or_else(|| self.permits(), Door::probe_limit)
    }

    /// The latency the door's limit compares with (the requests' lane; zero elsewhere).
    pub(crate) fn admission_baseline(&self) -> Duration {
        self.door.as_ref().map_or(Duration::ZERO, Door::baseline)
    }

    /// The door's limit now (the requests' lane; the permits elsewhere).
    pub(crate) fn admission_limit(&self) -> usize {
        self.door
            .as_ref()
            .map_or_else(|| self.permits(), Door::limit)
    }

    /// How long commands have lately taken.
    pub(crate) fn typical(&self) -> Duration {
        Duration::from_micros(self.typical_micros.load(Ordering::Relaxed))
    }

    /// Connections of this lane in use now.
    pub(crate) fn in_use(&self) -> usize {
        (self.permits() + self.owed.load(Ordering::Acquire))
            .saturating_sub(self.permits.available_permits())
    }

    /// Takes `count` permits until the guard is dropped (tests: a pool with no free
    /// connection, without a command holding one).
    #[cfg(feature = "test-hooks")]
    pub(crate) fn occupy(&self, count: usize) -> Occupied {
        Occupied::Connections(
            Arc::clone(&self.permits)
                .try_acquire_many_owned(u32::try_from(count).expect("a small count"))
                .expect("the permits are free"),
        )
    }

    /// Takes every place at the door until the guard is dropped (tests: a door with no place
    /// free, without requests holding them).
    #[cfg(feature = "test-hooks")]
    pub(crate) fn occupy_door(&self) -> Occupied {
        let door = self.door.as_ref().expect("the requests' lane has a door");
        Occupied::Places(door.occupy(door.limit()))
    }
}

/// Connections or places taken by a test until dropped (see `Store::occupy_connections`).
#[cfg(feature = "test-hooks")]
#[derive(Debug)]
#[allow(dead_code)]
pub enum Occupied {
    Connections(OwnedSemaphorePermit),
    Places(Vec<crate::overload::Ticket>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    const LONG: Duration = Duration::from_secs(5);
    const WAIT: Duration = Duration::from_millis(20);

    #[tokio::test]
    async fn a_classified_request_is_admitted_at_its_first_command_or_refused_having_sent_none() {
        let gate = Arc::new(Gate::new(Lane::Requests, 2, WAIT, false));
        let full = gate.occupy_door_for_tests();
        let started = Instant::now();
        let refused = deadline::within(Instant::now() + LONG, async {
            deadline::classify(crate::overload::Class::Start);
            gate.enter(LONG).await
        })
        .await
        .err()
        .expect("no place at the door");
        assert!(matches!(refused, ApiError::Overloaded(_)), "{refused:?}");
        assert_eq!(refused.code(), ErrorCode::Unavailable);
        assert!(started.elapsed() < Duration::from_secs(1), "refused soon");
        assert_eq!(gate.in_use(), 0, "no connection taken");
        // One not yet classified passes (the caller's key); one finishing a purchase waits
        // for a place, longer than the door's wait, and is admitted once one is free.
        let finishing = {
            let gate = Arc::clone(&gate);
            tokio::spawn(deadline::within(Instant::now() + LONG, async move {
                gate.enter(LONG)
                    .await
                    .expect("not classified: the caller's key");
                deadline::classify(crate::overload::Class::Finish);
                gate.enter(LONG).await.map(drop)
            }))
        };
        tokio::time::sleep(WAIT * 3).await;
        assert!(!finishing.is_finished(), "it waits");
        drop(full);
        finishing.await.unwrap().expect("finishing a purchase");
    }

    #[tokio::test]
    async fn a_command_beside_a_refused_first_one_is_refused_without_a_connection() {
        let gate = Gate::new(Lane::Requests, 2, WAIT, false);
        let _full = gate.occupy_door_for_tests();
        let (first, second) = deadline::within(Instant::now() + LONG, async {
            deadline::classify(crate::overload::Class::Read);
            tokio::join!(gate.enter(LONG), gate.enter(LONG))
        })
        .await;
        assert!(matches!(first, Err(ApiError::Overloaded(_))));
        assert!(
            matches!(second, Err(ApiError::Overloaded(_))),
            "it waited for the first"
        );
        assert_eq!(gate.in_use(), 0, "no connection taken");
    }

    #[tokio::test]
    async fn a_later_command_of_a_started_request_waits_until_a_connection_comes_free() {
        let gate = Arc::new(Gate::new(Lane::Requests, 1, WAIT, false));
        let busy = gate.enter(LONG).await.expect("the one connection");
        let waiting = {
            let gate = Arc::clone(&gate);
            tokio::spawn(deadline::within(Instant::now() + LONG, async move {
                gate.enter(LONG).await.map(|pass| pass.budget)
            }))
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop(busy);
        let budget = waiting.await.unwrap().expect("it waited");
        assert!(
            budget <= LONG && budget > Duration::from_secs(4),
            "{budget:?}"
        );
    }

    #[tokio::test]
    async fn no_command_starts_that_the_time_left_cannot_finish() {
        let gate = Gate::new(Lane::Requests, 4, WAIT, false);
        gate.took(Duration::from_millis(300));
        let refused = deadline::within(
            Instant::now() + Duration::from_millis(100),
            gate.enter(LONG),
        )
        .await;
        assert!(matches!(refused, Err(ApiError::Overloaded(_))));
        assert_eq!(
            gate.in_use(),
            0,
            "the refused command gave its connection back"
        );
        let budget = deadline::within(Instant::now() + Duration::from_secs(1), gate.enter(LONG))
            .await
            .expect("enough time")
            .budget;
        assert!(budget <= Duration::from_secs(1), "bounded by the deadline");
    }

    #[tokio::test]
    async fn background_commands_wait_up_to_the_timeout_whatever_the_request() {
        let gate = Gate::new(Lane::Background, 1, WAIT, false);
        let pass = deadline::within(Instant::now(), gate.enter(LONG))
            .await
            .expect("a background lane ignores request deadlines");
        assert_eq!(pass.budget, LONG);
    }

    impl Gate {
        /// Every place at the door taken (unit tests build without `test-hooks`).
        fn occupy_door_for_tests(&self) -> Vec<crate::overload::Ticket> {
            let door = self.door.as_ref().unwrap();
            let mut taken = Vec::new();
            while door.in_flight() < door.limit() {
                taken.push(
                    futures::executor::block_on(door.admit(crate::overload::Class::Read, LONG))
                        .unwrap(),
                );
            }
            taken
        }
    }

    #[tokio::test]
    async fn each_gateway_keeps_its_part_of_the_pool_in_flight() {
        let gate = Gate::new(Lane::Requests, 8, WAIT, false);
        let all: Vec<_> = futures::future::try_join_all((0..8).map(|_| gate.enter(LONG)))
            .await
            .expect("alone: the whole pool");
        gate.set_gateways(2, 0.5);
        assert_eq!((gate.permits(), gate.admission_limit()), (4, 4));
        assert_eq!(gate.in_use(), 8, "commands in flight run to their end");
        drop(all);
        assert_eq!(gate.in_use(), 0);
        let part: Vec<_> = futures::future::try_join_all((0..4).map(|_| gate.enter(LONG)))
            .await
            .expect("the part");
        assert!(
            Arc::clone(&gate.permits).try_acquire_owned().is_err(),
            "no fifth permit: the four that ended were withdrawn"
        );
        // Alone again: the whole pool at once.
        gate.set_gateways(1, 1.0);
        let more: Vec<_> = futures::future::try_join_all((0..4).map(|_| gate.enter(LONG)))
            .await
            .expect("the rest of the pool");
        assert_eq!(gate.in_use(), 8);
        assert!(Arc::clone(&gate.permits).try_acquire_owned().is_err());
        drop((part, more));
        // Shrinking and growing back before any ended owes nothing.
        let held: Vec<_> = futures::future::try_join_all((0..8).map(|_| gate.enter(LONG)))
            .await
            .unwrap();
        gate.set_gateways(4, 0.25);
        gate.set_gateways(1, 1.0);
        drop(held);
        assert_eq!(gate.permits.available_permits(), 8);
    }

    #[test]
    fn the_typical_time_follows_commands() {
        let gate = Gate::new(Lane::Requests, 1, WAIT, false);
        gate.took(Duration::from_millis(8));
        assert_eq!(gate.typical(), Duration::from_millis(8));
        for _ in 0..100 {
            gate.took(Duration::from_millis(1));
        }
        assert!(gate.typical() < Duration::from_micros(1100));
    }
}
