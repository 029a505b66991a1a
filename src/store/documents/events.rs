//! The shapes of the outbox: the entry a change leaves in its document's `outbox` (in the same
//! atomic update as the change), and what an event says (shared with `channel_events`' log).
//! Shared: the inventory and the catalogue write entries, and `store::outbox` reads them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::channel_events::rules::EventType;
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
