//! What this process noted for one of its background loops to take: showtimes with freed
//! seats for the waiting lists (`freed`; the relay's notes carry entries: `outbox`). A note
//! saves the loop a database read to learn what to do; a note lost with its process is made
//! up by that loop's periodic pass.

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::Mutex;

use tokio::sync::Notify;

/// Past this many, notes are dropped: the loop's periodic pass finds those instead.
const MOST_PENDING: usize = 10_000;

/// Noted keys not taken yet, and a wake-up for the loop that takes them.
#[derive(Debug)]
pub struct Notes<T> {
    pending: Mutex<HashSet<T>>,
    noted: Notify,
}

impl<T> Default for Notes<T> {
    fn default() -> Self {
        Notes {
            pending: Mutex::new(HashSet::new()),
            noted: Notify::new(),
        }
    }
}

impl<T: Eq + Hash> Notes<T> {
    /// Notes `key` and wakes the loop.
    pub fn note(&self, key: T) {
        let mut pending = self.pending.lock().expect("notes lock");
        if pending.len() < MOST_PENDING {
            pending.insert(key);
        }
        drop(pending);
        self.noted.notify_one();
    }

    /// Waits until something is noted, and takes every note.
    pub async fn take(&self) -> Vec<T> {
        loop {
            let taken: Vec<T> = self.pending.lock().expect("notes lock").drain().collect();
            if !taken.is_empty() {
                return taken;
            }
            self.noted.notified().await;
        }
    }
}
