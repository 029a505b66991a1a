//! Settling stock entries past their check, from what became of their hold
//! (`holds::hold_fate`) or their refund (`RefundsUnderWay`, which orders implements):
//! - a hold still live (extended): looked at again when it expires;
//! - lapsed: the hold is expired (`holds::expire_hold` gives its units back);
//! - its order PENDING or CANCELLING: looked at again after a grace;
//! - confirmed into an order (CONFIRMED, or CANCELLED since: a refund returns units on its
//!   own): sold (the confirmation's own write was lost);
//! - gone: fenced in its inventory first (an attempt paused before placing it can then never
//!   place it), then given back;
//! - a refund's return, once the order no longer has that refund under way: dropped.

use std::time::Duration;

use chrono::{DateTime, Utc};

use super::store::documents::{StockEntryDoc, StockEntryKind};
use crate::domain::ids::{HoldId, OrderId, ProductId, ResourceId};
use crate::error::ApiError;
use crate::holds::{hold_fate, HoldEndings, HoldFate, OrdersOfHold};
use crate::inventory::HoldFence;
use crate::store::codec::id_of;
use crate::store::documents::OrderStatus;
use crate::store::{self, Store};
use crate::telemetry::metrics::Expirer;

/// How long a look that settled nothing waits for the next.
pub const STOCK_GRACE: Duration = Duration::from_secs(5);

/// Products looked at per pass.
const BATCH: usize = 50;

/// Whether a refund of an order is still under way, as the orders feature tells (handed in
/// where the process is assembled: `crate::assembly::stock_orders`).
#[async_trait::async_trait]
pub trait RefundsUnderWay: Send + Sync {
    /// Whether refund `refund` of order `order` is recorded and not finished (false once
    /// it is finished or withdrawn, or when there is no such order).
    async fn refund_under_way(
        &self,
        store: &Store,
        order: OrderId,
        refund: ResourceId,
    ) -> Result<bool, ApiError>;
}

/// What the reconciler is handed where the process is assembled: what it asks the orders
/// feature, and who is told of the lapsed holds it expires.
#[derive(Clone, Copy)]
pub struct StockReconciler<'a> {
    /// The orders of a hold gone from its inventory.
    pub of_hold: &'a dyn OrdersOfHold,
    /// Whether a refund is under way.
    pub refunds: &'a dyn RefundsUnderWay,
    /// The handlers of ended holds (this feature's gives a lapsed hold's units back).
    pub endings: &'a HoldEndings,
}

/// Settles the stock entries due by `due_by` (now, but for tests), asking `orders`; returns
/// how many were looked at.
#[tracing::instrument(skip(store, orders))]
pub async fn settle_stock(
    store: &Store,
    orders: StockReconciler<'_>,
    due_by: DateTime<Utc>,
) -> Result<usize, ApiError> {
    let products = store.products_with_entries_due(due_by, BATCH).await?;
    let mut looked = 0;
    for product in &products {
        for entry in product
            .pending
            .iter()
            .filter(|entry| entry.check_at < due_by)
        {
            looked += 1;
            settle(store, orders, product.id, entry).await?;
        }
    }
    Ok(looked)
}

async fn settle(
    store: &Store,
    orders: StockReconciler<'_>,
    product: ProductId,
    entry: &StockEntryDoc,
) -> Result<(), ApiError> {
    let grace = chrono::TimeDelta::from_std(STOCK_GRACE).unwrap_or(chrono::TimeDelta::MAX);
    let later = store::now() + grace;
    let postpone = |at| store.postpone_stock_check(product, entry.id, at);
    if entry.kind == StockEntryKind::Return {
        let (Some(order), refund) = (entry.order, ResourceId(entry.id.bytes())) else {
            store
                .drop_stock_entry(product, entry.id, StockEntryKind::Return)
                .await?;
            return Ok(());
        };
        let order: OrderId = id_of(order);
        if orders
            .refunds
            .refund_under_way(store, order, refund)
            .await?
        {
            postpone(later).await?;
        } else {
            store
                .drop_stock_entry(product, entry.id, StockEntryKind::Return)
                .await?;
        }
        return Ok(());
    }
    let hold = HoldId(entry.id.bytes());
    let (showtime, quantity) = (entry.showtime, entry.quantity);
    match hold_fate(store, orders.of_hold, showtime, hold).await? {
        HoldFate::Live { expires_at } => {
            postpone(expires_at).await?;
        }
        HoldFate::Lapsed(lapsed) => {
            // Expiring it gives its units back; not yet by the database's clock, or a
            // confirmation or another expiry got there: look again.
            if !crate::holds::expire_hold(
                store,
                orders.endings,
                showtime,
                &lapsed,
                Expirer::Sweeper,
            )
            .await?
            {
                postpone(later).await?;
            }
        }
        HoldFate::Ordered {
            status: OrderStatus::Pending | OrderStatus::Cancelling,
            ..
        } => {
            postpone(later).await?;
        }
        HoldFate::Ordered { .. } => {
            store.sell_stock(product, entry.id, quantity).await?;
        }
        HoldFate::Gone => match store.fence_holds(showtime, &[hold]).await? {
            HoldFence::Fenced | HoldFence::NoInventory => {
                if store.give_back_stock(product, entry.id, quantity).await? {
                    tracing::info!(%hold, "gave back the stock a hold left");
                }
            }
            // Placed after all, between the two reads.
            HoldFence::Live(live) => {
                postpone(live.expires_at).await?;
            }
        },
    }
    Ok(())
}
