//! Channel events: what a sales channel is told of the changes to its holds and orders and to
//! the showtimes it sells, whoever made them (the channel, a cinema's operator, the door, the
//! expiry of a hold). Each channel's events form one log with a total order: `sequence` counts
//! 1, 2, 3, … per channel, and a position in it (a cursor) is where a reader left off.
//!
//! A cursor carries the expiry of its event: the log keeps an event at least `retention` after
//! it was made (its stored expiry adds [`EXPIRY_SLACK`]), and a cursor whose event may be gone
//! is CURSOR_EXPIRED, never read on from (that could skip events silently).

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::domain::cursor;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::{HoldId, OrderId, ResourceId, ShowtimeId};
use crate::error::ApiError;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EventType {
    /// Seats were held for the channel.
    HoldPlaced,
    /// The channel released a hold, or a showtime's cancellation did.
    HoldReleased,
    /// A hold lapsed and its seats went back on sale.
    HoldExpired,
    /// A hold was sold to an order.
    OrderConfirmed,
    /// Some seats of an order were cancelled and refunded; the order stays CONFIRMED.
    OrderRefunded,
    /// Every remaining seat of an order was cancelled and refunded: the order is CANCELLED.
    OrderCancelled,
    /// A ticket of an order was admitted at the door.
    TicketAdmitted,
    /// A showtime the channel sells was cancelled (each of its orders gets its own
    /// ORDER_CANCELLED).
    ShowtimeCancelled,
    /// A showtime the channel sells (or sold) changed its prices.
    PriceRevised,
    /// Seats were held for a party of the channel's waiting list (`customer`): an offer,
    /// confirmed like any hold before it expires.
    WaitingListOffered,
}

impl EventType {
    /// Every type, in the order of the list above.
    pub const ALL: [EventType; 10] = [
        EventType::HoldPlaced,
        EventType::HoldReleased,
        EventType::HoldExpired,
        EventType::OrderConfirmed,
        EventType::OrderRefunded,
        EventType::OrderCancelled,
        EventType::TicketAdmitted,
        EventType::ShowtimeCancelled,
        EventType::PriceRevised,
        EventType::WaitingListOffered,
    ];

    /// `HOLD_PLACED`, as stored and as sent.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::HoldPlaced => "HOLD_PLACED",
            EventType::HoldReleased => "HOLD_RELEASED",
            EventType::HoldExpired => "HOLD_EXPIRED",
            EventType::OrderConfirmed => "ORDER_CONFIRMED",
            EventType::OrderRefunded => "ORDER_REFUNDED",
            EventType::OrderCancelled => "ORDER_CANCELLED",
            EventType::TicketAdmitted => "TICKET_ADMITTED",
            EventType::ShowtimeCancelled => "SHOWTIME_CANCELLED",
            EventType::PriceRevised => "PRICE_REVISED",
            EventType::WaitingListOffered => "WAITING_LIST_OFFERED",
        }
    }

    /// The type named `name`, BAD_USER_INPUT otherwise.
    pub fn parse(name: &str) -> Result<Self, ApiError> {
        Self::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
            .ok_or_else(|| {
                ApiError::bad_input(format!(
                    "`{name}` is not an event type (one of {})",
                    Self::ALL.map(EventType::as_str).join(", ")
                ))
            })
    }
}

/// How long the log keeps each event: a channel may read on from any cursor this young.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention(Duration);

/// How much longer than the retention an event is stored: a cursor the gateway accepts always
/// finds the events after it, as long as gateways' clocks disagree by less than this.
pub const EXPIRY_SLACK: Duration = Duration::hours(1);

/// The shortest and longest retention a gateway accepts.
const RETENTION_HOURS: std::ops::RangeInclusive<i64> = 1..=24 * 90;

impl Default for Retention {
    /// Seven days.
    fn default() -> Self {
        Retention(Duration::days(7))
    }
}

impl Retention {
    /// `hours` of retention: BAD_USER_INPUT outside 1 hour to 90 days.
    pub fn hours(hours: i64) -> Result<Self, ApiError> {
        if !RETENTION_HOURS.contains(&hours) {
            return Err(ApiError::bad_input(format!(
                "the event retention must be between {} and {} hours, got {hours}",
                RETENTION_HOURS.start(),
                RETENTION_HOURS.end()
            )));
        }
        Ok(Retention(Duration::hours(hours)))
    }

    /// A retention of any length, unchecked (tests use seconds).
    pub fn exactly(duration: Duration) -> Self {
        Retention(duration)
    }

    pub fn duration(self) -> Duration {
        self.0
    }

    /// When an event made `at` is deleted (the TTL index reads this).
    pub fn expiry_of(self, at: DateTime<Utc>) -> DateTime<Utc> {
        at + self.0 + EXPIRY_SLACK
    }
}

/// A position in a channel's log: just after the event with this sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventCursor {
    pub sequence: i64,
    /// When that event is deleted.
    pub expires_at: DateTime<Utc>,
}

const CURSOR_KIND: &str = "events";

impl EventCursor {
    /// The start of a log no event was read from: every event the log holds comes after it.
    pub const START: EventCursor = EventCursor {
        sequence: 0,
        expires_at: DateTime::<Utc>::MAX_UTC,
    };

    pub fn encode(self) -> String {
        cursor::encode(
            CURSOR_KIND,
            &(self.sequence, self.expires_at.timestamp_millis()),
        )
    }

    /// Reads a cursor this log gave, at `now`: BAD_USER_INPUT for anything else,
    /// CURSOR_EXPIRED once its event may have been deleted.
    pub fn decode(text: &str, now: DateTime<Utc>) -> Result<Self, ApiError> {
        let (sequence, millis): (i64, i64) = cursor::decode(CURSOR_KIND, text)?;
        let expires_at = DateTime::<Utc>::from_timestamp_millis(millis)
            .filter(|_| sequence >= 0)
            .ok_or_else(|| ApiError::bad_input("`after` is not a cursor of the event log"))?;
        if now + EXPIRY_SLACK >= expires_at {
            return Err(ApiError::CursorExpired(format!(
                "the event log no longer keeps every event after this cursor (event \
                 {sequence}, kept until {}): read the orders, then read the log from now on",
                expires_at
                    .checked_sub_signed(EXPIRY_SLACK)
                    .unwrap_or(expires_at)
                    .to_rfc3339()
            )));
        }
        Ok(EventCursor {
            sequence,
            expires_at,
        })
    }
}

/// One event of a channel's log.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelEvent {
    /// Unique over every channel and stable: the receiver deduplicates by it.
    pub id: String,
    pub channel: String,
    /// 1, 2, 3, … in the channel's log.
    pub sequence: i64,
    pub kind: EventType,
    /// When the change happened.
    pub at: DateTime<Utc>,
    /// When the log deletes it.
    pub expires_at: DateTime<Utc>,
    pub details: EventDetails,
}

/// What an event says beyond its type: the objects it concerns and the figures it moved.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventDetails {
    pub showtime: Option<ShowtimeId>,
    pub hold: Option<HoldId>,
    pub order: Option<OrderId>,
    /// The seats the change concerned (held, released, sold, refunded, admitted).
    pub seats: Vec<String>,
    /// A refund's id and amount, in fen.
    pub refund: Option<(ResourceId, i64)>,
    /// Why: a cancellation's reason, or SHOWTIME_CANCELLED for a hold it released.
    pub reason: Option<String>,
    /// The door a ticket was admitted at.
    pub door: Option<String>,
    /// A showtime's price revision.
    pub revision: Option<i64>,
    /// The channel's customer an offer is for (WAITING_LIST_OFFERED).
    pub customer: Option<String>,
}

impl ChannelEvent {
    pub fn cursor(&self) -> EventCursor {
        EventCursor {
            sequence: self.sequence,
            expires_at: self.expires_at,
        }
    }

    /// The object the event is about: the order, else the hold, else the showtime.
    pub fn subject(&self) -> Option<GlobalId> {
        let details = &self.details;
        match (details.order, details.hold, details.showtime) {
            (Some(order), _, showtime) => Some(GlobalId::Order(showtime, order)),
            (None, Some(hold), Some(showtime)) => Some(GlobalId::Hold(showtime, hold)),
            (None, _, Some(showtime)) => Some(GlobalId::Showtime(showtime)),
            _ => None,
        }
    }

    /// The event as JSON, as a webhook sends it and `data` shows it: ids as the API's global
    /// ids, amounts in fen, times in RFC 3339.
    pub fn payload(&self) -> serde_json::Value {
        let details = &self.details;
        let data = Data {
            showtime: details.showtime.map(|id| GlobalId::Showtime(id).encode()),
            hold: (details.hold.zip(details.showtime))
                .map(|(hold, showtime)| GlobalId::Hold(showtime, hold).encode()),
            order: (details.order).map(|id| GlobalId::Order(details.showtime, id).encode()),
            seats: &details.seats,
            refund: details.refund.map(|(id, amount)| Refund {
                id: id.to_string(),
                amount,
            }),
            reason: details.reason.as_deref(),
            door: details.door.as_deref(),
            revision: details.revision,
            customer: details.customer.as_deref(),
        };
        serde_json::json!({
            "id": self.id,
            "type": self.kind.as_str(),
            "channel": self.channel,
            "sequence": self.sequence,
            "createdAt": self.at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "subject": self.subject().map(|subject| subject.encode()),
            "data": data,
        })
    }
}

#[derive(Serialize)]
struct Data<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    showtime: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hold: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    order: Option<String>,
    seats: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    refund: Option<Refund>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    door: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    revision: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    customer: Option<&'a str>,
}

#[derive(Serialize)]
struct Refund {
    id: String,
    amount: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn types_round_trip_and_unknown_ones_are_refused() {
        for kind in EventType::ALL {
            assert_eq!(EventType::parse(kind.as_str()).unwrap(), kind);
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, kind.as_str());
        }
        let error = EventType::parse("hold_placed").unwrap_err();
        assert!(error.to_string().contains("HOLD_PLACED"), "{error}");
    }

    #[test]
    fn a_cursor_is_accepted_until_its_event_may_be_gone() {
        let retention = Retention::hours(24).unwrap();
        let made = at("2026-11-25T10:00:00Z");
        let cursor = EventCursor {
            sequence: 42,
            expires_at: retention.expiry_of(made),
        };
        let text = cursor.encode();
        let read = EventCursor::decode(&text, at("2026-11-26T09:59:59Z")).unwrap();
        assert_eq!(read, cursor);
        // At the end of the retention (an hour before the event is deleted) it is refused.
        let error = EventCursor::decode(&text, at("2026-11-26T10:00:00Z")).unwrap_err();
        assert_eq!(error.code(), crate::error::ErrorCode::CursorExpired);
        assert!(error.to_string().contains("event 42"), "{error}");
    }

    #[test]
    fn other_cursors_are_bad_input() {
        let now = at("2026-11-25T10:00:00Z");
        let orders = cursor::encode("orders", &(1_i64, 2_i64));
        let negative = cursor::encode(CURSOR_KIND, &(-1_i64, i64::MAX / 2));
        for bad in ["", "abc", orders.as_str(), negative.as_str()] {
            let error = EventCursor::decode(bad, now).unwrap_err();
            assert_eq!(error.code(), crate::error::ErrorCode::BadUserInput, "{bad}");
        }
    }

    #[test]
    fn retention_is_bounded() {
        assert_eq!(Retention::default().duration(), Duration::days(7));
        assert!(Retention::hours(0).is_err());
        assert!(Retention::hours(24 * 91).is_err());
    }

    #[test]
    fn the_payload_names_objects_by_their_global_ids() {
        let showtime = ShowtimeId([1; 12]);
        let order = OrderId([2; 12]);
        let event = ChannelEvent {
            id: "e1".into(),
            channel: "maoyan".into(),
            sequence: 3,
            kind: EventType::OrderRefunded,
            at: at("2026-11-25T10:00:00Z"),
            expires_at: at("2026-12-02T11:00:00Z"),
            details: EventDetails {
                showtime: Some(showtime),
                order: Some(order),
                seats: vec!["A1".into()],
                refund: Some((ResourceId([3; 12]), 3500)),
                ..Default::default()
            },
        };
        let payload = event.payload();
        assert_eq!(payload["type"], "ORDER_REFUNDED");
        assert_eq!(payload["sequence"], 3);
        assert_eq!(payload["createdAt"], "2026-11-25T10:00:00.000Z");
        assert_eq!(
            payload["subject"],
            GlobalId::Order(Some(showtime), order).encode()
        );
        assert_eq!(payload["data"]["order"], payload["subject"]);
        assert_eq!(payload["data"]["refund"]["amount"], 3500);
        assert_eq!(payload["data"]["seats"][0], "A1");
        assert!(payload["data"].get("hold").is_none());
    }
}
