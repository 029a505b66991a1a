//! Refunds: which seats of an order a cancellation gives back, what each seat is refunded
//! under the cinema's refund policy, and what an order counts for in the sales figures once
//! its refunds are taken off. Pure rules; every amount is an integer in fen.

use std::collections::HashSet;

use chrono::{DateTime, Utc};

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

/// One seat of an order: its label, what it was sold for, and whether it was refunded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedSeat {
    pub label: String,
    pub price: i64,
    pub refunded: bool,
}

/// The seats a cancellation gives back and the money for each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundPlan {
    pub seats: Vec<String>,
    /// What each seat is refunded: its price less the fee.
    pub amounts: Vec<i64>,
    /// What is kept of each seat's price.
    pub fees: Vec<i64>,
    /// Whether it gives back every seat the order still has (the order is then cancelled).
    pub whole: bool,
}

impl RefundPlan {
    /// The money given back.
    pub fn amount(&self) -> i64 {
        self.amounts.iter().sum()
    }

    /// The money kept.
    pub fn fee(&self) -> i64 {
        self.fees.iter().sum()
    }
}

/// Why a cancellation is made: by the customer (the policy applies) or because the showtime
/// was cancelled (every remaining seat, in full, whatever the policy).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundCause {
    CustomerRequest,
    ShowtimeCancelled,
}

/// The refund of `asked` seats of an order (every remaining seat when `None`) for a showtime
/// starting at `starts_at`, at `now`. BAD_USER_INPUT for no seats, a seat named twice, a seat
/// not in the order or refunded already; REFUND_NOT_ALLOWED within the policy's cut-off.
pub fn plan_refund(
    seats: &[OrderedSeat],
    asked: Option<&[String]>,
    cause: RefundCause,
    policy: &RefundPolicy,
    starts_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<RefundPlan, ApiError> {
    let remaining: Vec<&OrderedSeat> = seats.iter().filter(|seat| !seat.refunded).collect();
    let chosen: Vec<&OrderedSeat> = match asked {
        None => remaining.clone(),
        Some(labels) => {
            if labels.is_empty() {
                return Err(ApiError::bad_input(
                    "name at least one seat to cancel, or leave `seats` out to cancel the order",
                ));
            }
            let mut seen = HashSet::new();
            labels
                .iter()
                .map(|label| {
                    if !seen.insert(label) {
                        return Err(ApiError::bad_input(format!("seat {label} is named twice")));
                    }
                    let seat = seats.iter().find(|seat| &seat.label == label);
                    match seat {
                        None => Err(ApiError::bad_input(format!(
                            "{label} is not a seat of this order"
                        ))),
                        Some(seat) if seat.refunded => Err(ApiError::bad_input(format!(
                            "seat {label} of this order was cancelled already"
                        ))),
                        Some(seat) => Ok(seat),
                    }
                })
                .collect::<Result<_, _>>()?
        }
    };
    if chosen.is_empty() {
        return Err(ApiError::bad_input(
            "every seat of this order was cancelled already",
        ));
    }
    let fee_per_seat = match cause {
        RefundCause::ShowtimeCancelled => 0,
        RefundCause::CustomerRequest => {
            let cutoff = chrono::Duration::minutes(i64::from(policy.cutoff_minutes));
            if now >= starts_at - cutoff {
                return Err(ApiError::RefundNotAllowed(match policy.cutoff_minutes {
                    0 => format!("the showtime started at {starts_at}: no refunds once it has"),
                    minutes => {
                        format!("no refunds within {minutes} minutes of the start ({starts_at})")
                    }
                }));
            }
            policy.fee_per_seat
        }
    };
    let fees: Vec<i64> = chosen
        .iter()
        .map(|seat| fee_per_seat.clamp(0, seat.price.max(0)))
        .collect();
    Ok(RefundPlan {
        amounts: chosen
            .iter()
            .zip(&fees)
            .map(|(seat, fee)| seat.price - fee)
            .collect(),
        whole: chosen.len() == remaining.len(),
        seats: chosen.iter().map(|seat| seat.label.clone()).collect(),
        fees,
    })
}

/// What one order adds to the sales figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SalesFigure {
    pub tickets: i64,
    pub revenue: i64,
    pub orders: i64,
}

impl SalesFigure {
    /// What an order counts for: a live order its remaining seats, one order, and what was
    /// paid less what was refunded; a cancelled one only the fees it kept.
    pub fn of_order(
        live: bool,
        seats: usize,
        refunded_seats: usize,
        total: i64,
        refunded: i64,
    ) -> Self {
        SalesFigure {
            tickets: if live {
                (seats - refunded_seats.min(seats)) as i64
            } else {
                0
            },
            revenue: total - refunded,
            orders: i64::from(live),
        }
    }

    /// `self` less `other`.
    pub fn minus(self, other: SalesFigure) -> SalesFigure {
        SalesFigure {
            tickets: self.tickets - other.tickets,
            revenue: self.revenue - other.revenue,
            orders: self.orders - other.orders,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn seats() -> Vec<OrderedSeat> {
        [("D7", 4000, false), ("D8", 2800, false), ("D9", 4000, true)]
            .into_iter()
            .map(|(label, price, refunded)| OrderedSeat {
                label: label.into(),
                price,
                refunded,
            })
            .collect()
    }

    fn at(hour: u32, minute: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 1, hour, minute, 0).unwrap()
    }

    const POLICY: RefundPolicy = RefundPolicy {
        cutoff_minutes: 30,
        fee_per_seat: 500,
    };

    fn plan(asked: Option<&[&str]>, now: DateTime<Utc>) -> Result<RefundPlan, ApiError> {
        let asked: Option<Vec<String>> =
            asked.map(|labels| labels.iter().map(|l| l.to_string()).collect());
        plan_refund(
            &seats(),
            asked.as_deref(),
            RefundCause::CustomerRequest,
            &POLICY,
            at(20, 0),
            now,
        )
    }

    #[test]
    fn a_partial_refund_keeps_the_fee_of_each_seat() {
        let refund = plan(Some(&["D8"]), at(19, 0)).unwrap();
        assert_eq!(refund.seats, ["D8"]);
        assert_eq!((refund.amount(), refund.fee()), (2300, 500));
        assert!(!refund.whole);
    }

    #[test]
    fn without_seats_every_remaining_seat_is_refunded() {
        let refund = plan(None, at(19, 0)).unwrap();
        assert_eq!(refund.seats, ["D7", "D8"]);
        assert_eq!(refund.amounts, [3500, 2300]);
        assert!(refund.whole);
        let named = plan(Some(&["D8", "D7"]), at(19, 0)).unwrap();
        assert!(named.whole, "naming every remaining seat cancels the order");
    }

    #[test]
    fn refuses_bad_seats_and_late_refunds() {
        for (asked, says) in [
            (&[][..], "at least one seat"),
            (&["D7", "D7"], "named twice"),
            (&["E1"], "not a seat of this order"),
            (&["D9"], "cancelled already"),
        ] {
            let error = plan(Some(asked), at(19, 0)).unwrap_err();
            assert_eq!(error.code().as_str(), "BAD_USER_INPUT");
            assert!(error.to_string().contains(says), "{asked:?}: {error}");
        }
        let late = plan(None, at(19, 30)).unwrap_err();
        assert_eq!(late.code().as_str(), "REFUND_NOT_ALLOWED");
        assert!(late.to_string().contains("within 30 minutes"), "{late}");
        assert!(plan(None, at(19, 29)).is_ok());
    }

    #[test]
    fn a_cancelled_showtime_refunds_in_full_whenever() {
        let refund = plan_refund(
            &seats(),
            None,
            RefundCause::ShowtimeCancelled,
            &POLICY,
            at(20, 0),
            at(21, 0),
        )
        .unwrap();
        assert_eq!((refund.amount(), refund.fee()), (6800, 0));
    }

    #[test]
    fn a_fee_never_exceeds_the_price() {
        let policy = RefundPolicy {
            cutoff_minutes: 0,
            fee_per_seat: 3000,
        };
        let refund = plan_refund(
            &seats(),
            None,
            RefundCause::CustomerRequest,
            &policy,
            at(20, 0),
            at(19, 0),
        )
        .unwrap();
        assert_eq!(refund.amounts, [1000, 0]);
        assert_eq!(refund.fee(), 5800);
    }

    #[test]
    fn an_order_counts_its_remaining_seats_and_what_it_kept() {
        let live = SalesFigure::of_order(true, 3, 1, 10800, 3500);
        assert_eq!(
            live,
            SalesFigure {
                tickets: 2,
                revenue: 7300,
                orders: 1
            }
        );
        let cancelled = SalesFigure::of_order(false, 3, 3, 10800, 9300);
        assert_eq!(
            cancelled,
            SalesFigure {
                tickets: 0,
                revenue: 1500,
                orders: 0
            }
        );
        assert_eq!(
            cancelled.minus(live),
            SalesFigure {
                tickets: -2,
                revenue: -5800,
                orders: -1
            }
        );
    }

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
