//! A cinema's refund policy: the cut-off before the start and the fee kept per seat, bounded.

use crate::error::ApiError;

/// The longest cut-off a cinema may set: a week.
pub const MAX_CUTOFF_MINUTES: u32 = 7 * 24 * 60;
/// The highest fee per seat: ¥1,000.
pub const MAX_FEE_PER_SEAT: i64 = 100_000;

/// A cinema's terms for giving money back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RefundPolicy {
    /// No refund within this many minutes of the start (0: until the start).
    pub cutoff_minutes: u32,
    /// Kept from each refunded seat's price (never more than the price).
    pub fee_per_seat: i64,
}

impl RefundPolicy {
    /// BAD_USER_INPUT for a cut-off beyond a week or a fee out of 0 to ¥1,000.
    pub fn validate(&self) -> Result<(), ApiError> {
        if self.cutoff_minutes > MAX_CUTOFF_MINUTES {
            return Err(ApiError::bad_input(format!(
                "refundPolicy.cutoffMinutes is 0 to {MAX_CUTOFF_MINUTES}, not {}",
                self.cutoff_minutes
            )));
        }
        if !(0..=MAX_FEE_PER_SEAT).contains(&self.fee_per_seat) {
            return Err(ApiError::bad_input(format!(
                "refundPolicy.feePerSeat is 0 to {MAX_FEE_PER_SEAT} fen, not {}",
                self.fee_per_seat
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const POLICY: RefundPolicy = RefundPolicy {
        cutoff_minutes: 30,
        fee_per_seat: 500,
    };

    #[test]
    fn policies_are_bounded() {
        assert!(POLICY.validate().is_ok());
        let long = RefundPolicy {
            cutoff_minutes: MAX_CUTOFF_MINUTES + 1,
            ..POLICY
        };
        assert!(long.validate().is_err());
        let negative = RefundPolicy {
            fee_per_seat: -1,
            ..POLICY
        };
        assert!(negative.validate().is_err());
    }
}
