//! The channel events' part of the schema: `Query.events`, `Subscription.channelEvents`,
//! `ChannelEvent` and `ChannelEventType`.

pub mod query;
pub mod subscription;
pub mod types;

pub use query::EventQuery;
pub use subscription::EventSubscription;
pub use types::{ChannelEvent, ChannelEventType};
