//! The gate in front of the driver's connection pool: one permit per pooled connection, so a
//! command that passes it finds a connection, and one that cannot get a permit in time is
//! refused (OVERLOADED, 503) instead of waiting in the driver's queue, which has no bound.
//!
//! Within a request (see `overload::deadline`) a command waits for a permit:
//! - the first command: at most `wait` (`--db-pool-wait-ms`), so a request that would only
//!   queue is refused before it did any work;
//! - a later one: until the request's deadline, since the request has work to lose;
//!
//! and no command starts with less of the request's time left than commands have lately
//! taken: the driver would be stopped mid-command, its connection closed, and its work done in
//! vain. Outside a request (background passes) a command waits up to the database timeout.
//!
//! Requests and background passes each have a gate and a pool of their own (`Lane`), so
//! background passes cannot take the connections requests need.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;
use crate::overload::deadline;
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
    /// How long a request's first command waits for a connection.
    wait: Duration,
    /// A moving average of how long commands took, in microseconds.
    typical_micros: AtomicU64,
}

/// A command's right to a connection, and the time it may take.
pub(crate) struct Pass {
    _permit: OwnedSemaphorePermit,
    pub(crate) budget: Duration,
}

impl Gate {
    pub(crate) fn new(lane: Lane, size: usize, wait: Duration) -> Self {
        let size = size.max(1);
        Gate {
            lane,
            permits: Arc::new(Semaphore::new(size)),
            size,
            wait,
            typical_micros: AtomicU64::new(0),
        }
    }

    /// A pass for one command that may take `timeout` at most; OVERLOADED when no connection
    /// comes free in time or the request's time left cannot finish a command.
    pub(crate) async fn enter(&self, timeout: Duration) -> Result<Pass, ApiError> {
        let arrived = Instant::now();
        let request = match self.lane {
            Lane::Requests => deadline::next_command(),
            Lane::Background => None,
        };
        let wait = match request {
            Some((deadline, first)) => {
                let left = deadline.saturating_duration_since(arrived);
                if first {
                    self.wait.min(left)
                } else {
                    left
                }
            }
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
            Some((deadline, _)) => {
                let left = deadline.saturating_duration_since(now);
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

    /// Folds a finished command's time into the average (one eighth of the new one).
    pub(crate) fn took(&self, took: Duration) {
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
        Occupied(
            Arc::clone(&self.permits)
                .try_acquire_many_owned(u32::try_from(count).expect("a small count"))
                .expect("the permits are free"),
        )
    }
}

/// Connections taken by a test until dropped (see `Store::occupy_connections`).
#[cfg(feature = "test-hooks")]
#[derive(Debug)]
pub struct Occupied(#[allow(dead_code)] OwnedSemaphorePermit);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    const LONG: Duration = Duration::from_secs(5);

    #[tokio::test]
    async fn a_requests_first_command_waits_briefly_for_a_connection_then_is_refused() {
        let gate = Gate::new(Lane::Requests, 1, Duration::from_millis(20));
        let _busy = gate.enter(LONG).await.expect("the one connection");
        let started = Instant::now();
        let refused = deadline::within(Instant::now() + LONG, gate.enter(LONG))
            .await
            .err()
            .expect("no connection free");
        assert!(matches!(refused, ApiError::Overloaded(_)), "{refused:?}");
        assert_eq!(refused.code(), ErrorCode::Unavailable);
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "refused at once"
        );
    }

    #[tokio::test]
    async fn a_later_command_of_a_started_request_waits_until_a_connection_comes_free() {
        let gate = Arc::new(Gate::new(Lane::Requests, 1, Duration::from_millis(5)));
        let busy = gate.enter(LONG).await.expect("the one connection");
        let waiting = {
            let gate = Arc::clone(&gate);
            tokio::spawn(deadline::within(Instant::now() + LONG, async move {
                assert!(deadline::next_command().is_some_and(|(_, first)| first));
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
        let gate = Gate::new(Lane::Requests, 4, Duration::from_millis(20));
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
        let gate = Gate::new(Lane::Background, 1, Duration::from_millis(1));
        let pass = deadline::within(Instant::now(), gate.enter(LONG))
            .await
            .expect("a background lane ignores request deadlines");
        assert_eq!(pass.budget, LONG);
    }

    #[test]
    fn the_typical_time_follows_commands() {
        let gate = Gate::new(Lane::Requests, 1, Duration::ZERO);
        gate.took(Duration::from_millis(8));
        assert_eq!(gate.typical(), Duration::from_millis(8));
        for _ in 0..100 {
            gate.took(Duration::from_millis(1));
        }
        assert!(gate.typical() < Duration::from_micros(1100));
    }
}
