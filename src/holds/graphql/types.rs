//! `Hold`: seats held for a channel's customer until it expires.

use std::sync::Arc;

use async_graphql::{Enum, Object, SimpleObject, ID};
use chrono::{DateTime, Utc};

use crate::domain::global_id::GlobalId;
use crate::domain::list_caps::MAX_SEATS_PER_HOLD;
use crate::graphql::types::list_cost;
use crate::graphql::types::{Money, SeatKind};
use crate::holds::rules::MAX_ITEM_LINES;
use crate::holds::HeldSeats;
use crate::schema::upward::Showtime;

/// Seats held for one channel's customer, all in one showtime, until `expiresAt`.
pub struct Hold(HeldSeats);

impl From<HeldSeats> for Hold {
    fn from(held: HeldSeats) -> Self {
        Hold(held)
    }
}

/// Whether a hold can still be confirmed.
#[derive(Enum, Clone, Copy, PartialEq, Eq)]
pub enum HoldStatus {
    /// Before its expiry: its seats are the buyer's until then.
    Active,
    /// Past its expiry: it can no longer be confirmed, and its seats are free to others.
    Expired,
}

/// One held seat.
#[derive(SimpleObject)]
pub struct HeldSeat {
    /// The seat's label: "D7".
    pub label: String,
    /// Its kind.
    pub kind: SeatKind,
    /// The ticket type it is held as: ADULT, CHILD, STUDENT, SENIOR or a type an operator
    /// defined.
    pub ticket_type: String,
    /// Its price on the holding channel, for its kind and ticket type, when it was held.
    pub price: Money,
}

/// A product held beside the seats.
#[derive(SimpleObject)]
pub struct HeldItem {
    /// The product's global id.
    pub product_id: ID,
    /// Its name when held.
    pub name: String,
    /// How many.
    pub quantity: i32,
    /// Its price per unit when held.
    pub unit_price: Money,
    /// `quantity` × `unitPrice`.
    pub amount: Money,
}

impl Hold {
    fn money(&self, amount: i64) -> Money {
        Money::of(amount, &self.0.showtime.currency)
    }
}

/// Seats held for one channel's customer, all in one showtime, until `expiresAt`.
#[Object]
impl Hold {
    /// The hold's id: pass it to `releaseHold`.
    async fn id(&self) -> ID {
        GlobalId::Hold(self.0.showtime.id, self.0.hold.id)
            .encode()
            .into()
    }

    /// The showtime.
    async fn showtime(&self) -> Showtime {
        Showtime::from_arc(Arc::new(self.0.showtime.clone()))
    }

    /// The channel holding the seats.
    async fn channel(&self) -> &str {
        &self.0.hold.channel
    }

    /// The held seats, each with its ticket type and price.
    #[graphql(complexity = "list_cost(MAX_SEATS_PER_HOLD, child_complexity)")]
    async fn seats(&self) -> Vec<HeldSeat> {
        self.0
            .hold
            .seats
            .iter()
            .zip(&self.0.hold.kinds)
            .zip(self.0.hold.seat_prices())
            .map(|((label, kind), (ticket_type, amount))| HeldSeat {
                label: label.clone(),
                kind: (*kind).into(),
                ticket_type: ticket_type.to_string(),
                price: self.money(amount),
            })
            .collect()
    }

    /// The products held beside the seats.
    #[graphql(complexity = "list_cost(MAX_ITEM_LINES, child_complexity)")]
    async fn items(&self) -> Vec<HeldItem> {
        self.0
            .hold
            .items
            .iter()
            .map(|item| HeldItem {
                product_id: GlobalId::Product(item.product).encode().into(),
                name: item.name.clone(),
                quantity: item.quantity as i32,
                unit_price: self.money(item.unit_price),
                amount: self.money(item.amount()),
            })
            .collect()
    }

    /// The price of all held seats and items: the sum of their prices.
    async fn total(&self) -> Money {
        self.money(self.0.hold.total())
    }

    /// What a voucher took off the seats' list prices, in all (zero without one); `total`
    /// is already after it.
    async fn discount(&self) -> Money {
        self.money(self.0.hold.voucher.as_ref().map_or(0, |used| used.discount))
    }

    /// When the hold lapses and its seats are free again, unless confirmed before.
    async fn expires_at(&self) -> DateTime<Utc> {
        self.0.hold.expires_at
    }

    /// Whether `extendHold` has extended it (a hold is extended at most once).
    async fn extended(&self) -> bool {
        self.0.hold.extended_by.is_some()
    }

    /// ACTIVE until `expiresAt`, then EXPIRED (by this gateway's clock; whether a
    /// confirmation is too late is judged by the database's).
    async fn status(&self) -> HoldStatus {
        if self.0.hold.expires_at > crate::store::now() {
            HoldStatus::Active
        } else {
            HoldStatus::Expired
        }
    }
}
