//! Money and the prices of a showtime's price matrix.

use async_graphql::SimpleObject;

use super::SeatKind;
use crate::domain::money;
use crate::store::documents::ChannelPriceDoc;

/// An amount of money: integer minor units and a currency code, never a float.
#[derive(SimpleObject)]
pub struct Money {
    /// The amount in minor units (fen for CNY: 4550 is ¥45.50).
    pub amount: i64,
    /// ISO 4217 currency code, e.g. "CNY".
    pub currency: String,
    /// The amount formatted for people, e.g. "¥45.50".
    pub formatted: String,
}

impl Money {
    /// `amount` minor units of `currency`.
    pub fn of(amount: i64, currency: &str) -> Self {
        money::Money {
            amount,
            currency: currency.to_owned(),
        }
        .into()
    }
}

impl From<money::Money> for Money {
    fn from(money: money::Money) -> Self {
        Money {
            formatted: money.display(),
            amount: money.amount,
            currency: money.currency,
        }
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
