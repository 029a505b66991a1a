//! `Order`: a confirmed hold, with a snapshot of what was sold.

use std::sync::Arc;

use async_graphql::{Context, Enum, Object, SimpleObject, Union, ID};
use chrono::{DateTime, Utc};

use crate::concessions::rules::MAX_ITEM_LINES;
use crate::domain::global_id::GlobalId;
use crate::domain::list_caps::MAX_SEATS_PER_HOLD;
use crate::domain::ticket_codes::{self, TicketSecret};
use crate::error::ApiError;
use crate::graphql::types::list_cost;
use crate::graphql::types::{Money, SeatKind};
use crate::store::documents::{self, OrderDoc};

/// Where an order is in its life.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderStatus {
    /// Its seats are sold.
    Confirmed,
    /// Cancelled: its seats were given back.
    Cancelled,
}

/// Why an order was cancelled.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CancelReason {
    /// Its channel cancelled it (`cancelOrder`).
    CustomerRequest,
    /// Its showtime was cancelled by the cinema (`cancelShowtime`): refund the customer.
    ShowtimeCancelled,
}

/// Where one seat of an order stands.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderSeatStatus {
    /// Sold to the order.
    Sold,
    /// Cancelled: given back, its refund among the order's `refunds`.
    Cancelled,
}

/// One seat of an order.
#[derive(SimpleObject)]
pub struct OrderSeat {
    /// The seat's label: "D7".
    pub label: String,
    /// Its kind.
    pub kind: SeatKind,
    /// The ticket type it was sold as.
    pub ticket_type: String,
    /// What it was sold for.
    pub price: Money,
    /// SOLD, or CANCELLED.
    pub status: OrderSeatStatus,
}

/// Where one product line of an order stands.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderItemStatus {
    /// Sold, not yet collected.
    Sold,
    /// Handed over at the counter (`collectItems`): it can no longer be cancelled.
    Collected,
    /// Cancelled: refunded in full, its refund among the order's `refunds`.
    Cancelled,
}

/// One product line of an order.
#[derive(SimpleObject)]
pub struct OrderItem {
    /// The product's global id.
    pub product_id: ID,
    /// Its name when sold.
    pub name: String,
    /// How many.
    pub quantity: i32,
    /// Its price per unit when sold.
    pub unit_price: Money,
    /// `quantity` × `unitPrice`.
    pub amount: Money,
    /// SOLD, COLLECTED or CANCELLED.
    pub status: OrderItemStatus,
}

/// One line of an order: a seat or a product.
#[derive(Union)]
pub enum OrderLine {
    /// A seat sold.
    Seat(OrderSeat),
    /// A product sold.
    Item(OrderItem),
}

/// A ticket: one seat of a confirmed order, and what the buyer shows at the door.
#[derive(SimpleObject)]
pub struct Ticket {
    /// The seat's label.
    pub seat: String,
    /// The QR payload: names the ticket and carries an HMAC under the server's secret, so it
    /// cannot be guessed, forged or altered. Show it as a QR code.
    pub code: String,
}

/// Money given back for seats of an order: one cancellation.
#[derive(SimpleObject)]
pub struct Refund {
    /// The cancellation's id (the same for every retry of its idempotency key).
    pub id: ID,
    /// The seats it gave back, each with what was refunded for it.
    pub seats: Vec<RefundedSeat>,
    /// The product lines it gave back, each in full.
    pub items: Vec<RefundedItem>,
    /// The money given back.
    pub amount: Money,
    /// What the refund policy kept.
    pub fee: Money,
    /// Why.
    pub reason: CancelReason,
    /// Who: `channel:<code>`, or `cancelShowtime` (the operator is in that operation's audit
    /// entry).
    pub by: String,
    /// When.
    pub at: DateTime<Utc>,
    /// The idempotency key the cancellation carried, if any.
    pub idempotency_key: Option<String>,
}

/// One seat a refund gave back.
#[derive(SimpleObject)]
pub struct RefundedSeat {
    /// The seat's label.
    pub label: String,
    /// What was refunded for it: its price less the fee.
    pub amount: Money,
}

/// One product line a refund gave back.
#[derive(SimpleObject)]
pub struct RefundedItem {
    /// The product's global id.
    pub product_id: ID,
    /// How many.
    pub quantity: i32,
    /// What was refunded for it: all it cost.
    pub amount: Money,
}

/// The customer the tickets are for.
#[derive(SimpleObject)]
pub struct Customer {
    /// Their name.
    pub name: String,
    /// How to reach them (phone or e-mail).
    pub contact: String,
}

/// What was sold, as it was at the time: later renames of the movie, cinema or hall do not
/// change it (extended reference).
#[derive(SimpleObject)]
pub struct OrderShowtime {
    /// The showtime's global id.
    pub id: ID,
    /// When the film starts.
    pub starts_at: DateTime<Utc>,
    /// The movie's title.
    pub movie_title: String,
    /// The cinema's name.
    pub cinema_name: String,
    /// The hall's name.
    pub hall_name: String,
}

/// A confirmed hold: seats sold to a channel's customer.
pub struct Order(pub OrderDoc);

impl Order {
    fn money(&self, amount: i64) -> Money {
        Money::of(amount, &self.0.currency)
    }

    fn seat_lines(&self) -> Vec<OrderSeat> {
        self.0
            .tickets()
            .map(|seat| OrderSeat {
                label: seat.label.clone(),
                kind: seat.seat_kind.into(),
                ticket_type: seat.ticket_type.to_string(),
                price: self.money(seat.price),
                status: if self.0.cancelled_seats.contains(&seat.label) {
                    OrderSeatStatus::Cancelled
                } else {
                    OrderSeatStatus::Sold
                },
            })
            .collect()
    }

    fn item_lines(&self) -> Vec<OrderItem> {
        self.0
            .products()
            .map(|line| OrderItem {
                product_id: GlobalId::Product(line.product).encode().into(),
                name: line.name.clone(),
                quantity: line.quantity as i32,
                unit_price: self.money(line.unit_price),
                amount: self.money(line.amount),
                status: if self.0.item_refunded(line.product) {
                    OrderItemStatus::Cancelled
                } else if self.0.item_collected(line.product) {
                    OrderItemStatus::Collected
                } else {
                    OrderItemStatus::Sold
                },
            })
            .collect()
    }
}

/// Seats (and products) sold to a channel's customer, with a snapshot of the showtime.
#[Object]
impl Order {
    /// The order's id (it names the showtime too).
    async fn id(&self) -> ID {
        GlobalId::Order(Some(self.0.showtime.id), self.0.id)
            .encode()
            .into()
    }

    /// CONFIRMED, or CANCELLED.
    async fn status(&self) -> Result<OrderStatus, ApiError> {
        match self.0.status {
            documents::OrderStatus::Confirmed => Ok(OrderStatus::Confirmed),
            documents::OrderStatus::Cancelled => Ok(OrderStatus::Cancelled),
            // The booking layer settles an order before it is shown.
            unsettled => Err(ApiError::internal(format!(
                "order {} reached the API unsettled ({unsettled:?})",
                self.0.id
            ))),
        }
    }

    /// The channel that sold it.
    async fn channel(&self) -> &str {
        &self.0.channel
    }

    /// The showtime, as it was when sold.
    async fn showtime(&self) -> OrderShowtime {
        let showtime = &self.0.showtime;
        OrderShowtime {
            id: GlobalId::Showtime(showtime.id).encode().into(),
            starts_at: showtime.starts_at,
            movie_title: showtime.movie_title.clone(),
            cinema_name: showtime.cinema_name.clone(),
            hall_name: showtime.hall_name.clone(),
        }
    }

    /// The seats sold, each with its price.
    #[graphql(complexity = "list_cost(MAX_SEATS_PER_HOLD, child_complexity)")]
    async fn seats(&self) -> Vec<OrderSeat> {
        self.seat_lines()
    }

    /// The products sold beside the seats, each with its price.
    #[graphql(complexity = "list_cost(MAX_ITEM_LINES, child_complexity)")]
    async fn items(&self) -> Vec<OrderItem> {
        self.item_lines()
    }

    /// Every line of the order, seats then products (each a `OrderSeat` or an
    /// `OrderItem`): orders made before products read as their seats.
    #[graphql(complexity = "list_cost(MAX_SEATS_PER_HOLD + MAX_ITEM_LINES, child_complexity)")]
    async fn lines(&self) -> Vec<OrderLine> {
        let seats = self.seat_lines().into_iter().map(OrderLine::Seat);
        seats
            .chain(self.item_lines().into_iter().map(OrderLine::Item))
            .collect()
    }

    /// When its products were handed over at the counter (null until then, and for an order
    /// without products).
    async fn items_collected_at(&self) -> Option<DateTime<Utc>> {
        self.0.collected.as_ref().map(|collected| collected.at)
    }

    /// What the customer paid: every line's price, cancelled ones too.
    async fn total(&self) -> Money {
        self.money(self.0.total)
    }

    /// What a voucher took off the seats' list prices, in all (zero without one); `total`
    /// is already after it.
    async fn discount(&self) -> Money {
        self.money(self.0.voucher.as_ref().map_or(0, |used| used.discount))
    }

    /// The money given back: the sum of the refunds.
    async fn refunded(&self) -> Money {
        self.money(self.0.refunded_amount())
    }

    /// What the customer paid and was not given back (`total` less `refunded`).
    async fn net(&self) -> Money {
        self.money(self.0.total - self.0.refunded_amount())
    }

    /// Its tickets: one per seat still sold (none once cancelled). Only its channel sees them.
    #[graphql(complexity = "list_cost(MAX_SEATS_PER_HOLD, child_complexity)")]
    async fn tickets(&self, ctx: &Context<'_>) -> Vec<Ticket> {
        let secret = ctx.data_unchecked::<Arc<TicketSecret>>();
        if self.0.status != documents::OrderStatus::Confirmed {
            return Vec::new();
        }
        (self.0.tickets())
            .filter(|seat| !self.0.cancelled_seats.contains(&seat.label))
            .map(|seat| {
                let ticket = ticket_codes::Ticket {
                    cinema: self.0.showtime.cinema_id,
                    showtime: self.0.showtime.id,
                    order: self.0.id,
                    seat: seat.label.clone(),
                };
                Ticket {
                    seat: seat.label.clone(),
                    code: ticket.code(secret),
                }
            })
            .collect()
    }

    /// The code a cinema's kiosk takes to print the tickets: 10 characters (no I, L, O or U),
    /// derived from the server's secret, never stored. Null once the order is cancelled.
    async fn pickup_code(&self, ctx: &Context<'_>) -> Option<String> {
        let secret = ctx.data_unchecked::<Arc<TicketSecret>>();
        (self.0.status == documents::OrderStatus::Confirmed)
            .then(|| ticket_codes::pickup_code(secret, self.0.id))
    }

    /// Its cancellations, oldest first.
    #[graphql(complexity = "list_cost(MAX_SEATS_PER_HOLD, child_complexity)")]
    async fn refunds(&self) -> Vec<Refund> {
        self.0
            .refunds
            .iter()
            .map(|refund| Refund {
                id: refund.id.to_string().into(),
                seats: refund
                    .seats
                    .iter()
                    .zip(&refund.amounts)
                    .map(|(label, amount)| RefundedSeat {
                        label: label.clone(),
                        amount: self.money(*amount),
                    })
                    .collect(),
                items: (refund.items.iter())
                    .map(|item| RefundedItem {
                        product_id: GlobalId::Product(item.product).encode().into(),
                        quantity: item.quantity as i32,
                        amount: self.money(item.amount),
                    })
                    .collect(),
                amount: self.money(refund.amount),
                fee: self.money(refund.fee),
                reason: reason_of(Some(refund.reason)),
                by: refund.by.clone(),
                at: refund.at,
                idempotency_key: refund.idempotency_key.clone(),
            })
            .collect()
    }

    /// The customer.
    async fn customer(&self) -> Customer {
        let documents::CustomerDoc { name, contact } = self.0.customer.clone();
        Customer { name, contact }
    }

    /// When it was confirmed.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }

    /// When it was cancelled, if it was.
    async fn cancelled_at(&self) -> Option<DateTime<Utc>> {
        self.0.cancelled_at
    }

    /// Why it was cancelled, if it was.
    async fn cancel_reason(&self) -> Option<CancelReason> {
        if self.0.status != documents::OrderStatus::Cancelled {
            return None;
        }
        // Orders cancelled before reasons were kept were cancelled by their channel.
        Some(reason_of(self.0.cancel_reason))
    }
}

fn reason_of(reason: Option<documents::CancelReason>) -> CancelReason {
    match reason {
        Some(documents::CancelReason::ShowtimeCancelled) => CancelReason::ShowtimeCancelled,
        Some(documents::CancelReason::CustomerRequest) | None => CancelReason::CustomerRequest,
    }
}
