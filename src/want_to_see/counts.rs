//! A movie's want-to-see counts: the exact one (its buckets), and the shown one (an
//! approximate counter, `counters`), set to the exact one every [`RECONCILE_EVERY`].

use std::collections::HashMap;
use std::time::Duration;

use crate::counters::{self, Counted};
use crate::domain::ids::MovieId;
use crate::error::ApiError;
use crate::store::Store;

/// How often the shown want-to-see counts are set to the exact ones (and the counters' old
/// flush marks pruned).
pub const RECONCILE_EVERY: Duration = Duration::from_secs(600);

/// A movie's want-to-see figures for the platform operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WantCounts {
    /// Counted from the movie's buckets.
    pub exact: i64,
    /// What listings show (`Movie.wantToSeeCount`).
    pub shown: i64,
    /// Whether its wanters outgrew a bucket.
    pub outlier: bool,
}

/// `movie`'s exact and shown want-to-see counts, and whether it is an outlier (three reads at
/// once).
pub async fn want_counts(store: &Store, movie: MovieId) -> Result<WantCounts, ApiError> {
    let counted = [Counted::WantToSee(movie)];
    let (exact, sequence, shown) = futures::try_join!(
        Box::pin(store.exact_wanter_count(movie)),
        Box::pin(store.want_counts(movie)),
        Box::pin(counters::counts(store, &counted))
    )?;
    Ok(WantCounts {
        exact,
        shown: shown.get(&counted[0]).copied().unwrap_or(0),
        outlier: sequence.outlier,
    })
}

/// Sets each marked movie's shown want-to-see count to its exact count (the sizes of its
/// buckets, summed for every movie in one aggregation); returns how many were off. Run every
/// [`RECONCILE_EVERY`], with the pruning of the counters' old flush marks.
#[tracing::instrument(skip(store))]
pub async fn reconcile_counts(store: &Store) -> Result<usize, ApiError> {
    let movies = store.marked_movies(100_000).await?;
    let exact: HashMap<MovieId, i64> = store.exact_wanter_counts().await?.into_iter().collect();
    let mut corrected = 0;
    for chunk in movies.chunks(1000) {
        let counted: Vec<Counted> = chunk.iter().map(|&m| Counted::WantToSee(m)).collect();
        let shown = counters::counts(store, &counted).await?;
        for (&movie, counted) in chunk.iter().zip(&counted) {
            let exact = exact.get(&movie).copied().unwrap_or(0);
            let now = shown.get(counted).copied().unwrap_or(0);
            if now != exact {
                counters::set_want_to_see(store, movie, exact).await?;
                corrected += 1;
            }
        }
    }
    counters::prune_flush_marks(store).await?;
    Ok(corrected)
}
