//! What became of a hold, for whoever settles what the hold carried (the vouchers'
//! reconciler): still live, lapsed but not yet swept, confirmed into an order, or gone.

use chrono::{DateTime, Utc};

use crate::domain::ids::{HoldId, OrderId, ShowtimeId};
use crate::error::ApiError;
use crate::store::documents::{HoldDoc, OrderStatus};
use crate::store::{self, Store};

/// The most orders one hold is looked up with (each confirmation request of a hold writes
/// one PENDING order; at most one is ever sold the seats).
const MAX_ORDERS_OF_HOLD: usize = 16;

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

/// What became of hold `hold` of `showtime`: its inventory, then, when it is not there, its
/// orders. An order left PENDING comes before a discarded one; one that was sold the seats
/// (CONFIRMED or later) before either.
#[tracing::instrument(skip(store))]
pub async fn hold_fate(
    store: &Store,
    showtime: ShowtimeId,
    hold: HoldId,
) -> Result<HoldFate, ApiError> {
    if let Some(live) = store.hold_of(showtime, hold).await? {
        return Ok(match live.expires_at > store::now() {
            true => HoldFate::Live {
                expires_at: live.expires_at,
            },
            false => HoldFate::Lapsed(Box::new(live)),
        });
    }
    let orders = store
        .orders_of_hold(showtime, hold, MAX_ORDERS_OF_HOLD)
        .await?;
    let rank = |status: OrderStatus| match status {
        OrderStatus::Pending => 1,
        _ => 2,
    };
    Ok(orders
        .iter()
        .max_by_key(|order| rank(order.status))
        .map_or(HoldFate::Gone, |order| HoldFate::Ordered {
            order: order.id,
            status: order.status,
        }))
}
