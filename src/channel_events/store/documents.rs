//! The shape of `events`, the channels' logs: only `channel_events` appends to them (the relay);
//! webhooks and live feeds read them through `channel_events::EventDoc`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::channel_events::rules::{ChannelEvent, EventDetails, EventType};
use crate::domain::ids::EventId;
use crate::store::codec;
use crate::store::documents::EventDetailsDoc;

/// `events`: one entry of a channel's log. `_id` is the entry's id and the channel, so an
/// entry relayed twice (two gateways, a retry) is appended once; `channel` and `sequence`
/// are unique together, and each sequence is appended only once the one before it is in
/// the log, so every reader sees a gap-free prefix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub schema_version: i32,
    pub channel: String,
    pub sequence: i64,
    #[serde(rename = "type")]
    pub kind: EventType,
    #[serde(with = "codec::time")]
    pub at: DateTime<Utc>,
    /// When the TTL index deletes it (the retention, and a slack: see `channel_events::rules`).
    #[serde(with = "codec::time")]
    pub expires_at: DateTime<Utc>,
    #[serde(flatten)]
    pub details: EventDetailsDoc,
}

impl EventDoc {
    /// The log's id of entry `entry` told to `channel`.
    pub fn id_of(entry: EventId, channel: &str) -> String {
        format!("{entry}:{channel}")
    }
}

impl From<EventDoc> for ChannelEvent {
    fn from(doc: EventDoc) -> Self {
        let details = doc.details;
        ChannelEvent {
            id: doc.id,
            channel: doc.channel,
            sequence: doc.sequence,
            kind: doc.kind,
            at: doc.at,
            expires_at: doc.expires_at,
            details: EventDetails {
                showtime: details.showtime,
                hold: details.hold,
                order: details.order,
                seats: details.seats,
                refund: details.refund.zip(details.amount),
                reason: details.reason,
                door: details.door,
                revision: details.revision,
                customer: details.customer,
            },
        }
    }
}
