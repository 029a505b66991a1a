//! `ChannelEvent`: one event of the calling channel's log, and its type.

use async_graphql::{Enum, Object, SimpleObject, ID};
use chrono::{DateTime, Utc};

use crate::channel_events::rules::ChannelEvent as Event;
use crate::domain::global_id::GlobalId;
use crate::domain::money::CNY;
use crate::graphql::types::Money;

/// What happened.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
#[graphql(remote = "crate::channel_events::rules::EventType")]
pub enum ChannelEventType {
    /// Seats were held for the channel.
    HoldPlaced,
    /// The channel released a hold, or a showtime's cancellation did (`reason`).
    HoldReleased,
    /// A hold lapsed and its seats went back on sale.
    HoldExpired,
    /// A hold was sold to an order.
    OrderConfirmed,
    /// Some seats of an order were cancelled and refunded; the order stays CONFIRMED.
    OrderRefunded,
    /// Every remaining seat of an order was cancelled and refunded: it is CANCELLED.
    OrderCancelled,
    /// A ticket of an order was admitted at the door.
    TicketAdmitted,
    /// A showtime the channel sells was cancelled (each order of it gets ORDER_CANCELLED).
    ShowtimeCancelled,
    /// A showtime the channel sells (or sold) changed its prices.
    PriceRevised,
    /// Seats were held for a party of the channel's waiting list (`customerId`): confirm the
    /// hold before it expires, or release it to decline.
    WaitingListOffered,
}

/// A refund an event tells of.
#[derive(SimpleObject)]
pub struct EventRefund {
    /// The refund's id (as in the order's `refunds`).
    pub id: ID,
    /// The money given back.
    pub amount: Money,
}

/// One event of the calling channel's log: a change to one of its holds or orders, or to a
/// showtime it sells, whoever made it.
pub struct ChannelEvent(pub Event);

/// One event of the calling channel's log: a change to one of its holds or orders, or to a
/// showtime it sells, whoever made it.
#[Object]
impl ChannelEvent {
    /// Unique and stable: a receiver that sees it twice (a webhook redelivered) drops the
    /// second.
    async fn id(&self) -> ID {
        ID(self.0.id.clone())
    }

    /// Where the log stands after this event: pass it as `after` to read (or subscribe) on
    /// from here.
    async fn cursor(&self) -> String {
        self.0.cursor().encode()
    }

    /// What happened.
    #[graphql(name = "type")]
    async fn kind(&self) -> ChannelEventType {
        self.0.kind.into()
    }

    /// When the change was made.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.at
    }

    /// The object it is about: the order, else the hold, else the showtime.
    async fn subject(&self) -> Option<ID> {
        self.0.subject().map(|subject| ID(subject.encode()))
    }

    /// The showtime concerned.
    async fn showtime_id(&self) -> Option<ID> {
        (self.0.details.showtime).map(|id| ID(GlobalId::Showtime(id).encode()))
    }

    /// The hold concerned (HOLD_* and ORDER_CONFIRMED).
    async fn hold_id(&self) -> Option<ID> {
        let details = &self.0.details;
        (details.hold.zip(details.showtime))
            .map(|(hold, showtime)| ID(GlobalId::Hold(showtime, hold).encode()))
    }

    /// The order concerned (ORDER_* and TICKET_ADMITTED): read it with `order(id:)`.
    async fn order_id(&self) -> Option<ID> {
        let details = &self.0.details;
        (details.order).map(|id| ID(GlobalId::Order(details.showtime, id).encode()))
    }

    /// The seats the change concerned: held, released, sold, refunded or admitted.
    async fn seats(&self) -> &[String] {
        &self.0.details.seats
    }

    /// The refund made (ORDER_REFUNDED, ORDER_CANCELLED).
    async fn refund(&self) -> Option<EventRefund> {
        let (id, amount) = self.0.details.refund?;
        Some(EventRefund {
            id: ID(id.to_string()),
            amount: Money::of(amount, CNY),
        })
    }

    /// Why: a cancellation's reason (CUSTOMER_REQUEST, SHOWTIME_CANCELLED).
    async fn reason(&self) -> Option<&str> {
        self.0.details.reason.as_deref()
    }

    /// The door a ticket was admitted at (TICKET_ADMITTED).
    async fn door(&self) -> Option<&str> {
        self.0.details.door.as_deref()
    }

    /// The showtime's new price revision (PRICE_REVISED).
    async fn price_revision(&self) -> Option<i64> {
        self.0.details.revision
    }

    /// The channel's customer an offer is for (WAITING_LIST_OFFERED), as it named them.
    async fn customer_id(&self) -> Option<&str> {
        self.0.details.customer.as_deref()
    }
}
