//! Money and per-channel prices.

use async_graphql::SimpleObject;

use crate::domain::money;

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

/// The price of a showtime's ticket on one sales channel.
#[derive(SimpleObject)]
pub struct ChannelPrice {
    /// The sales channel's code, e.g. "maoyan".
    pub channel: String,
    /// The price of one standard seat on that channel.
    pub price: Money,
}
