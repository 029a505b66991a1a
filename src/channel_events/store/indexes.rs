//! The channel events' indexes (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, unique, Wanted};
use crate::store::names::EVENTS;
use crate::store::Store;

impl Store {
    /// The indexes of the channels' logs.
    pub(crate) fn channel_events_indexes() -> Vec<Wanted> {
        vec![
            // Channel events: each channel's log in order (seed 004's composite key that sorts by
            // time), deleted at their expiry; the documents with events still to relay.
            unique(
                EVENTS,
                doc! { "channel": 1, "sequence": 1 },
                "channel_sequence",
            ),
            Wanted {
                expire_after: Some(std::time::Duration::ZERO),
                ..index(EVENTS, doc! { "expiresAt": 1 }, "expiry")
            },
        ]
    }
}
