//! One lock per showtime for choosing the best seats, within this gateway process.
//!
//! Best-available requests for one showtime all want the same seats: the best ones. Racing,
//! they read the same seat map, choose the same seats, and all but one find them taken and read
//! again: on a hot showtime each hold costs as many attempts as there are rivals. Measured with
//! 64 clients holding and confirming the best 2 seats of one showtime: 14 pairs/s without this
//! lock, 76% of requests giving up; 104–166 pairs/s with it, none failing. Taking the
//! showtime's lock around read-choose-write lets this process's
//! requests choose one after another, each seeing the seats the previous one took. Correctness
//! does not rest on it: the conditional update still decides (other gateway processes, named
//! holds), and a miss still reads again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::OwnedMutexGuard;

use crate::domain::ids::ShowtimeId;

/// Locks are dropped from the map once nobody holds them; the map is pruned when it grows
/// past this many entries.
const PRUNE_ABOVE: usize = 1024;

/// The per-showtime locks of one process.
#[derive(Debug, Default)]
pub struct ShowtimeLocks {
    locks: Mutex<HashMap<ShowtimeId, Weak<tokio::sync::Mutex<()>>>>,
}

impl ShowtimeLocks {
    /// Waits for `showtime`'s lock; it is released when the guard is dropped.
    pub async fn lock(&self, showtime: ShowtimeId) -> OwnedMutexGuard<()> {
        let lock = {
            let mut locks = self.locks.lock().expect("showtime locks");
            if locks.len() > PRUNE_ABOVE {
                locks.retain(|_, lock| lock.strong_count() > 0);
            }
            match locks.get(&showtime).and_then(Weak::upgrade) {
                Some(lock) => lock,
                None => {
                    let lock = Arc::new(tokio::sync::Mutex::new(()));
                    locks.insert(showtime, Arc::downgrade(&lock));
                    lock
                }
            }
        };
        lock.lock_owned().await
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn one_showtime_is_locked_by_one_holder_at_a_time() {
        let locks = ShowtimeLocks::default();
        let first = locks.lock(ShowtimeId([1; 12])).await;
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
    async fn unused_locks_are_pruned() {
        let locks = ShowtimeLocks::default();
        for i in 0..=PRUNE_ABOVE + 1 {
            let mut id = [0; 12];
            id[..8].copy_from_slice(&(i as u64).to_le_bytes());
            drop(locks.lock(ShowtimeId(id)).await);
        }
        assert!(locks.locks.lock().unwrap().len() <= 2);
    }
}
