//! The plan of one cancellation: which seats and product lines of an order it gives back,
//! and what each is refunded under the policy (or in full, for a cancelled showtime).

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use super::RefundPolicy;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::ProductId;
use crate::error::ApiError;

/// One seat of an order: its label, what it was sold for, and whether it was refunded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedSeat {
    pub label: String,
    pub price: i64,
    pub refunded: bool,
}

/// One product line of an order: what it was sold for, whether its units are stocked, and
/// whether it was refunded or collected (a collected line is never refunded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderedItem {
    pub product: ProductId,
    pub quantity: i64,
    pub amount: i64,
    pub stocked: bool,
    pub refunded: bool,
    pub collected: bool,
}

impl OrderedItem {
    fn refundable(&self) -> bool {
        !self.refunded && !self.collected
    }
}

/// An order's lines, as a refund plan sees them.
#[derive(Debug, Clone, Copy)]
pub struct OrderedLines<'a> {
    pub seats: &'a [OrderedSeat],
    pub items: &'a [OrderedItem],
}

/// What a cancellation names: seats and product lines (either may be empty, not both).
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    pub seats: &'a [String],
    pub items: &'a [ProductId],
}

/// A product line a refund gives back, in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundedItem {
    pub product: ProductId,
    pub quantity: i64,
    pub amount: i64,
    pub stocked: bool,
}

/// The seats and product lines a cancellation gives back and the money for each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefundPlan {
    pub seats: Vec<String>,
    /// What each seat is refunded: its price less the fee.
    pub amounts: Vec<i64>,
    /// What is kept of each seat's price.
    pub fees: Vec<i64>,
    /// The product lines given back, each in full (no fee: a product is not a seat).
    pub items: Vec<RefundedItem>,
    /// Whether it gives back every line the order still can (the order is then cancelled;
    /// collected products stay sold).
    pub whole: bool,
}

impl RefundPlan {
    /// The money given back.
    pub fn amount(&self) -> i64 {
        self.amounts.iter().sum::<i64>() + self.items.iter().map(|item| item.amount).sum::<i64>()
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

/// The refund of what `asked` names of an order (every line it can still give back when
/// `None`) for a showtime starting at `starts_at`, at `now`. BAD_USER_INPUT for nothing
/// named, a line named twice, one not in the order or refunded already; REFUND_NOT_ALLOWED
/// for a collected product, or within the policy's cut-off.
pub fn plan_refund(
    lines: OrderedLines<'_>,
    asked: Option<Asked<'_>>,
    cause: RefundCause,
    policy: &RefundPolicy,
    starts_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<RefundPlan, ApiError> {
    let remaining: Vec<&OrderedSeat> = lines.seats.iter().filter(|seat| !seat.refunded).collect();
    let refundable: Vec<&OrderedItem> = lines
        .items
        .iter()
        .filter(|item| item.refundable())
        .collect();
    let (chosen, items): (Vec<&OrderedSeat>, Vec<&OrderedItem>) = match asked {
        None => (remaining.clone(), refundable.clone()),
        Some(asked) => {
            if asked.seats.is_empty() && asked.items.is_empty() {
                return Err(ApiError::bad_input(
                    "name at least one seat or item to cancel, or leave both out to cancel \
                     the order",
                ));
            }
            (
                chosen_seats(lines.seats, asked.seats)?,
                chosen_items(lines.items, asked.items)?,
            )
        }
    };
    if chosen.is_empty() && items.is_empty() {
        return Err(ApiError::bad_input(
            "every seat and item of this order was cancelled (or collected) already",
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
        whole: chosen.len() == remaining.len() && items.len() == refundable.len(),
        seats: chosen.iter().map(|seat| seat.label.clone()).collect(),
        fees,
        items: items
            .iter()
            .map(|item| RefundedItem {
                product: item.product,
                quantity: item.quantity,
                amount: item.amount,
                stocked: item.stocked,
            })
            .collect(),
    })
}

fn chosen_seats<'a>(
    seats: &'a [OrderedSeat],
    labels: &[String],
) -> Result<Vec<&'a OrderedSeat>, ApiError> {
    let mut seen = HashSet::new();
    labels
        .iter()
        .map(|label| {
            if !seen.insert(label) {
                return Err(ApiError::bad_input(format!("seat {label} is named twice")));
            }
            match seats.iter().find(|seat| &seat.label == label) {
                None => Err(ApiError::bad_input(format!(
                    "{label} is not a seat of this order"
                ))),
                Some(seat) if seat.refunded => Err(ApiError::bad_input(format!(
                    "seat {label} of this order was cancelled already"
                ))),
                Some(seat) => Ok(seat),
            }
        })
        .collect()
}

fn chosen_items<'a>(
    items: &'a [OrderedItem],
    products: &[ProductId],
) -> Result<Vec<&'a OrderedItem>, ApiError> {
    let mut seen = HashSet::new();
    products
        .iter()
        .map(|product| {
            let id = GlobalId::Product(*product).encode();
            if !seen.insert(product) {
                return Err(ApiError::bad_input(format!("item {id} is named twice")));
            }
            match items.iter().find(|item| item.product == *product) {
                None => Err(ApiError::bad_input(format!(
                    "{id} is not an item of this order"
                ))),
                Some(item) if item.refunded => Err(ApiError::bad_input(format!(
                    "item {id} of this order was cancelled already"
                ))),
                Some(item) if item.collected => Err(ApiError::RefundNotAllowed(format!(
                    "item {id} was collected at the counter: it can no longer be cancelled"
                ))),
                Some(item) => Ok(item),
            }
        })
        .collect()
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

    fn lines(seats: &[OrderedSeat]) -> OrderedLines<'_> {
        OrderedLines { seats, items: &[] }
    }

    fn plan(asked: Option<&[&str]>, now: DateTime<Utc>) -> Result<RefundPlan, ApiError> {
        let asked: Option<Vec<String>> =
            asked.map(|labels| labels.iter().map(|l| l.to_string()).collect());
        plan_refund(
            lines(&seats()),
            asked.as_deref().map(|seats| Asked { seats, items: &[] }),
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
            (&[][..], "at least one seat or item"),
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
            lines(&seats()),
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
            lines(&seats()),
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

    fn items() -> Vec<OrderedItem> {
        [
            (1, 2, 5000, false, false),
            (2, 1, 1200, false, true),
            (3, 1, 800, true, false),
        ]
        .into_iter()
        .map(|(id, quantity, amount, refunded, collected)| OrderedItem {
            product: ProductId([id; 12]),
            quantity,
            amount,
            stocked: id == 1,
            refunded,
            collected,
        })
        .collect()
    }

    #[test]
    fn products_are_refunded_in_full_and_never_once_collected() {
        let (seats, items) = (seats(), items());
        let all = OrderedLines {
            seats: &seats,
            items: &items,
        };
        let plan = |asked: Option<Asked<'_>>| {
            plan_refund(
                all,
                asked,
                RefundCause::CustomerRequest,
                &POLICY,
                at(20, 0),
                at(19, 0),
            )
        };
        let one = plan(Some(Asked {
            seats: &[],
            items: &[ProductId([1; 12])],
        }))
        .unwrap();
        assert_eq!((one.amount(), one.fee(), one.whole), (5000, 0, false));
        assert!(one.seats.is_empty() && one.items[0].stocked);
        let whole = plan(None).unwrap();
        assert_eq!(
            whole.items.len(),
            1,
            "the collected and the refunded lines stay"
        );
        assert_eq!(whole.amount(), 3500 + 2300 + 5000);
        assert!(whole.whole);
        let collected = plan(Some(Asked {
            seats: &[],
            items: &[ProductId([2; 12])],
        }))
        .unwrap_err();
        assert_eq!(collected.code().as_str(), "REFUND_NOT_ALLOWED");
        for (asked, says) in [
            (ProductId([3; 12]), "cancelled already"),
            (ProductId([9; 12]), "not an item of this order"),
        ] {
            let error = plan(Some(Asked {
                seats: &[],
                items: &[asked],
            }))
            .unwrap_err();
            assert!(error.to_string().contains(says), "{error}");
        }
        let twice = plan(Some(Asked {
            seats: &[],
            items: &[ProductId([1; 12]), ProductId([1; 12])],
        }))
        .unwrap_err();
        assert!(twice.to_string().contains("named twice"), "{twice}");
    }
}
