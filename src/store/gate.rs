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

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
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
    size: usize,
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
pub(crate) struct Pass {
    _permit: OwnedSemaphorePermit,
    pub(crate) budget: Duration,
}

impl Gate {
    /// A gate of `size` permits; on the requests' lane, with a door where a request waits at
    /// most `admission_wait` for a place, whose limit probes the database if `probes`.
    pub(crate) fn new(lane: Lane, size: usize, admission_wait: Duration, probes: bool) -> Self {
        let size = size.max(1);
        Gate {
            lane,
            permits: Arc::new(Semaphore::new(size)),
            size,
            door: (lane == Lane::Requests).then(|| Door::new(size, admission_wait, probes)),
            typical_micros: AtomicU64::new(0),
        }
    }

    /// A pass for one command that may take `timeout` at most; OVERLOADED when the door
    /// refuses the request, no connection comes free in time, or the request's time left
    /// cannot finish a command.
    pub(crate) async fn enter(&self, timeout: Duration) -> Result<Pass, ApiError> {
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
            _permit: permit,
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

    /// Tells the door how many gateways share the database (the requests' lane).
    pub(crate) fn set_gateways(&self, gateways: usize) {
        if let Some(door) = &self.door {
            door.set_gateways(gateways);
        }
    }

    /// How many requests the door lets in during a probe slot (the requests' lane; the
    /// permits elsewhere).
    pub(crate) fn admission_probe_limit(&self) -> usize {
        self.door.as_ref().map_or(self.size, Door::probe_limit)
    }

    /// The door's limit now (the requests' lane; the permits elsewhere).
    pub(crate) fn admission_limit(&self) -> usize {
        self.door.as_ref().map_or(self.size, Door::limit)
    }

    /// How long commands have lately taken.
    pub(crate) fn typical(&self) -> Duration {
        Duration::from_micros(self.typical_micros.load(Ordering::Relaxed))
    }

    /// Connections of this lane in use now.
    pub(crate) fn in_use(&self) -> usize {
        self.size - self.permits.available_permits()
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
