//! What the tests do to the channel logs directly (feature `test-hooks` only): append events
//! as a relay would, to race and replay appends.

use crate::channel_events::store::documents::EventDoc;
use crate::error::ApiError;
use crate::store::Store;

/// Appends a run of events of one channel (see `Store::append_events`).
pub async fn append_events(store: &Store, events: &[EventDoc]) -> Result<usize, ApiError> {
    store.append_events(events).await
}
