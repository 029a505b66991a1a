//! The shapes of `orders`: the order, the showtime it was sold for and its lines (tickets and
//! products), its customer, its status and why it was cancelled.
//! Shared: orders writes them, but the inventory and live read them and orders depends on both
//! (moving them would make a cycle); the shared loaders read them too.
//!
//! Schema version 2 (concessions) keeps an order's lines in one array, `lines`, each a ticket
//! or a product told apart by its `kind` (seed 002's polymorphic pattern). Version 1 orders
//! keep `seats` (tickets only) and are read as they are: their seats become ticket lines
//! when read, and nothing rewrites them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};

use crate::domain::ids::{CinemaId, HoldId, MovieId, OrderId, ProductId, ResourceId, ShowtimeId};
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

/// The shape version of orders written by this code (2: `lines`; 1: `seats`).
pub const ORDER_SCHEMA_VERSION: i32 = 2;

/// One seat of a version 1 order, with the price it was sold at (read, never written).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct OrderSeatDoc {
    label: String,
    kind: SeatKind,
    /// Absent in orders made before ticket types: ADULT.
    #[serde(default)]
    ticket_type: TicketType,
    price: i64,
}

/// One line of an order: a ticket or a product.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderLineDoc {
    Ticket(TicketLineDoc),
    Product(ProductLineDoc),
}

/// A seat sold, with its ticket type and price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TicketLineDoc {
    pub label: String,
    pub seat_kind: SeatKind,
    pub ticket_type: TicketType,
    pub price: i64,
}

/// A product sold beside the seats: how many, at what price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductLineDoc {
    #[serde(with = "codec::id")]
    pub product: ProductId,
    /// Its name when sold.
    pub name: String,
    pub quantity: i64,
    pub unit_price: i64,
    /// `quantity` × `unitPrice`.
    pub amount: i64,
    /// Whether the product keeps a stock (its units were reserved, then sold).
    pub stocked: bool,
}

/// Reads `lines` of either version: version 2's tagged lines, or version 1's seats.
fn lines_of_any_version<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<OrderLineDoc>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Line(OrderLineDoc),
        Seat(OrderSeatDoc),
    }
    let stored = Vec::<Stored>::deserialize(deserializer)?;
    Ok(stored
        .into_iter()
        .map(|line| match line {
            Stored::Line(line) => line,
            Stored::Seat(seat) => OrderLineDoc::Ticket(TicketLineDoc {
                label: seat.label,
                seat_kind: seat.kind,
                ticket_type: seat.ticket_type,
                price: seat.price,
            }),
        })
        .collect())
}

/// Where and when an order's items were collected at the counter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectionDoc {
    #[serde(with = "codec::time")]
    pub at: DateTime<Utc>,
    /// The door (counter) that handed them over.
    pub door: String,
    /// The collection request's id (its idempotency key's resource id).
    #[serde(with = "codec::id")]
    pub request: ResourceId,
    /// The lines handed over (every one not refunded by then).
    #[serde(with = "codec::ids")]
    pub products: Vec<ProductId>,
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
    /// Its tickets and products (version 1 orders' `seats` are read into it).
    #[serde(alias = "seats", deserialize_with = "lines_of_any_version")]
    pub lines: Vec<OrderLineDoc>,
    /// Every line's price together (after a voucher).
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
    /// The product lines refunded (by product), the refunds' items together.
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "codec::ids")]
    pub cancelled_items: Vec<ProductId>,
    /// A keyed hash of its pickup code, by which the counter finds it (only orders with
    /// products have one; the code itself is stored nowhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pickup_key: Option<String>,
    /// When its products were collected (once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collected: Option<CollectionDoc>,
}

impl OrderDoc {
    /// Its ticket lines, in order.
    pub fn tickets(&self) -> impl Iterator<Item = &TicketLineDoc> {
        self.lines.iter().filter_map(|line| match line {
            OrderLineDoc::Ticket(ticket) => Some(ticket),
            OrderLineDoc::Product(_) => None,
        })
    }

    /// Its product lines, in order.
    pub fn products(&self) -> impl Iterator<Item = &ProductLineDoc> {
        self.lines.iter().filter_map(|line| match line {
            OrderLineDoc::Product(product) => Some(product),
            OrderLineDoc::Ticket(_) => None,
        })
    }

    /// Whether product line `product` was refunded.
    pub fn item_refunded(&self, product: ProductId) -> bool {
        self.cancelled_items.contains(&product)
    }

    /// Whether product line `product` was collected.
    pub fn item_collected(&self, product: ProductId) -> bool {
        self.collected
            .as_ref()
            .is_some_and(|collected| collected.products.contains(&product))
    }

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
        let live = |product: &&ProductLineDoc| !self.item_refunded(product.product);
        SalesFigure::of_order(
            self.status == OrderStatus::Confirmed,
            self.tickets().count(),
            self.cancelled_seats.len(),
            self.total,
            self.refunded_amount(),
        )
        .with_items(
            self.products().filter(live).map(|p| p.quantity).sum(),
            self.products().filter(live).map(|p| p.amount).sum(),
        )
    }

    /// What the sales figures count for it at present.
    pub fn counted_figure(&self) -> SalesFigure {
        match (&self.sales_counted_as, self.sales_counted) {
            (Some(counted), _) => counted.figure(),
            (None, true) => SalesFigure::of_order(true, self.tickets().count(), 0, self.total, 0)
                .with_items(
                    self.products().map(|p| p.quantity).sum(),
                    self.products().map(|p| p.amount).sum(),
                ),
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
    /// The product lines it refunded, each in full.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<RefundedItemDoc>,
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

/// A product line a refund gave back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RefundedItemDoc {
    #[serde(with = "codec::id")]
    pub product: ProductId,
    pub quantity: i64,
    /// What it was refunded: its whole amount.
    pub amount: i64,
    /// Whether its units go back to the product's stock.
    pub stocked: bool,
}

/// `SalesFigure` as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SalesFigureDoc {
    pub tickets: i64,
    pub revenue: i64,
    pub orders: i64,
    /// Absent in figures of before concessions: none.
    #[serde(default)]
    pub items: i64,
    #[serde(default)]
    pub concessions: i64,
}

impl SalesFigureDoc {
    pub fn figure(self) -> SalesFigure {
        SalesFigure {
            tickets: self.tickets,
            revenue: self.revenue,
            orders: self.orders,
            items: self.items,
            concessions: self.concessions,
        }
    }
}

impl From<SalesFigure> for SalesFigureDoc {
    fn from(figure: SalesFigure) -> Self {
        SalesFigureDoc {
            tickets: figure.tickets,
            revenue: figure.revenue,
            orders: figure.orders,
            items: figure.items,
            concessions: figure.concessions,
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
    fn a_version_1_order_reads_its_seats_as_ticket_lines() {
        let order = legacy("CONFIRMED", true);
        assert_eq!(order.schema_version, 1);
        let labels: Vec<&str> = order.tickets().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["A1", "A2"]);
        assert_eq!(
            order.tickets().next().unwrap().ticket_type,
            TicketType::default()
        );
        assert_eq!(order.products().count(), 0);
    }

    #[test]
    fn a_version_2_order_keeps_tickets_and_products_in_one_array_told_apart_by_kind() {
        let mut order = legacy("CONFIRMED", false);
        order.schema_version = ORDER_SCHEMA_VERSION;
        order.lines.push(OrderLineDoc::Product(ProductLineDoc {
            product: ProductId([7; 12]),
            name: "爆米花".into(),
            quantity: 2,
            unit_price: 1500,
            amount: 3000,
            stocked: true,
        }));
        order.total += 3000;
        let stored = bson::to_document(&order).unwrap();
        assert!(
            !stored.contains_key("seats"),
            "version 2 writes `lines` only"
        );
        let lines = stored.get_array("lines").unwrap();
        let kinds: Vec<&str> = (lines.iter())
            .map(|line| line.as_document().unwrap().get_str("kind").unwrap())
            .collect();
        assert_eq!(kinds, ["TICKET", "TICKET", "PRODUCT"]);
        let read: OrderDoc = bson::from_document(stored).unwrap();
        assert_eq!(read.lines, order.lines);
        let figure = read.sales_figure();
        assert_eq!(
            (figure.revenue, figure.items, figure.concessions),
            (11000, 2, 3000)
        );
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
            ..SalesFigure::default()
        };
        assert_eq!(confirmed.sales_figure(), all);
        assert_eq!(confirmed.counted_figure(), all, "counted in full already");
    }
}
