//! Channel events (seed 004's event log): what happened to a channel's holds and orders, in
//! one log per channel, read with a cursor (`Query.events`), followed live
//! (`Subscription.channelEvents`) and sent to webhooks.
//!
//! A change a channel must hear of leaves an outbox entry in the changed document, in the same
//! update (`store::outbox`, shared by every feature that writes seats or showtimes); the relay
//! (`relay`) appends the entries to the channels' logs, numbered in order (`append`), and clears them; it
//! tells a handler which logs grew (`growth`: webhooks registers one, where the process is
//! assembled, and marks the channels' endpoints due). Each channel's log has one appender among
//! the live gateways, to which the others hand its events (`handoff`). It owns the `events` collection
//! (`store/log.rs`). Laid out as every feature is: `rules` (pure: the event types, the cursor,
//! the retention), the use cases (`relay`, `log`), `store`, `graphql`.

mod append;
pub mod graphql;
pub mod growth;
pub mod handoff;
mod in_time_order;
#[cfg(feature = "test-hooks")]
pub mod inspect;
pub mod log;
pub mod relay;
mod remembered;
pub mod rules;
pub mod store;
mod theirs_in_log;
mod uncleared;

pub use handoff::{Appenders, Handed};
pub use log::{event_by_id, events_after, last_sequence, list_events, read_cursor};
pub use relay::{EventRelay, CLEAR_AFTER, LIVE_EVERY, STALE_AFTER};
pub use store::documents::EventDoc;
