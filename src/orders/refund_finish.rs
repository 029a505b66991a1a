//! Finishing a refund under way, whoever finds it (the canceller, the showtime's
//! cancellation, a confirmation or the reconciler settling the order): the seats back, the
//! stock and the voucher given back, the audit entry, then the refund marked done; or, when a
//! seat was admitted meanwhile, the refund withdrawn. Apart from `refunds`, which records a
//! refund: every step here may run again after a crash, and must find its work done.

use crate::concessions;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::{OrderId, ResourceId};
use crate::domain::seat::SeatState;
use crate::error::ApiError;
use crate::store::documents::{
    AuditDoc, CancelReason, OrderDoc, OrderStatus, RefundDoc, SCHEMA_VERSION,
};
use crate::store::{CrashPoint, Store};
use crate::vouchers;

/// The rest of a refund under way (the order says `refunding`, or CANCELLING): its seats back
/// (unless that was done already), its audit entry, then marked done. An order CANCELLING
/// from before refunds were recorded gives back every seat it has left.
pub(super) async fn finish_refund(
    store: &Store,
    mut order: OrderDoc,
) -> Result<OrderDoc, ApiError> {
    let whole = order.status == OrderStatus::Cancelling;
    let Some(refund_id) = order.refunding else {
        if whole {
            let remaining: Vec<String> = (order.tickets())
                .map(|seat| seat.label.clone())
                .filter(|label| !order.cancelled_seats.contains(label))
                .collect();
            store
                .free_sold_seats(&order, &remaining, true, None, true)
                .await?;
            store.crash_point(CrashPoint::CancelAfterFree)?;
            give_back_voucher(store, &order).await?;
            store
                .set_order_status(order.id, OrderStatus::Cancelling, OrderStatus::Cancelled)
                .await?;
            order.status = OrderStatus::Cancelled;
        }
        return Ok(order);
    };
    let refund = order.refund(refund_id).cloned().ok_or_else(|| {
        ApiError::internal(format!(
            "order {} is refunding {refund_id}, which it does not record",
            order.id
        ))
    })?;
    // A cancelled showtime refunds every ticket, admitted or not; a customer's refund never
    // gives back a seat whose ticket was admitted.
    let even_admitted = refund.reason == CancelReason::ShowtimeCancelled;
    if !store
        .free_sold_seats(&order, &refund.seats, even_admitted, Some(&refund), whole)
        .await?
        && !even_admitted
        && admitted_among(store, &order, &refund.seats).await?
    {
        // Admitted between the refund's record and now: the refund is taken back whole.
        store.withdraw_refund(order.id, &refund, whole).await?;
        return withdrawn(order, &refund, whole);
    }
    store.crash_point(CrashPoint::CancelAfterFree)?;
    return_stock(store, &order, &refund).await?;
    record_refund(store, &order, &refund).await?;
    if whole {
        give_back_voucher(store, &order).await?;
    }
    store.finish_refund(order.id, refund_id, whole).await?;
    order.refunding = None;
    if whole {
        order.status = OrderStatus::Cancelled;
    }
    Ok(order)
}

/// The refund policy for vouchers: an order refunded whole gives its voucher's redemption
/// back (before the order says CANCELLED, so a crash between leaves the refund to finish,
/// and this to run again, at no cost); a partial refund keeps it redeemed.
async fn give_back_voucher(store: &Store, order: &OrderDoc) -> Result<(), ApiError> {
    match &order.voucher {
        // Boxed: kept out of every refund's future (deep enough already).
        Some(used) => Box::pin(vouchers::give_back_refunded(store, used, order.hold_id)).await,
        None => Ok(()),
    }
}

/// The units of the stocked products a refund gave back, back in stock (once per refund,
/// however often the refund is finished: `concessions::return_refunded`).
async fn return_stock(store: &Store, order: &OrderDoc, refund: &RefundDoc) -> Result<(), ApiError> {
    let units: Vec<concessions::Units> = (refund.items.iter())
        .filter(|item| item.stocked)
        .map(|item| (item.product, item.quantity))
        .collect();
    if units.is_empty() {
        return Ok(());
    }
    let (order_id, showtime) = (order.id, order.showtime.id);
    Box::pin(concessions::return_refunded(
        store, &units, refund.id, order_id, showtime,
    ))
    .await
}

/// Whether refund `refund` of order `order` is still under way (recorded, not finished);
/// false once it is finished or withdrawn, or when there is no such order.
pub async fn refund_under_way(
    store: &Store,
    order: OrderId,
    refund: ResourceId,
) -> Result<bool, ApiError> {
    Ok(store
        .orders_by_ids(&[order])
        .await?
        .pop()
        .is_some_and(|order| order.refunding == Some(refund)))
}

/// Whether any of seats `labels` is still SOLD under `order` and admitted at the door.
async fn admitted_among(
    store: &Store,
    order: &OrderDoc,
    labels: &[String],
) -> Result<bool, ApiError> {
    let Some(inventory) = store.inventory(order.showtime.id).await? else {
        return Ok(false);
    };
    Ok(labels.iter().any(|label| {
        inventory.seat(label).is_some_and(|seat| {
            seat.state == SeatState::Sold && seat.order == Some(order.id) && seat.admitted.is_some()
        })
    }))
}

/// `order` as it is once `refund` was withdrawn (`store::withdraw_refund`).
fn withdrawn(mut order: OrderDoc, refund: &RefundDoc, whole: bool) -> Result<OrderDoc, ApiError> {
    tracing::info!(order = %order.id, refund = %refund.id, "a refund was withdrawn: a seat was admitted");
    order.refunds.retain(|kept| kept.id != refund.id);
    order.refunded -= refund.amount;
    order
        .cancelled_seats
        .retain(|seat| !refund.seats.contains(seat));
    (order.cancelled_items).retain(|product| refund.items.iter().all(|i| i.product != *product));
    order.refunding = None;
    order.sales_stale = true;
    if whole {
        order.status = OrderStatus::Confirmed;
        order.cancelled_at = None;
        order.cancel_reason = None;
        order.cancel_request = None;
    }
    Ok(order)
}

/// The refund's entry in the audit log, under the refund's id (recorded once, whoever
/// finishes the refund).
async fn record_refund(
    store: &Store,
    order: &OrderDoc,
    refund: &RefundDoc,
) -> Result<(), ApiError> {
    let items: Vec<_> = (refund.items.iter())
        .map(|item| {
            serde_json::json!({
                "product": GlobalId::Product(item.product).encode(),
                "quantity": item.quantity,
                "amount": item.amount,
            })
        })
        .collect();
    let after = serde_json::json!({
        "seats": refund.seats,
        "items": items,
        "amounts": refund.amounts,
        "amount": refund.amount,
        "fee": refund.fee,
        "currency": order.currency,
        "reason": refund.reason,
        "idempotencyKey": refund.idempotency_key,
    });
    store
        .record_audit(&AuditDoc {
            id: refund.id,
            schema_version: SCHEMA_VERSION,
            operator: refund.by.clone(),
            operation: "refund".to_owned(),
            at: refund.at,
            cinema_id: Some(order.showtime.cinema_id),
            subject: GlobalId::Order(Some(order.showtime.id), order.id).encode(),
            before: None,
            after: Some(after.to_string()),
        })
        .await
}
