//! The subscription roots, one per feature, merged into `Subscription`. They run over the
//! WebSocket transport only (`http::websocket`), with the process's live hub in their data.

use async_graphql::{Context, MergedSubscription};

use crate::error::ApiError;
use crate::live::Live;

/// Everything a client can watch live.
#[derive(MergedSubscription, Default)]
pub struct Subscription(
    crate::live::graphql::SeatMapSubscription,
    crate::orders::graphql::OrderSubscription,
    crate::channel_events::graphql::EventSubscription,
);

/// The process's live hub, which the WebSocket transport puts in every subscription's data.
pub(crate) fn live<'a>(ctx: &'a Context<'_>) -> Result<&'a Live, ApiError> {
    ctx.data::<Live>().map_err(|_| {
        ApiError::bad_input("subscriptions run over WebSocket (graphql-transport-ws) only")
    })
}
