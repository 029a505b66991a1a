//! What a voucher does to a seat's price, in fen, never raising it.

use crate::domain::pricing::TicketType;
use crate::error::ApiError;

/// What a voucher does to each seat of a hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VoucherEffect {
    /// This many fen off each seat, never below 0.
    AmountOff(i64),
    /// This percentage off each seat (1 to 100), the discount rounded down to the fen.
    PercentOff(u8),
    /// Each seat at this price, or at its list price when that is lower.
    FixedPrice(i64),
    /// A ticket type the showtime refuses (a rule's hours, say) may be bought, at its price.
    UnlockTicketType(TicketType),
}

/// The most fen an amount may be (100,000 yuan): far above any seat's price.
pub const MAX_AMOUNT: i64 = 10_000_000;

impl VoucherEffect {
    /// The effect as an operator gives it, checked: amounts 1 to `MAX_AMOUNT` fen (a fixed
    /// price may be 0: a free seat), a percentage 1 to 100.
    pub fn checked(self) -> Result<Self, ApiError> {
        let ok = match &self {
            VoucherEffect::AmountOff(amount) => (1..=MAX_AMOUNT).contains(amount),
            VoucherEffect::FixedPrice(amount) => (0..=MAX_AMOUNT).contains(amount),
            VoucherEffect::PercentOff(percent) => (1..=100).contains(percent),
            VoucherEffect::UnlockTicketType(_) => true,
        };
        if ok {
            Ok(self)
        } else {
            Err(ApiError::bad_input(format!(
                "effect: amounts are 1 to {MAX_AMOUNT} fen (a fixed price may be 0), a \
                 percentage 1 to 100"
            )))
        }
    }

    /// A seat's price with the voucher, from its list price `price` (fen, not negative).
    pub fn price(&self, price: i64) -> i64 {
        match self {
            VoucherEffect::AmountOff(amount) => (price - amount).max(0),
            VoucherEffect::PercentOff(percent) => {
                // i128: price × 100 cannot overflow, whatever the price.
                let off = i128::from(price) * i128::from(*percent) / 100;
                price - i64::try_from(off).unwrap_or(price)
            }
            VoucherEffect::FixedPrice(fixed) => price.min(*fixed),
            VoucherEffect::UnlockTicketType(_) => price,
        }
    }

    /// The ticket type the voucher lets a hold buy, if it unlocks one.
    pub fn unlocks(&self) -> Option<&TicketType> {
        match self {
            VoucherEffect::UnlockTicketType(ticket_type) => Some(ticket_type),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn effects_never_raise_a_price_and_percentages_round_the_discount_down() {
        assert_eq!(VoucherEffect::AmountOff(1_000).price(4_500), 3_500);
        assert_eq!(VoucherEffect::AmountOff(5_000).price(4_500), 0);
        // 15% of 3,333 fen is 499.95: 499 off.
        assert_eq!(VoucherEffect::PercentOff(15).price(3_333), 2_834);
        assert_eq!(VoucherEffect::PercentOff(100).price(3_333), 0);
        assert_eq!(
            VoucherEffect::PercentOff(50).price(i64::MAX),
            i64::MAX / 2 + 1
        );
        assert_eq!(VoucherEffect::FixedPrice(2_000).price(4_500), 2_000);
        assert_eq!(VoucherEffect::FixedPrice(6_000).price(4_500), 4_500);
        let unlock = VoucherEffect::UnlockTicketType(TicketType::adult());
        assert_eq!(unlock.price(4_500), 4_500);
        assert_eq!(unlock.unlocks(), Some(&TicketType::adult()));
    }

    #[test]
    fn effects_are_checked_when_made() {
        for refused in [
            VoucherEffect::AmountOff(0),
            VoucherEffect::AmountOff(MAX_AMOUNT + 1),
            VoucherEffect::FixedPrice(-1),
            VoucherEffect::PercentOff(0),
            VoucherEffect::PercentOff(101),
        ] {
            assert!(refused.clone().checked().is_err(), "{refused:?}");
        }
        assert!(VoucherEffect::FixedPrice(0).checked().is_ok());
        assert!(VoucherEffect::PercentOff(100).checked().is_ok());
    }
}
