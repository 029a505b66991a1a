//! The calling channel's event log.

use async_graphql::connection::Connection;
use async_graphql::{Context, Object};

use super::types::{ChannelEvent, ChannelEventType};
use crate::channel_events;
use crate::channel_events::rules::EventType;
use crate::domain::cursor::Cursor;
use crate::domain::input_caps;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{connection, page_cost};

#[derive(Default)]
pub struct EventQuery;

#[Object]
impl EventQuery {
    /// The calling channel's events, oldest first: every change to its holds and orders and to
    /// the showtimes it sells, whoever made it, kept for the event retention (7 days unless
    /// configured). Read on from the last event's `cursor` to miss nothing; a cursor older
    /// than the retention is CURSOR_EXPIRED.
    #[tracing::instrument(skip(self, ctx, types))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn events(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "How many events (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last event read: the page starts after it.")]
        after: Option<String>,
        #[graphql(desc = "Only events of these types (all when absent).")] types: Option<
            Vec<ChannelEventType>,
        >,
    ) -> Result<Connection<Cursor, ChannelEvent>, ApiError> {
        let channel = ctx.calling_channel("reading events")?;
        let page = ctx.page(first, after)?;
        let types = event_types(types)?;
        let events =
            channel_events::list_events(ctx.store(), channel, &page, types.as_deref()).await?;
        Ok(connection(events, ChannelEvent))
    }
}

/// The types asked for: at least one when the list is given, and at most as many as there are
/// (each once: a subscriber's list is looked through for every event it is sent).
pub(crate) fn event_types(
    types: Option<Vec<ChannelEventType>>,
) -> Result<Option<Vec<EventType>>, ApiError> {
    let Some(types) = types else {
        return Ok(None);
    };
    if types.is_empty() {
        return Err(ApiError::bad_input(
            "types: name at least one event type, or leave it out for all",
        ));
    }
    input_caps::list("types", &types, EventType::ALL.len())?;
    let mut distinct: Vec<EventType> = Vec::with_capacity(types.len());
    for kind in types.into_iter().map(EventType::from) {
        if !distinct.contains(&kind) {
            distinct.push(kind);
        }
    }
    Ok(Some(distinct))
}
