//! Money and the prices of a showtime's price matrix.

use async_graphql::{Object, SimpleObject};

use super::SeatKind;
use crate::domain::money;
use crate::store::documents::ChannelPriceDoc;

/// An amount of money (`formatted` is written only when a client asks for it, not for every
/// price of a page).
pub struct Money(money::Money);

/// An amount of money: integer minor units and a currency code, never a float.
#[Object]
impl Money {
    /// The amount in minor units (fen for CNY: 4550 is ¥45.50).
    async fn amount(&self) -> i64 {
        self.0.amount
    }

    /// ISO 4217 currency code, e.g. "CNY".
    async fn currency(&self) -> &str {
        &self.0.currency
    }

    /// The amount formatted for people, e.g. "¥45.50".
    async fn formatted(&self) -> String {
        self.0.display()
    }
}

impl Money {
    /// `amount` minor units of `currency`.
    pub fn of(amount: i64, currency: &str) -> Self {
        Money(money::Money {
            amount,
            currency: currency.to_owned(),
        })
    }
}

impl From<money::Money> for Money {
    fn from(money: money::Money) -> Self {
        Money(money)
    }
}

/// One price of a showtime's price matrix: a seat of a kind, as a ticket type, on a channel.
#[derive(SimpleObject)]
pub struct ChannelPrice {
    /// The sales channel's code, e.g. "maoyan".
    pub channel: String,
    /// The seat kind it prices; null: every kind that no price of the same channel and
    /// ticket type names.
    pub seat_kind: Option<SeatKind>,
    /// The ticket type it prices: ADULT, CHILD, STUDENT, SENIOR or a type an operator defined.
    pub ticket_type: String,
    /// The price of one such seat on that channel.
    pub price: Money,
}

impl ChannelPrice {
    /// The GraphQL form of a stored price, in `currency`.
    pub fn of(price: &ChannelPriceDoc, currency: &str) -> Self {
        ChannelPrice {
            channel: price.channel.to_string(),
            seat_kind: price.seat_kind.map(Into::into),
            ticket_type: price.ticket_type.to_string(),
            price: Money::of(price.amount, currency),
        }
    }
}
