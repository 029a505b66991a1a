//! `channelEvents`: the calling channel's event log, from a cursor, then live. Here, beside
//! the live hub it follows (`Live::channel_events`), rather than in `channel_events`, which
//! the live hub depends on: the channel events' types and checks are theirs.

use async_graphql::{Context, Subscription};
use futures::{Stream, StreamExt};

use super::live;
use crate::channel_events;
use crate::channel_events::graphql::query::event_types;
use crate::channel_events::graphql::{ChannelEvent, ChannelEventType};
use crate::error::ApiError;
use crate::graphql::context::ContextExt;

#[derive(Default)]
pub struct ChannelEventSubscription;

#[Subscription]
impl ChannelEventSubscription {
    /// The calling channel's events after `after` (read from the log), then each as it is
    /// appended, with no gap and no repeat between the two; without `after`, from now on. A
    /// client that reconnects with the `cursor` of the last event it received misses nothing;
    /// a cursor older than the retention is CURSOR_EXPIRED. Ends with UNAVAILABLE when the
    /// database cannot be read: subscribe again from the last cursor.
    #[tracing::instrument(skip(self, ctx))]
    async fn channel_events(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The `cursor` of the last event received.")] after: Option<String>,
        #[graphql(desc = "Only events of these types (all when absent).")] types: Option<
            Vec<ChannelEventType>,
        >,
    ) -> Result<impl Stream<Item = Result<ChannelEvent, ApiError>>, ApiError> {
        let channel = ctx.calling_channel("watching events")?;
        let after = channel_events::read_cursor(after.as_deref())?;
        let types = event_types(types)?;
        let live = live(ctx)?;
        let events = live.channel_events(channel, after, types);
        Ok(events.map(|event| event.map(ChannelEvent)))
    }
}
