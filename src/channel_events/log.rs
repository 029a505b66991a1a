//! Reading a channel's event log (the relay in `events` writes it).

use crate::channel_events::rules::{ChannelEvent, EventCursor, EventType};
use crate::channel_events::store::documents::EventDoc;
use crate::domain::cursor::Cursor;
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::store::{self, Store};

/// One page of `channel`'s events after the page's cursor (from the start of the log kept
/// without one), of `types` when given, in the log's order. A cursor whose event the log may
/// have deleted is CURSOR_EXPIRED.
#[tracing::instrument(skip(store))]
pub async fn list_events(
    store: &Store,
    channel: &str,
    page: &PageRequest,
    types: Option<&[EventType]>,
) -> Result<Page<ChannelEvent>, ApiError> {
    let after = read_cursor(page.after.as_deref())?;
    let sequence = after.map_or(0, |cursor| cursor.sequence);
    let fetched = store
        .events_after(channel, sequence, types, page.first + 1)
        .await?;
    let events = fetched.into_iter().map(ChannelEvent::from).collect();
    Ok(Page::from_fetched(events, page, |event| {
        let cursor = event.cursor();
        Cursor::lazy(move || cursor.encode())
    }))
}

/// Reads a cursor of the event log, now: BAD_USER_INPUT when it is not one, CURSOR_EXPIRED
/// when it is too old.
pub fn read_cursor(cursor: Option<&str>) -> Result<Option<EventCursor>, ApiError> {
    cursor
        .map(|cursor| EventCursor::decode(cursor, store::now()))
        .transpose()
}

/// The sequence number of `channel`'s last event (0 when its log is empty).
pub async fn last_sequence(store: &Store, channel: &str) -> Result<i64, ApiError> {
    store.last_event_sequence(channel, 0).await
}

/// `channel`'s event `id` (its log id), if the log still holds it.
pub async fn event_by_id(
    store: &Store,
    channel: &str,
    id: &str,
) -> Result<Option<EventDoc>, ApiError> {
    store.event_by_id(channel, id).await
}

/// `channel`'s events after sequence number `after`, of `types` (all when `None`), at most
/// `limit`, in the log's order.
pub async fn events_after(
    store: &Store,
    channel: &str,
    after: i64,
    types: Option<&[EventType]>,
    limit: usize,
) -> Result<Vec<EventDoc>, ApiError> {
    store.events_after(channel, after, types, limit).await
}
