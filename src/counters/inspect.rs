//! What the tests do to the counters' documents directly (feature `test-hooks` only).

use crate::error::ApiError;
use crate::store::Store;

/// Forgets the gateways' flush marks taken before `before` (milliseconds since the epoch).
pub async fn prune_flush_marks_before(store: &Store, before: i64) -> Result<(), ApiError> {
    store.prune_flush_marks(before).await
}
