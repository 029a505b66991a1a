//! Approximate counters (seed 002's approximation pattern): a movie's want-to-see count and a
//! showtime's page views, shown on listings, are not written on every change. Each gateway
//! adds its changes up in memory and writes each counter once a [`FLUSH_EVERY`] (one `$inc`
//! per counter that moved); the want-to-see counts are set again from the exact count (the
//! by-movie buckets) every [`RECONCILE_EVERY`].
//!
//! The error bound: a shown count differs from the exact one by at most the changes of the
//! last [`FLUSH_EVERY`] on every gateway, plus, until the next reconciliation, the changes a
//! gateway held when it died (its last second's) and the marks and unmarks it left half done.
//! A flush the database refused is kept and tried again. Views have no exact count: they are
//! these figures.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use crate::domain::ids::MovieId;
use crate::error::ApiError;
use crate::store::{Counted, Store};

/// How often a gateway writes the counters that moved.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// How often the shown want-to-see counts are set to the exact ones.
pub const RECONCILE_EVERY: Duration = Duration::from_secs(600);

/// One gateway's changes to the approximate counters, not written yet.
#[derive(Debug, Default)]
pub struct Tally {
    pending: Mutex<HashMap<Counted, i64>>,
}

impl Tally {
    /// Counts `by` more (or fewer) of `counted`.
    pub fn add(&self, counted: Counted, by: i64) {
        if by != 0 {
            *self
                .pending
                .lock()
                .expect("tally lock")
                .entry(counted)
                .or_default() += by;
        }
    }

    /// What this gateway counted of `counted` and has not written yet.
    pub fn pending(&self, counted: Counted) -> i64 {
        let pending = self.pending.lock().expect("tally lock");
        pending.get(&counted).copied().unwrap_or(0)
    }

    /// Writes every counter that moved; on failure keeps the changes for the next flush.
    /// Returns how many counters were written.
    #[tracing::instrument(skip(self, store))]
    pub async fn flush(&self, store: &Store) -> Result<usize, ApiError> {
        let moved: Vec<(Counted, i64)> = {
            let mut pending = self.pending.lock().expect("tally lock");
            pending.drain().filter(|&(_, by)| by != 0).collect()
        };
        if moved.is_empty() {
            return Ok(0);
        }
        if let Err(error) = store.add_tallies(&moved).await {
            // Some may have been written: an `$inc` the database applied without answering
            // is counted twice. Keeping them is the smaller error than losing them all.
            for (counted, by) in moved {
                self.add(counted, by);
            }
            return Err(error);
        }
        Ok(moved.len())
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
}

/// Sets each marked movie's shown want-to-see count to its exact count (the sizes of its
/// buckets, summed for every movie in one aggregation); returns how many were off. Run every
/// [`RECONCILE_EVERY`].
#[tracing::instrument(skip(store))]
pub async fn reconcile_want_to_see(store: &Store) -> Result<usize, ApiError> {
    let movies = store.marked_movies(100_000).await?;
    let exact: HashMap<MovieId, i64> = store.exact_wanter_counts().await?.into_iter().collect();
    let mut corrected = 0;
    for chunk in movies.chunks(1000) {
        let counted: Vec<Counted> = chunk.iter().map(|&m| Counted::WantToSee(m)).collect();
        let shown = store.tallies(&counted).await?;
        for (&movie, &counted) in chunk.iter().zip(&counted) {
            let exact = exact.get(&movie).copied().unwrap_or(0);
            let now = shown
                .iter()
                .find(|tally| tally.counts(counted))
                .map_or(0, |tally| tally.of(counted));
            if now != exact {
                store.set_want_to_see_tally(movie, exact).await?;
                corrected += 1;
            }
        }
    }
    Ok(corrected)
}

/// The tally of a gateway whose state is made by `AppState::new`, flushing in the background.
pub fn started(store: &Store) -> Arc<Tally> {
    let tally = Arc::new(Tally::default());
    tokio::spawn(Tally::run(Arc::downgrade(&tally), store.clone()));
    tally
}
