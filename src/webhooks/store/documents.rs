//! The shapes of webhooks: `webhook_endpoints` (where a channel's events go, and how far each
//! endpoint has got in the channel's log) and `webhook_deliveries` (each event's attempts).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::channel_events::rules::EventType;
use crate::domain::ids::{ResourceId, WebhookId};
use crate::store::codec;

/// `webhook_endpoints`: one URL a channel's events are POSTed to, in the log's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookEndpointDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: WebhookId,
    pub schema_version: i32,
    pub channel: String,
    pub url: String,
    /// The event types sent; all when empty.
    #[serde(default)]
    pub types: Vec<EventType>,
    #[serde(with = "codec::time")]
    pub created_at: DateTime<Utc>,
    /// The last sequence number of the channel's log this endpoint is done with (sent, or
    /// given up on); it starts at the log's end when the endpoint is made.
    pub delivered: i64,
    /// When a gateway should look at it: set when events were appended to the channel's log,
    /// or to the next try after a failure; absent when it has nothing to do.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_time"
    )]
    pub due_at: Option<DateTime<Utc>>,
    /// The gateway delivering to it now, until when: every write of that gateway carries
    /// the token in its filter, so one that lost its lease writes (and sends) nothing more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<LeaseDoc>,
    /// Failed attempts in a row at the event after `delivered`.
    #[serde(default)]
    pub failures: i32,
    /// How many times something was asked of it (events appended to its channel's log, a
    /// redelivery): a delivery gives its lease up as "nothing to do" only if this did not
    /// grow since it took the endpoint. `dueAt` cannot say so: an endpoint being delivered to
    /// is due already, and marking it due again (`$min`) leaves `dueAt` as it was.
    #[serde(default)]
    pub asked: i64,
    /// Events the channel asked to have sent again (their log ids).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redeliver: Vec<String>,
    /// The endpoint's place under the channel's cap (`webhooks::rules::cap_slots`), as
    /// `<channel>#<slot>`: unique (index `cap_slot`), so no race passes the cap. Absent in
    /// endpoints made before the cap was kept so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap_slot: Option<String>,
}

impl WebhookEndpointDoc {
    /// The slot of `cap_slot`.
    pub fn slot(&self) -> Option<u32> {
        let (_, slot) = self.cap_slot.as_deref()?.rsplit_once('#')?;
        slot.parse().ok()
    }

    /// `cap_slot` for slot `slot` of `channel`.
    pub fn cap_slot_of(channel: &str, slot: u32) -> String {
        format!("{channel}#{slot}")
    }
}

/// A delivery lease.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseDoc {
    #[serde(with = "codec::id")]
    pub token: ResourceId,
    #[serde(with = "codec::time")]
    pub until: DateTime<Utc>,
}

/// Where an event's delivery to an endpoint stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DeliveryStatus {
    /// Tried, not answered with 2xx yet: it will be tried again.
    Pending,
    /// Answered with 2xx.
    Delivered,
    /// Given up on: the event left the retention before an attempt succeeded.
    Failed,
}

/// `webhook_deliveries`: one event's delivery to one endpoint, `_id` = endpoint and event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookDeliveryDoc {
    #[serde(rename = "_id")]
    pub id: String,
    pub schema_version: i32,
    #[serde(with = "codec::id")]
    pub endpoint: WebhookId,
    pub channel: String,
    /// The event's id in the log.
    pub event: String,
    pub sequence: i64,
    #[serde(rename = "type")]
    pub kind: EventType,
    pub status: DeliveryStatus,
    /// The latest attempts, oldest first (at most [`ATTEMPTS_KEPT`]).
    pub attempts: Vec<AttemptDoc>,
    #[serde(with = "codec::time")]
    pub last_attempt_at: DateTime<Utc>,
    /// When the TTL index deletes it (with its event).
    #[serde(with = "codec::time")]
    pub expires_at: DateTime<Utc>,
}

/// How many attempts a delivery keeps.
pub const ATTEMPTS_KEPT: i32 = 20;

/// One POST of an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptDoc {
    #[serde(with = "codec::time")]
    pub at: DateTime<Utc>,
    /// The HTTP status the endpoint answered, if it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_code: Option<i32>,
    /// Why it failed without an answer (timeout, refused connection, refused target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub duration_ms: i64,
    /// Sent again because the channel asked (`redeliverWebhookEvent`).
    #[serde(default)]
    pub redelivery: bool,
}

impl WebhookDeliveryDoc {
    /// The id of event `event`'s delivery to `endpoint`.
    pub fn id_of(endpoint: WebhookId, event: &str) -> String {
        format!("{endpoint}/{event}")
    }
}
