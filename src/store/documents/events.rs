//! The shapes of channel events: the entry a change leaves in its document's `outbox` (in the
//! same atomic update as the change), and the event the relay appends to `events`, the
//! channels' logs.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::channel_events::rules::{ChannelEvent, EventDetails, EventType};
use crate::domain::ids::{EventId, HoldId, OrderId, ResourceId, ShowtimeId};
use crate::store::codec;

/// What an event says of the objects it concerns (shared by outbox entries and events).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventDetailsDoc {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub showtime: Option<ShowtimeId>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub hold: Option<HoldId>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub order: Option<OrderId>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seats: Vec<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub refund: Option<ResourceId>,
    /// The refund's amount, in fen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub door: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
    /// The channel's customer an offer is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer: Option<String>,
}

/// One entry of a document's `outbox`: an event its change made, not yet in the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboxEntryDoc {
    #[serde(with = "codec::id")]
    pub id: EventId,
    #[serde(rename = "type")]
    pub kind: EventType,
    /// Written from the gateway's clock when the change was made.
    #[serde(with = "codec::time")]
    pub at: DateTime<Utc>,
    /// The channel told; absent when the relay finds it out (the channel of `order`, or
    /// every channel that sells `showtime`), so the change need not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    #[serde(flatten)]
    pub details: EventDetailsDoc,
}

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
