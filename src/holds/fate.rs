//! What became of a hold, for whoever settles what the hold carried (the vouchers' and the
//! concessions' reconcilers, the waiting list's offers): still live, lapsed but not yet swept,
//! confirmed into an order, or gone. The orders a hold was confirmed by are the orders
//! feature's to read: it implements [`OrdersOfHold`], handed in where the process is
//! assembled (`crate::assembly::hold_orders`), so holds names no orders code.

use chrono::{DateTime, Utc};

use crate::domain::ids::{HoldId, OrderId, ShowtimeId};
use crate::error::ApiError;
use crate::store::documents::{HoldDoc, OrderStatus};
use crate::store::{self, Store};

/// What became of a hold.
#[derive(Debug, Clone, PartialEq)]
pub enum HoldFate {
    /// In its showtime's inventory, expiring then.
    Live { expires_at: DateTime<Utc> },
    /// In its inventory, expired (by this gateway's clock): whoever expires it frees its
    /// seats (`expire_hold`, by the database's clock).
    Lapsed(Box<HoldDoc>),
    /// An order confirmed it (or is confirming it: PENDING) and is in this state.
    Ordered { order: OrderId, status: OrderStatus },
    /// Neither in the inventory nor confirmed by any order: released, expired and swept, or
    /// never placed.
    Gone,
}

/// The orders written to confirm a hold.
#[async_trait::async_trait]
pub trait OrdersOfHold: Send + Sync {
    /// The orders written for hold `hold` of `showtime` (each confirmation request of a hold
    /// writes one; at most one is ever sold the seats), with their states: a bounded few.
    async fn orders_of_hold(
        &self,
        store: &Store,
        showtime: ShowtimeId,
        hold: HoldId,
    ) -> Result<Vec<(OrderId, OrderStatus)>, ApiError>;
}

/// What became of hold `hold` of `showtime`: its inventory, then, when it is not there, its
/// orders (`orders`). An order left PENDING comes before a discarded one; one that was sold
/// the seats (CONFIRMED or later) before either.
#[tracing::instrument(skip(store, orders))]
pub async fn hold_fate(
    store: &Store,
    orders: &dyn OrdersOfHold,
    showtime: ShowtimeId,
    hold: HoldId,
) -> Result<HoldFate, ApiError> {
    if let Some(fate) = fate_in_inventory(store, showtime, hold).await? {
        return Ok(fate);
    }
    let orders = orders.orders_of_hold(store, showtime, hold).await?;
    Ok(fate_of_orders(&orders))
}

/// What became of hold `hold` of `showtime` when it is still in its inventory (`Live` or
/// `Lapsed`); `None` when it is not, without asking its orders.
pub async fn fate_in_inventory(
    store: &Store,
    showtime: ShowtimeId,
    hold: HoldId,
) -> Result<Option<HoldFate>, ApiError> {
    Ok(store
        .hold_of(showtime, hold)
        .await?
        .map(|live| match live.expires_at > store::now() {
            true => HoldFate::Live {
                expires_at: live.expires_at,
            },
            false => HoldFate::Lapsed(Box::new(live)),
        }))
}

/// The fate of a hold no longer in its inventory, from the orders written for it.
fn fate_of_orders(orders: &[(OrderId, OrderStatus)]) -> HoldFate {
    let rank = |status: OrderStatus| match status {
        OrderStatus::Pending => 1,
        _ => 2,
    };
    orders
        .iter()
        .max_by_key(|(_, status)| rank(*status))
        .map_or(HoldFate::Gone, |&(order, status)| HoldFate::Ordered {
            order,
            status,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sold_order_decides_before_a_pending_one_and_no_order_is_gone() {
        let (sold, pending) = (OrderId([1; 12]), OrderId([2; 12]));
        assert_eq!(fate_of_orders(&[]), HoldFate::Gone);
        assert_eq!(
            fate_of_orders(&[
                (pending, OrderStatus::Pending),
                (sold, OrderStatus::Confirmed)
            ]),
            HoldFate::Ordered {
                order: sold,
                status: OrderStatus::Confirmed
            }
        );
        assert_eq!(
            fate_of_orders(&[(pending, OrderStatus::Pending)]),
            HoldFate::Ordered {
                order: pending,
                status: OrderStatus::Pending
            }
        );
    }
}
