//! One lock per showtime for choosing the best seats, within this gateway process.
//!
//! Best-available requests for one showtime all want the same seats: the best ones. Racing,
//! they read the same seat map, choose the same seats, and all but one find them taken and read
//! again: on a hot showtime each hold costs as many attempts as there are rivals. Measured with
//! 64 clients holding and confirming the best 2 seats of one showtime: 14 pairs/s without this
//! lock, 76% of requests giving up; 104–166 pairs/s with it, none failing. Taking the
//! showtime's lock around read-choose-write lets this process's
//! requests choose one after another, each seeing the seats the previous one took. Correctness
//! does not rest on it: the conditional update still decides (other gateway processes, named holds), and a
//! miss still reads again.
//!
//! The queue is bounded: past [`MAX_WAITING`] requests waiting for one showtime, or a second
//! before the request's deadline, the request is refused (OVERLOADED, 503) rather than served
//! after its client gave up. Holds of named seats do not queue: tried (issue 34's benchmark, 2
//! hot showtimes, 600 clients), they held the in-flight places while waiting, and goodput fell
//! from 391 to 159 seat changes/s.

use std::sync::Arc;

use tokio::sync::OwnedMutexGuard;

use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::keyed_locks::KeyedLocks;
use crate::overload::deadline::{self, LAST_SECOND};

/// Most requests of this process waiting for one showtime's lock: about half a second of
/// holds at a few milliseconds each.
pub const MAX_WAITING: usize = 64;

/// The per-showtime locks of one process, and its queues of holds placed together.
#[derive(Debug, Default)]
pub struct ShowtimeLocks {
    locks: KeyedLocks<ShowtimeId>,
    /// Plain best-available holds, placed a batch at a time (`batch`).
    pub(super) batches: super::batch::Batches,
    /// What the batches last saw of each showtime's seats (`seen`).
    pub seen: super::seen::SeenSeats,
}

impl ShowtimeLocks {
    /// Locks whose views of the showtimes' seats refuse holds for `kept_for` after their
    /// read (`seen`; [`super::SEEN_FOR`] by default).
    pub fn with_views_kept_for(kept_for: std::time::Duration) -> ShowtimeLocks {
        ShowtimeLocks {
            seen: super::seen::SeenSeats::kept_for(kept_for),
            ..ShowtimeLocks::default()
        }
    }

    /// Waits for `showtime`'s lock, at most until the running request's deadline; it is
    /// released when the guard is dropped. OVERLOADED when [`MAX_WAITING`] wait already, or
    /// the deadline passes first.
    pub async fn lock(&self, showtime: ShowtimeId) -> Result<OwnedMutexGuard<()>, ApiError> {
        let lock = self.locks.get(&showtime);
        if let Ok(guard) = Arc::clone(&lock).try_lock_owned() {
            return Ok(guard);
        }
        // Every waiter and the holder keep the lock alive (the map only has a weak one).
        let waiting = Arc::strong_count(&lock).saturating_sub(2);
        if waiting >= MAX_WAITING {
            crate::telemetry::metrics::overload_refused("showtime_queue");
            return Err(ApiError::Overloaded(format!(
                "{waiting} requests are already waiting for this showtime's seats; retry in a \
                 moment"
            )));
        }
        // A waiter gives up a second before its deadline: refused having done nothing (503),
        // rather than stopped by the request timeout mid-hold (504, the effect unknown).
        let waited = match deadline::remaining() {
            Some(left) => tokio::time::timeout(left.saturating_sub(LAST_SECOND), lock.lock_owned())
                .await
                .ok(),
            None => Some(lock.lock_owned().await),
        };
        waited.ok_or_else(|| {
            crate::telemetry::metrics::overload_refused("showtime_queue");
            ApiError::Overloaded(
                "the request's time ran out waiting for this showtime's seats; retry in a moment"
                    .to_owned(),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn one_showtime_is_locked_by_one_holder_at_a_time() {
        let locks = ShowtimeLocks::default();
        let first = locks.lock(ShowtimeId([1; 12])).await.unwrap();
        let other_showtime =
            tokio::time::timeout(Duration::from_secs(1), locks.lock(ShowtimeId([2; 12])));
        assert!(
            other_showtime.await.is_ok(),
            "another showtime is not blocked"
        );
        let same = tokio::time::timeout(Duration::from_millis(50), locks.lock(ShowtimeId([1; 12])));
        assert!(same.await.is_err(), "the same showtime waits");
        drop(first);
        let same = tokio::time::timeout(Duration::from_secs(1), locks.lock(ShowtimeId([1; 12])));
        assert!(same.await.is_ok(), "and gets it once released");
    }

    #[tokio::test]
    async fn past_the_queue_cap_a_request_is_refused_at_once() {
        let locks = Arc::new(ShowtimeLocks::default());
        let showtime = ShowtimeId([3; 12]);
        let held = locks.lock(showtime).await.unwrap();
        let waiters: Vec<_> = (0..MAX_WAITING)
            .map(|_| {
                let locks = Arc::clone(&locks);
                tokio::spawn(async move { locks.lock(showtime).await.map(drop) })
            })
            .collect();
        while locks.locks.users(&showtime) < MAX_WAITING + 1 {
            tokio::task::yield_now().await;
        }
        let refused = tokio::time::timeout(Duration::from_secs(1), locks.lock(showtime))
            .await
            .expect("refused without waiting");
        assert!(matches!(refused, Err(ApiError::Overloaded(_))));
        drop(held);
        for waiter in waiters {
            waiter
                .await
                .unwrap()
                .expect("every queued request gets its turn");
        }
    }

    #[tokio::test]
    async fn a_request_waits_no_longer_than_its_deadline() {
        let locks = ShowtimeLocks::default();
        let showtime = ShowtimeId([4; 12]);
        let _held = locks.lock(showtime).await.unwrap();
        let deadline = std::time::Instant::now() + LAST_SECOND + Duration::from_millis(30);
        let refused = tokio::time::timeout(
            Duration::from_secs(2),
            deadline::within(deadline, locks.lock(showtime)),
        )
        .await
        .expect("gave up at the deadline");
        assert!(matches!(refused, Err(ApiError::Overloaded(_))));
    }

    #[tokio::test]
    async fn unused_locks_are_pruned() {
        let locks = ShowtimeLocks::default();
        for i in 0..=crate::keyed_locks::PRUNE_ABOVE + 1 {
            let mut id = [0; 12];
            id[..8].copy_from_slice(&(i as u64).to_le_bytes());
            drop(locks.lock(ShowtimeId(id)).await.unwrap());
        }
        assert!(locks.locks.entries() <= 2);
    }
}
