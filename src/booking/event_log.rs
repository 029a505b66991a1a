//! Reading a channel's event log (the relay in `events` writes it).

use crate::domain::events::{ChannelEvent, EventCursor, EventType};
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
        event.cursor().encode()
    }))
}

/// Reads a cursor of the event log, now: BAD_USER_INPUT when it is not one, CURSOR_EXPIRED
/// when it is too old.
pub fn read_cursor(cursor: Option<&str>) -> Result<Option<EventCursor>, ApiError> {
    cursor
        .map(|cursor| EventCursor::decode(cursor, store::now()))
        .transpose()
}
