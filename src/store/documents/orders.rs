//! The shapes of `orders`: the order, the showtime and seats it was sold for, its customer,
//! its status and why it was cancelled.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::ids::{CinemaId, HoldId, MovieId, OrderId, ResourceId, ShowtimeId};
use crate::domain::pricing::TicketType;
use crate::domain::seat::SeatKind;
use crate::store::codec;

/// The showtime an order is for, as it was when the order was made (extended reference: later
/// renames do not rewrite history).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderShowtimeDoc {
    #[serde(with = "codec::id")]
    pub id: ShowtimeId,
    #[serde(with = "codec::id")]
    pub cinema_id: CinemaId,
    #[serde(with = "codec::id")]
    pub movie_id: MovieId,
    #[serde(with = "codec::time")]
    pub starts_at: DateTime<Utc>,
    pub movie_title: String,
    pub cinema_name: String,
    pub hall_name: String,
}

/// One seat of an order with the price it was sold at.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderSeatDoc {
    pub label: String,
    pub kind: SeatKind,
    /// Absent in orders made before ticket types: ADULT.
    #[serde(default)]
    pub ticket_type: TicketType,
    pub price: i64,
}

/// Who the tickets are for.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomerDoc {
    pub name: String,
    pub contact: String,
}

/// An order's life. The inventory document is the authority on its seats; PENDING and
/// CANCELLING are the moments between an order's two writes (see `store::orders`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    /// Written, its seats not sold to it yet: not an order until they are.
    Pending,
    /// Its seats are SOLD under it.
    Confirmed,
    /// Cancelled; its seats are being given back.
    Cancelling,
    /// Cancelled; its seats were given back.
    Cancelled,
}

/// `orders`: a confirmed hold.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: OrderId,
    pub schema_version: i32,
    pub channel: String,
    pub status: OrderStatus,
    /// The hold it confirmed.
    #[serde(with = "codec::id")]
    pub hold_id: HoldId,
    pub showtime: OrderShowtimeDoc,
    pub seats: Vec<OrderSeatDoc>,
    pub total: i64,
    pub currency: String,
    pub customer: CustomerDoc,
    #[serde(with = "codec::time")]
    pub created_at: DateTime<Utc>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_time"
    )]
    pub cancelled_at: Option<DateTime<Utc>>,
    /// The cancellation request that cancelled it (its idempotency key's resource id), so a
    /// retry of that request after a crash knows the cancellation as its own.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub cancel_request: Option<ResourceId>,
    /// Whether the sales figures (the movie's totals, the cinema's hourly bucket) count this
    /// order: the projection makes it true for CONFIRMED orders and false for CANCELLED ones.
    #[serde(default)]
    pub sales_counted: bool,
    /// Why it was cancelled, written with CANCELLING in the same update (absent in orders
    /// cancelled before reasons were kept: the customer's request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_reason: Option<CancelReason>,
}

/// Why an order was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CancelReason {
    /// Its channel cancelled it (`cancelOrder`).
    CustomerRequest,
    /// Its showtime was cancelled by the cinema's operator (`cancelShowtime`).
    ShowtimeCancelled,
}
