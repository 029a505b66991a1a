//! The channel events' part of the schema: `Query.events`, `ChannelEvent` and
//! `ChannelEventType`. `Subscription.channelEvents` is the live hub's (`live::graphql`), which
//! follows the log.

pub mod query;
pub mod types;

pub use query::EventQuery;
pub use types::{ChannelEvent, ChannelEventType};
