//! The rules of a voucher (issue 36): a code that changes what a hold's seats cost, made by
//! an operator and redeemed by a channel.
//!
//! - **Codes** are `CODE_CHARS` (12) characters of an alphabet without look-alikes (no 0/O,
//!   1/I/L), about 59 bits, derived from the server secret, the batch and the code's index
//!   (`VoucherCode::of_batch`); a batch may put a prefix of its own before them. A code
//!   is read back without case, spaces or dashes, so `abcd-efgh-2345` is `ABCDEFGH2345`.
//! - **Stored hashed and keyed.** A code is far shorter than an API key, so a plain hash of
//!   it could be searched for; it is stored as an HMAC under the gateway's server secret
//!   (`VoucherCode::hash`), so a copy of the database without the secret redeems nothing,
//!   and a code is still found by one equality on its hash.
//! - **Scopes** never reach past the cinemas of the operator that made the voucher.
//! - **Effects** change each seat's price, in integer fen, and never raise it: an amount off
//!   (not below 0), a percentage off, a fixed price (the list price when lower), or unlocking
//!   a ticket type the showtime would refuse (the price is then that type's). **Rounding:** a
//!   percentage takes `floor(price × percent / 100)` fen off each seat, so a discount is never
//!   more than the percentage says, and the sum of a hold is the sum of its seats.

mod code;
mod effect;
mod scope;
mod terms;

pub use code::*;
pub use effect::*;
pub use scope::*;
pub use terms::*;

use chrono::{DateTime, Utc};

use crate::domain::customer::CustomerId;
use crate::error::ApiError;

/// Why a hold may not use a voucher: `VOUCHER_REFUSED` with this as `extensions.reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No voucher has this code (or it was made under another server secret).
    Unknown,
    /// Its operator disabled it.
    Disabled,
    /// Its validity window has not begun.
    NotYetValid,
    /// Its validity window has ended.
    Expired,
    /// Its scope does not cover this showtime.
    OutOfScope,
    /// Every redemption it allows is taken (by orders, or by live holds that may lapse).
    UsedUp,
    /// The customer has had as many as it allows one customer.
    CustomerLimit,
    /// It caps redemptions per customer, and the hold named no customer.
    CustomerNeeded,
}

impl Refusal {
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Unknown => "UNKNOWN",
            Refusal::Disabled => "DISABLED",
            Refusal::NotYetValid => "NOT_YET_VALID",
            Refusal::Expired => "EXPIRED",
            Refusal::OutOfScope => "OUT_OF_SCOPE",
            Refusal::UsedUp => "USED_UP",
            Refusal::CustomerLimit => "CUSTOMER_LIMIT",
            Refusal::CustomerNeeded => "CUSTOMER_NEEDED",
        }
    }

    fn explained(self) -> &'static str {
        match self {
            Refusal::Unknown => "no voucher has this code",
            Refusal::Disabled => "the voucher was disabled",
            Refusal::NotYetValid => "the voucher is not valid yet",
            Refusal::Expired => "the voucher is no longer valid",
            Refusal::OutOfScope => "the voucher is not for this showtime",
            Refusal::UsedUp => "every redemption the voucher allows is taken",
            Refusal::CustomerLimit => "the customer has redeemed the voucher as often as it allows",
            Refusal::CustomerNeeded => "the voucher limits each customer: give customerId",
        }
    }

    /// The error a client gets.
    pub fn error(self) -> ApiError {
        ApiError::VoucherRefused {
            message: self.explained().to_owned(),
            reason: self.as_str().to_owned(),
        }
    }
}

/// A voucher as a hold sees it: whether it may be used now, for this sale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Voucher {
    pub enabled: bool,
    pub validity: Validity,
    pub scope: VoucherScope,
    pub effect: VoucherEffect,
    pub caps: Caps,
}

impl Voucher {
    /// Why a hold for `sale`, at `now`, by `customer` (if named), may not use it; `None` when
    /// it may (its caps are counted when a redemption is reserved).
    pub fn refusal(
        &self,
        sale: &SaleAt<'_>,
        now: DateTime<Utc>,
        customer: Option<&str>,
    ) -> Option<Refusal> {
        if !self.enabled {
            Some(Refusal::Disabled)
        } else if now < self.validity.from {
            Some(Refusal::NotYetValid)
        } else if now >= self.validity.until {
            Some(Refusal::Expired)
        } else if !self.scope.covers(sale) {
            Some(Refusal::OutOfScope)
        } else if self.caps.per_customer.is_some() && customer.is_none() {
            Some(Refusal::CustomerNeeded)
        } else {
            None
        }
    }

    /// Each seat's price with the voucher, from the seats' list prices.
    pub fn prices(&self, list: &[i64]) -> Vec<i64> {
        list.iter().map(|&price| self.effect.price(price)).collect()
    }
}

/// What a hold names its customer by for a voucher's per-customer cap: the channel's id,
/// within the channel (a channel code has no `/`, so the pair is unambiguous).
pub fn customer_of(channel: &str, customer: &CustomerId) -> String {
    format!("{channel}/{}", customer.as_str())
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use crate::domain::ids::{CinemaId, MovieId, ShowtimeId};
    use crate::operators::rules::OperatorScope;

    use super::*;

    #[test]
    fn a_voucher_refuses_outside_its_window_its_scope_or_without_a_customer_it_needs() {
        let at = |day: u32| Utc.with_ymd_and_hms(2026, 12, day, 0, 0, 0).unwrap();
        let sale = SaleAt {
            cinema: CinemaId([1; 12]),
            movie: MovieId([2; 12]),
            showtime: ShowtimeId([3; 12]),
            ticket_types: &[],
        };
        let voucher = |enabled, only, per_customer| Voucher {
            enabled,
            validity: Validity::new(at(1), at(8)).unwrap(),
            scope: VoucherScope::new(OperatorScope::All, only).unwrap(),
            effect: VoucherEffect::PercentOff(10),
            caps: Caps::new(5, per_customer).unwrap(),
        };
        let open = voucher(true, None, None);
        assert_eq!(open.refusal(&sale, at(1), None), None);
        assert_eq!(open.refusal(&sale, at(7), Some("c")), None);
        assert_eq!(open.refusal(&sale, at(8), None), Some(Refusal::Expired));
        let early = at(1) - chrono::Duration::seconds(1);
        assert_eq!(open.refusal(&sale, early, None), Some(Refusal::NotYetValid));
        let disabled = voucher(false, None, None);
        assert_eq!(
            disabled.refusal(&sale, at(2), None),
            Some(Refusal::Disabled)
        );
        let elsewhere = voucher(true, Some(Narrowed::Movie(MovieId([9; 12]))), None);
        assert_eq!(
            elsewhere.refusal(&sale, at(2), None),
            Some(Refusal::OutOfScope)
        );
        let per_customer = voucher(true, None, Some(1));
        assert_eq!(
            per_customer.refusal(&sale, at(2), None),
            Some(Refusal::CustomerNeeded)
        );
        assert_eq!(per_customer.refusal(&sale, at(2), Some("c")), None);
        assert_eq!(open.prices(&[3_333, 4_500]), vec![3_000, 4_050]);
        let refused = Refusal::UsedUp.error();
        assert_eq!(refused.code().as_str(), "VOUCHER_REFUSED");
    }

    #[test]
    fn a_customer_is_named_within_its_channel_and_bounded() {
        let customer = CustomerId::parse("c-1").unwrap();
        assert_eq!(customer_of("ch", &customer), "ch/c-1");
    }
}
