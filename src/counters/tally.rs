//! Approximate counters (seed 002's approximation pattern): a movie's want-to-see count and a
//! showtime's page views, shown on listings, are not written on every change. Each gateway
//! adds its changes up in memory and writes each counter once a [`FLUSH_EVERY`] (one `$inc`
//! per counter that moved); the want-to-see counts are set again from the exact count (the
//! by-movie buckets) every `want_to_see::RECONCILE_EVERY`.
//!
//! Every increment is written once, even when the database applies it and the answer is
//! lost: it carries its gateway's name and the number of the flush that first sent it, and
//! the counter's document remembers the last number it took from each gateway (see
//! `counters::store`). A refused or unanswered increment is sent again, with the same number,
//! until the database says it has it; what the gateway counts meanwhile waits for it.
//!
//! So a stored view count is exact for every view a gateway flushed, and late by at most
//! that gateway's last second; only a gateway killed before its flush (no graceful stop)
//! loses what it held. The want-to-see bound: a shown count differs from the exact one by at
//! most the changes of the last [`FLUSH_EVERY`] on every gateway, plus, until the next
//! reconciliation, the changes a killed gateway held and the marks and unmarks it left half
//! done.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use super::rules::{Counted, Increment};
use crate::domain::ids::MovieId;
use crate::error::ApiError;
use crate::store::{CrashPoint, Store};

/// How often a gateway writes the counters that moved.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// How long a counter remembers a gateway's last flush: an increment unanswered for longer
/// than this (a database down for a day) could be counted twice once it answers.
pub const FLUSH_MARKS_KEPT: Duration = Duration::from_secs(24 * 3600);

/// One gateway's changes to the approximate counters, not written yet.
#[derive(Debug)]
pub struct Tally {
    /// This process's name on the counters: random, so no two gateways (nor one gateway
    /// and its restart) share one.
    gateway: String,
    unwritten: Mutex<Unwritten>,
}

#[derive(Debug, Default)]
struct Unwritten {
    /// The last flush's number: milliseconds since the epoch, rising at every flush.
    last_flush: i64,
    /// Counted since the last flush.
    pending: HashMap<Counted, i64>,
    /// Sent and not acknowledged: sent again, unchanged, at every flush until acknowledged.
    unacknowledged: HashMap<Counted, Increment>,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            gateway: format!("{:016x}", rand::random::<u64>()),
            unwritten: Mutex::default(),
        }
    }
}

impl Tally {
    /// Counts `by` more (or fewer) of `counted`.
    pub fn add(&self, counted: Counted, by: i64) {
        if by != 0 {
            *self.lock().pending.entry(counted).or_default() += by;
        }
    }

    /// What this gateway counted of `counted` and the database has not acknowledged.
    pub fn pending(&self, counted: Counted) -> i64 {
        let unwritten = self.lock();
        unwritten.pending.get(&counted).copied().unwrap_or(0)
            + unwritten.unacknowledged.get(&counted).map_or(0, |i| i.by)
    }

    /// Writes every counter that moved, and sends again what was not acknowledged. Returns
    /// how many counters were written; an error when any was not (it is kept).
    #[tracing::instrument(skip(self, store), fields(gateway = %self.gateway))]
    pub async fn flush(&self, store: &Store) -> Result<usize, ApiError> {
        let sent: Vec<Increment> = {
            let mut unwritten = self.lock();
            let now = chrono::Utc::now().timestamp_millis();
            let flush = now.max(unwritten.last_flush + 1);
            unwritten.last_flush = flush;
            let Unwritten {
                pending,
                unacknowledged,
                ..
            } = &mut *unwritten;
            // A counter with an unacknowledged increment keeps its new counts back: sent
            // with a newer number, they would make the older one look written.
            pending.retain(|&counted, &mut by| {
                if by == 0 || unacknowledged.contains_key(&counted) {
                    return by != 0;
                }
                unacknowledged.insert(counted, Increment { counted, by, flush });
                false
            });
            unacknowledged.values().copied().collect()
        };
        if sent.is_empty() {
            return Ok(0);
        }
        let answers = store.add_tallies(&self.gateway, &sent).await;
        let lost_answer = store.crash_armed(CrashPoint::TallyAnswerLost);
        let mut written = 0;
        let mut failure = None;
        let mut unwritten = self.lock();
        for (increment, answer) in sent.iter().zip(answers) {
            match answer {
                Ok(()) if !lost_answer => {
                    unwritten.unacknowledged.remove(&increment.counted);
                    written += 1;
                }
                Ok(()) => {
                    failure.get_or_insert_with(|| ApiError::unavailable("a test lost the answer"));
                }
                Err(error) => {
                    failure.get_or_insert(error);
                }
            }
        }
        failure.map_or(Ok(written), Err)
    }

    /// Flushes every [`FLUSH_EVERY`] while the tally is alive (the gateway's state holds it).
    pub async fn run(tally: Weak<Tally>, store: Store) {
        let mut ticks = tokio::time::interval(FLUSH_EVERY);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let Some(tally) = tally.upgrade() else { return };
            if let Err(error) = tally.flush(&store).await {
                tracing::warn!(%error, "writing the approximate counters failed; kept for the next flush");
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Unwritten> {
        self.unwritten.lock().expect("tally lock")
    }
}

/// The counters of `counted` as written so far (one `find`); a counter never written is
/// left out (it is 0).
pub async fn counts(store: &Store, counted: &[Counted]) -> Result<HashMap<Counted, i64>, ApiError> {
    store.tallies(counted).await
}

/// Sets `movie`'s shown want-to-see count to `exact` (the reconciliation's correction).
pub async fn set_want_to_see(store: &Store, movie: MovieId, exact: i64) -> Result<(), ApiError> {
    store.set_want_to_see_tally(movie, exact).await
}

/// Forgets the gateways' flush marks older than [`FLUSH_MARKS_KEPT`].
pub async fn prune_flush_marks(store: &Store) -> Result<(), ApiError> {
    let kept = chrono::Duration::from_std(FLUSH_MARKS_KEPT).expect("a day fits");
    store
        .prune_flush_marks((chrono::Utc::now() - kept).timestamp_millis())
        .await
}

/// The tally of a gateway whose state is made by `AppState::new`, flushing in the background
/// (on the background lane's connections).
pub fn started(store: &Store) -> Arc<Tally> {
    let tally = Arc::new(Tally::default());
    tokio::spawn(Tally::run(Arc::downgrade(&tally), store.background()));
    tally
}
