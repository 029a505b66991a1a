//! Money: an integer amount in minor units (fen) and a currency code. Never a float.

use serde::{Deserialize, Serialize};

/// The platform's currency.
pub const CNY: &str = "CNY";

/// An amount of money in minor units (1 yuan = 100 fen).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Money {
    pub amount: i64,
    pub currency: String,
}

impl Money {
    pub fn cny(amount: i64) -> Self {
        Money {
            amount,
            currency: CNY.to_owned(),
        }
    }

    /// "¥45.50" style text for people; clients should format `amount` themselves.
    pub fn display(&self) -> String {
        let sign = if self.amount < 0 { "-" } else { "" };
        let abs = self.amount.unsigned_abs();
        let symbol = if self.currency == CNY { "¥" } else { "" };
        let suffix = if self.currency == CNY {
            String::new()
        } else {
            format!(" {}", self.currency)
        };
        format!("{sign}{symbol}{}.{:02}{suffix}", abs / 100, abs % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_minor_units_exactly() {
        assert_eq!(Money::cny(4550).display(), "¥45.50");
        assert_eq!(Money::cny(5).display(), "¥0.05");
        assert_eq!(Money::cny(-120).display(), "-¥1.20");
        let usd = Money {
            amount: 1999,
            currency: "USD".into(),
        };
        assert_eq!(usd.display(), "19.99 USD");
    }
}
