//! Settling a RESERVED redemption from what became of its hold (`holds::hold_fate`): by the
//! reconciler for those past their check (their hold's expiry), and by a claim that found
//! none free for those whose hold has lapsed in its inventory (a hold gone from it is the
//! reconciler's: only it asks the hold's orders).
//! - still live (extended): looked at again when it expires;
//! - lapsed: the hold is expired (`holds::expire_hold`, by the database's clock, as the
//!   sweeper does), which gives the redemption back;
//! - its order PENDING or CANCELLING: looked at again after a grace;
//! - confirmed into an order: REDEEMED (the confirmation's own write was lost);
//! - its order refunded whole (CANCELLED): given back, as the refund policy says;
//! - gone: fenced in its inventory first (an attempt paused before placing it can then never
//!   place it), then given back.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::redemption::free;
use super::store::documents::{RedemptionDoc, RedemptionState};
use crate::domain::ids::{HoldId, RedemptionId};
use crate::error::ApiError;
use crate::holds::{self, hold_fate, HoldEndings, HoldFate, OrdersOfHold};
use crate::inventory::HoldFence;
use crate::store::documents::OrderStatus;
use crate::store::{self, Store};
use crate::telemetry::metrics::Expirer;

/// How long a look that settled nothing waits for the next.
pub const REDEMPTION_GRACE: Duration = Duration::from_secs(5);

/// Redemptions looked at per pass.
const BATCH: usize = 200;

/// Settles the RESERVED redemptions whose check is due by `due_by` (now, but for tests),
/// asking `orders` what became of holds gone from their inventories; returns how many were
/// looked at.
#[tracing::instrument(skip(store, orders, endings))]
pub async fn settle_redemptions(
    store: &Store,
    orders: &dyn OrdersOfHold,
    endings: &HoldEndings,
    due_by: DateTime<Utc>,
) -> Result<usize, ApiError> {
    let due = store.redemptions_due(due_by, BATCH).await?;
    let count = due.len();
    for redemption in &due {
        let Some((showtime, hold)) = redemption.held_by() else {
            continue;
        };
        let fate = hold_fate(store, orders, showtime, hold).await?;
        settle(store, endings, redemption, fate, Expirer::Sweeper).await?;
    }
    Ok(count)
}

/// Settles one RESERVED redemption from `fate`, what became of its hold; true when it was
/// given back.
pub(super) async fn settle(
    store: &Store,
    endings: &HoldEndings,
    redemption: &RedemptionDoc,
    fate: HoldFate,
    expirer: Expirer,
) -> Result<bool, ApiError> {
    let Some((showtime, hold)) = redemption.held_by() else {
        return Ok(false);
    };
    let (id, customer) = (redemption.id, redemption.customer.as_deref());
    let voucher = redemption.voucher.as_str();
    let grace = chrono::TimeDelta::from_std(REDEMPTION_GRACE).unwrap_or(chrono::TimeDelta::MAX);
    let later = store::now() + grace;
    match fate {
        HoldFate::Live { expires_at } => {
            store
                .postpone_redemption_check(voucher, id, hold, expires_at)
                .await?;
            Ok(false)
        }
        HoldFate::Lapsed(lapsed) => {
            // Expired as every hold is: the handlers of ended holds give back what it
            // carried (this feature's, its redemption).
            if holds::expire_hold(store, endings, showtime, &lapsed, expirer).await? {
                return Ok(true);
            }
            // Not yet by the database's clock, or a confirmation or another expiry got there.
            store
                .postpone_redemption_check(voucher, id, hold, later)
                .await?;
            Ok(false)
        }
        HoldFate::Ordered {
            status: OrderStatus::Pending | OrderStatus::Cancelling,
            ..
        } => {
            store
                .postpone_redemption_check(voucher, id, hold, later)
                .await?;
            Ok(false)
        }
        HoldFate::Ordered {
            order,
            status: OrderStatus::Confirmed,
        } => {
            store
                .redeem_redemption(Some(voucher), id, hold, order)
                .await?;
            Ok(false)
        }
        HoldFate::Ordered {
            status: OrderStatus::Cancelled,
            ..
        } => give_back(store, voucher, id, customer, hold).await,
        HoldFate::Gone => match store.fence_holds(showtime, &[hold]).await? {
            HoldFence::Fenced | HoldFence::NoInventory => {
                give_back(store, voucher, id, customer, hold).await
            }
            // Placed after all, between the two reads.
            HoldFence::Live(live) => {
                store
                    .postpone_redemption_check(voucher, id, hold, live.expires_at)
                    .await?;
                Ok(false)
            }
        },
    }
}

async fn give_back(
    store: &Store,
    voucher: &str,
    id: RedemptionId,
    customer: Option<&str>,
    hold: HoldId,
) -> Result<bool, ApiError> {
    let freed = free(
        store,
        Some(voucher),
        id,
        customer,
        hold,
        &[RedemptionState::Reserved],
    )
    .await?;
    if freed {
        tracing::info!(%hold, "gave back a voucher redemption its hold left");
    }
    Ok(freed)
}
