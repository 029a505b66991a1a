//! What this process noted for one of its background loops to take: showtimes with freed
//! seats for the waiting lists (`freed`), the entries its changes left in outboxes for the
//! relay (`outbox`). A note saves the loop a database read to learn what to do; a note lost
//! with its process (or dropped past the cap) is made up by that loop's periodic pass.

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::Mutex;

use tokio::sync::Notify;

/// Past this many notes (keys, or outbox entries) not taken, notes are dropped: the loop's
/// periodic pass finds those instead.
pub(super) const MOST_PENDING: usize = 10_000;

/// What notes pile up in until a loop takes them.
pub trait Pile: Default {
    /// One note.
    type Note;
    /// What a loop takes.
    type Taken;
    /// How much of the cap the pile holds.
    fn size(&self) -> usize;
    /// How much of the cap `note` would take.
    fn size_of(note: &Self::Note) -> usize;
    fn add(&mut self, note: Self::Note);
    fn is_empty(&self) -> bool;
    fn taken(self) -> Self::Taken;
}

/// Keys noted once however often: showtimes with freed seats.
impl<T: Eq + Hash> Pile for HashSet<T> {
    type Note = T;
    type Taken = Vec<T>;

    fn size(&self) -> usize {
        self.len()
    }

    fn size_of(_: &T) -> usize {
        1
    }

    fn add(&mut self, key: T) {
        self.insert(key);
    }

    fn is_empty(&self) -> bool {
        HashSet::is_empty(self)
    }

    fn taken(self) -> Vec<T> {
        self.into_iter().collect()
    }
}

/// Notes not taken yet, and a wake-up for the loop that takes them.
#[derive(Debug)]
pub struct Notes<P> {
    pending: Mutex<P>,
    noted: Notify,
}

impl<P: Default> Default for Notes<P> {
    fn default() -> Self {
        Notes {
            pending: Mutex::new(P::default()),
            noted: Notify::new(),
        }
    }
}

impl<P: Pile> Notes<P> {
    /// Notes `note` (unless the cap is reached) and wakes the loop.
    pub fn note(&self, note: P::Note) {
        let mut pending = self.pending.lock().expect("notes lock");
        if pending.size() + P::size_of(&note) <= MOST_PENDING {
            pending.add(note);
        }
        drop(pending);
        self.noted.notify_one();
    }

    /// Waits until something is noted (without taking it).
    pub async fn ready(&self) {
        loop {
            if !self.pending.lock().expect("notes lock").is_empty() {
                return;
            }
            self.noted.notified().await;
        }
    }

    /// Takes every note now (none when nothing is noted).
    pub fn take_now(&self) -> P::Taken {
        std::mem::take(&mut *self.pending.lock().expect("notes lock")).taken()
    }

    /// Waits until something is noted, and takes every note.
    pub async fn take(&self) -> P::Taken {
        loop {
            let taken = std::mem::take(&mut *self.pending.lock().expect("notes lock"));
            if !taken.is_empty() {
                return taken.taken();
            }
            self.noted.notified().await;
        }
    }
}
