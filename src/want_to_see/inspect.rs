//! What the tests read of the want-to-see documents as stored (feature `test-hooks` only):
//! the feature's store code is its own, and these are the tests' window on it.

use super::store::documents::{WantBucketDoc, WantCountDoc, WantListDoc};
use crate::domain::ids::MovieId;
use crate::error::ApiError;
use crate::store::Store;

/// A customer's list (`channel/customer`) as stored.
pub async fn want_list(store: &Store, wanter: &str) -> Result<Option<WantListDoc>, ApiError> {
    store.want_list(wanter).await
}

/// `movie`'s buckets from `from` down, at most `limit`.
pub async fn wanter_buckets(
    store: &Store,
    movie: MovieId,
    from: i64,
    limit: usize,
) -> Result<Vec<WantBucketDoc>, ApiError> {
    store.wanter_buckets(movie, from, limit).await
}

/// `movie`'s wanters, counted from its buckets.
pub async fn exact_wanter_count(store: &Store, movie: MovieId) -> Result<i64, ApiError> {
    store.exact_wanter_count(movie).await
}

/// `movie`'s mark sequence and outlier flag.
pub async fn sequence(store: &Store, movie: MovieId) -> Result<WantCountDoc, ApiError> {
    store.want_counts(movie).await
}
