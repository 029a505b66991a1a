//! The shapes of `orders`: the order, the showtime and seats it was sold for, its customer,
//! its status and why it was cancelled.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::ids::{CinemaId, HoldId, MovieId, OrderId, ResourceId, ShowtimeId};
use crate::domain::pricing::TicketType;
use crate::domain::seat::SeatKind;
use crate::orders::rules::SalesFigure;
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
/// CANCELLING are the moments between an order's two writes (see `orders::store::orders`).
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
    /// Every cancellation of seats of it, oldest first (at most one per seat).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refunds: Vec<RefundDoc>,
    /// The money given back: the sum of the refunds' amounts (computed pattern, moved in the
    /// update that records a refund).
    #[serde(default)]
    pub refunded: i64,
    /// The seats given back, the refunds' seats together (so a filter can name them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cancelled_seats: Vec<String>,
    /// The refund whose seats are being given back (recorded, the seats not yet AVAILABLE):
    /// whoever finds it set finishes it (`orders::settle_order`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub refunding: Option<ResourceId>,
    /// What the sales figures count for this order, once refunds made it differ from "all
    /// its seats" (absent: all its seats if `sales_counted`, nothing otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sales_counted_as: Option<SalesFigureDoc>,
    /// Set by a refund: the figures may not reflect this order yet (the projection clears
    /// it). Absent rather than false, so that its sparse index holds only the stale orders.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sales_stale: bool,
    /// The voucher its hold used (its seats' prices are already the voucher's).
    // Boxed, as a hold's: orders are carried by value through deep futures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voucher: Option<Box<super::VoucherUseDoc>>,
}

impl OrderDoc {
    /// The money given back: `refunded`, or everything for an order cancelled before
    /// refunds were recorded.
    pub fn refunded_amount(&self) -> i64 {
        match (self.status, self.refunds.is_empty()) {
            (OrderStatus::Cancelled | OrderStatus::Cancelling, true) => self.total,
            _ => self.refunded,
        }
    }

    /// What the sales figures should count for it now.
    pub fn sales_figure(&self) -> SalesFigure {
        SalesFigure::of_order(
            self.status == OrderStatus::Confirmed,
            self.seats.len(),
            self.cancelled_seats.len(),
            self.total,
            self.refunded_amount(),
        )
    }

    /// What the sales figures count for it at present.
    pub fn counted_figure(&self) -> SalesFigure {
        match (&self.sales_counted_as, self.sales_counted) {
            (Some(counted), _) => counted.figure(),
            (None, true) => SalesFigure::of_order(true, self.seats.len(), 0, self.total, 0),
            (None, false) => SalesFigure::default(),
        }
    }

    /// The refund recorded under `id`, if there is one.
    pub fn refund(&self, id: ResourceId) -> Option<&RefundDoc> {
        self.refunds.iter().find(|refund| refund.id == id)
    }
}

/// One cancellation of seats of an order: what was given back, why, by whom, when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RefundDoc {
    /// The cancellation request's id (its idempotency key's resource id): recorded once.
    #[serde(with = "codec::id")]
    pub id: ResourceId,
    pub seats: Vec<String>,
    /// What each seat was refunded, in the order of `seats`.
    pub amounts: Vec<i64>,
    /// The money given back: the sum of `amounts`.
    pub amount: i64,
    /// What the refund policy kept of the seats' prices.
    pub fee: i64,
    pub reason: CancelReason,
    /// Who cancelled: `channel:<code>` or `operator:<code>`.
    pub by: String,
    #[serde(with = "codec::time")]
    pub at: DateTime<Utc>,
    /// The idempotency key the request carried, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

/// `SalesFigure` as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SalesFigureDoc {
    pub tickets: i64,
    pub revenue: i64,
    pub orders: i64,
}

impl SalesFigureDoc {
    pub fn figure(self) -> SalesFigure {
        SalesFigure {
            tickets: self.tickets,
            revenue: self.revenue,
            orders: self.orders,
        }
    }
}

impl From<SalesFigure> for SalesFigureDoc {
    fn from(figure: SalesFigure) -> Self {
        SalesFigureDoc {
            tickets: figure.tickets,
            revenue: figure.revenue,
            orders: figure.orders,
        }
    }
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

impl CancelReason {
    /// As stored and as told to channels.
    pub fn as_str(self) -> &'static str {
        match self {
            CancelReason::CustomerRequest => "CUSTOMER_REQUEST",
            CancelReason::ShowtimeCancelled => "SHOWTIME_CANCELLED",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An order as stored before refunds were recorded: cancelled, counted out, no refunds.
    fn legacy(status: &str, sales_counted: bool) -> OrderDoc {
        let id = bson::oid::ObjectId::new();
        let at = bson::DateTime::now();
        bson::from_document(bson::doc! {
            "_id": id, "schemaVersion": 1, "channel": "maoyan", "status": status, "holdId": id,
            "showtime": { "id": id, "cinemaId": id, "movieId": id, "startsAt": at,
                "movieTitle": "电影", "cinemaName": "影城", "hallName": "1号厅" },
            "seats": [
                { "label": "A1", "kind": "STANDARD", "price": 4000 },
                { "label": "A2", "kind": "STANDARD", "price": 4000 },
            ],
            "total": 8000, "currency": "CNY",
            "customer": { "name": "张三", "contact": "13800000000" },
            "createdAt": at, "salesCounted": sales_counted,
        })
        .expect("an order of before refunds reads")
    }

    #[test]
    fn an_order_cancelled_before_refunds_were_recorded_gave_everything_back() {
        let cancelled = legacy("CANCELLED", false);
        assert_eq!(cancelled.refunded_amount(), 8000);
        assert_eq!(cancelled.sales_figure(), SalesFigure::default());
        assert_eq!(cancelled.counted_figure(), SalesFigure::default());
    }

    #[test]
    fn a_confirmed_order_of_before_refunds_counts_all_its_seats() {
        let confirmed = legacy("CONFIRMED", true);
        assert_eq!(confirmed.refunded_amount(), 0);
        let all = SalesFigure {
            tickets: 2,
            revenue: 8000,
            orders: 1,
        };
        assert_eq!(confirmed.sales_figure(), all);
        assert_eq!(confirmed.counted_figure(), all, "counted in full already");
    }
}
