//! A product's stock through a hold's life: units reserved before the hold is placed (all
//! its stocked lines or none), given back when it is released, expires or was never placed,
//! sold when its order is confirmed, and returned when a refund gives a line back.
//!
//! Every change is one conditional update of the product's document that names its entry
//! (the hold's id, or the refund's) and the entry's state, so none happens twice and the
//! stock never goes below zero: no race or crash sells more units than there were.
//! Whatever a crash leaves is settled by `reconciler`.

use chrono::{DateTime, Utc};

use super::products::look_up;
use super::rules::{price_items, sold_out, ItemAsk};
use super::store::documents::{StockEntryDoc, StockEntryKind};
use super::store::MAX_PENDING;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::{CinemaId, HoldId, OrderId, ProductId, ResourceId, ShowtimeId};
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::documents::{HoldItemDoc, OrderDoc};
use crate::store::{self, Store};

/// How long a refund's return is remembered after it was made: longer than any request or
/// pass that could still be finishing that refund (each of its commands is bounded by
/// seconds), so a late finisher finds the entry and returns nothing twice.
pub const RETURN_GRACE: std::time::Duration = std::time::Duration::from_secs(600);

/// A stocked line's units: which product, how many.
pub type Units = (ProductId, i64);

/// The lines a hold at cinema `cinema` takes for `asks` (checked by `rules::check_asks`),
/// priced from the products as read now (one read).
pub async fn hold_lines(
    store: &Store,
    asks: &[ItemAsk],
    cinema: CinemaId,
) -> Result<Vec<HoldItemDoc>, ApiError> {
    if asks.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<ProductId> = asks.iter().map(|ask| ask.product).collect();
    let products = look_up(store, &ids).await?;
    let lines = price_items(asks, &products, cinema, store::now())?;
    Ok(lines
        .into_iter()
        .map(|line| HoldItemDoc {
            product: line.product,
            name: line.name,
            quantity: line.quantity,
            unit_price: line.unit_price,
            stocked: line.stocked,
        })
        .collect())
}

/// The stocked units of a hold's lines.
pub fn stocked(lines: &[HoldItemDoc]) -> Vec<Units> {
    lines
        .iter()
        .filter(|line| line.stocked)
        .map(|line| (line.product, line.quantity))
        .collect()
}

/// The stocked units of an order's product lines (what its hold reserved).
pub(super) fn stocked_of_order(order: &OrderDoc) -> Vec<Units> {
    order
        .products()
        .filter(|line| line.stocked)
        .map(|line| (line.product, line.quantity))
        .collect()
}

/// Reserves the units of every stocked line of `lines` for hold `hold` of `showtime`, to be
/// looked at by `check_at` (its expiry): all or none. SOLD_OUT names the first product with
/// too few left (the lines reserved before it are given back); UNAVAILABLE when a product
/// has too many holds in flight for one more.
#[tracing::instrument(skip(store, lines), fields(%hold))]
pub async fn reserve(
    store: &Store,
    lines: &[HoldItemDoc],
    hold: HoldId,
    showtime: ShowtimeId,
    check_at: DateTime<Utc>,
) -> Result<(), ApiError> {
    let units = stocked(lines);
    for (done, &(product, quantity)) in units.iter().enumerate() {
        let entry = StockEntryDoc {
            id: hold.oid(),
            kind: StockEntryKind::Hold,
            quantity,
            showtime,
            order: None,
            check_at,
        };
        if store.reserve_stock(product, &entry).await? {
            continue;
        }
        let refusal = match why_not_reserved(store, product, hold, quantity).await {
            Ok(None) => continue,
            Ok(Some(refusal)) | Err(refusal) => refusal,
        };
        give_back_or_leave(store, &units[..done], hold).await;
        return Err(refusal);
    }
    Ok(())
}

/// Why a reservation matched nothing: None when the hold has its units already (an
/// earlier try of the same hold), else the refusal.
async fn why_not_reserved(
    store: &Store,
    product: ProductId,
    hold: HoldId,
    quantity: i64,
) -> Result<Option<ApiError>, ApiError> {
    let Some(doc) = store.products_by_ids(&[product]).await?.pop() else {
        return Ok(Some(ApiError::not_found(format!(
            "product {} does not exist",
            GlobalId::Product(product).encode()
        ))));
    };
    if (doc.pending.iter())
        .any(|entry| entry.id == hold.oid() && entry.kind == StockEntryKind::Hold)
    {
        return Ok(None);
    }
    if doc.pending.len() >= MAX_PENDING {
        return Ok(Some(ApiError::Overloaded(format!(
            "product {} has {MAX_PENDING} holds in flight; retry in a moment",
            doc.name
        ))));
    }
    Ok(Some(sold_out(product, &doc.name, quantity, doc.stock)))
}

/// Gives back the units hold `hold` reserved (the stocked `units` of its lines); those
/// given back already are skipped.
pub async fn give_back(store: &Store, units: &[Units], hold: HoldId) -> Result<(), ApiError> {
    for &(product, quantity) in units {
        store.give_back_stock(product, hold.oid(), quantity).await?;
    }
    Ok(())
}

/// `give_back`, logging a failure: the reconciler gives back what is left (the hold is gone).
pub async fn give_back_or_leave(store: &Store, units: &[Units], hold: HoldId) {
    if let Err(error) = give_back(store, units, hold).await {
        tracing::warn!(%hold, %error, "left a hold's stock to the reconciler");
    }
}

/// Makes the units hold `hold` reserved sold (its order was confirmed): once, whoever calls.
pub async fn sell(store: &Store, units: &[Units], hold: HoldId) -> Result<(), ApiError> {
    for &(product, quantity) in units {
        store.sell_stock(product, hold.oid(), quantity).await?;
    }
    Ok(())
}

/// Returns to stock the units refund `refund` of `order` gave back: once per refund and
/// product, however often a refund is finished.
pub async fn return_refunded(
    store: &Store,
    units: &[Units],
    refund: ResourceId,
    order: OrderId,
    showtime: ShowtimeId,
) -> Result<(), ApiError> {
    let grace = chrono::TimeDelta::from_std(RETURN_GRACE).unwrap_or(chrono::TimeDelta::MAX);
    let check_at = store::now() + grace;
    for &(product, quantity) in units {
        store
            .return_stock(product, refund, order, showtime, quantity, check_at)
            .await?;
    }
    Ok(())
}
