//! The subscription roots, one per feature, merged into `Subscription`. They run over the
//! WebSocket transport only (`http::websocket`), with the process's live hub in their data
//! (`live::graphql::live`).

use async_graphql::MergedSubscription;

/// Everything a client can watch live.
#[derive(MergedSubscription, Default)]
pub struct Subscription(
    crate::live::graphql::SeatMapSubscription,
    crate::orders::graphql::OrderSubscription,
    crate::live::graphql::ChannelEventSubscription,
);
