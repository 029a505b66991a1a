//! Cancelling an order, whole or some of its seats, and the refund each cancellation records.
//!
//! A cancellation is three writes (the design of `store::refunds`): the refund recorded on
//! the order with the order's state in the filter (CONFIRMED, no refund under way, none of its
//! seats refunded; a whole cancellation also makes it CANCELLING), the seats given back in one
//! inventory update with the order in its filter, then the refund marked done. Whoever finds a
//! refund under way finishes it, so a crash between the writes loses nothing and a seat is
//! never given back twice. The refund's id is the request's (its idempotency key's resource
//! id): a retry of the key finds its refund instead of making a second. This file plans and
//! records a refund; finishing one under way is `refund_finish`.

use super::confirm::{load_order, settle_order};
use super::refund_finish::finish_refund;
use super::store::WholeCancel;
use crate::domain::ids::{OrderId, ProductId, ResourceId};
use crate::domain::list_caps::MAX_SEATS_PER_HOLD;
use crate::error::ApiError;
use crate::holds::HoldEndings;
use crate::idempotency::Attempt;
use crate::orders::rules::{
    plan_refund, Asked, OrderedItem, OrderedLines, OrderedSeat, RefundCause, RefundPlan,
    RefundPolicy,
};
use crate::store::documents::{CancelReason, OrderDoc, OrderStatus, RefundDoc, RefundedItemDoc};
use crate::store::{self, CrashPoint, DelayPoint, PausePoint, Store};

/// A refund that lost a race to another write of its order reads the order again and tries
/// again, this many times at most. Every lost race is another refund recorded (or finished),
/// and each takes a seat at least: an order of N seats sees at most N of them, each costing a
/// loser two reads (one to find it under way, one after finishing it).
const MAX_ATTEMPTS: usize = 2 * (MAX_SEATS_PER_HOLD + 1);

/// What a channel asks to cancel.
#[derive(Debug, Clone)]
pub struct CancelRequest<'a> {
    pub order: OrderId,
    /// These seats; every seat the order still has when neither this nor `items` is given.
    pub seats: Option<&'a [String]>,
    /// These product lines (by product), each in full.
    pub items: Option<&'a [ProductId]>,
    /// The idempotency key the request carries, recorded with the refund.
    pub key: Option<&'a str>,
}

impl CancelRequest<'_> {
    /// What it names, or `None` for everything the order can still give back.
    fn asked(&self) -> Option<Asked<'_>> {
        match (self.seats, self.items) {
            (None, None) => None,
            (seats, items) => Some(Asked {
                seats: seats.unwrap_or_default(),
                items: items.unwrap_or_default(),
            }),
        }
    }
}

/// Cancels seats of a confirmed order of `channel` (all that remain when none are named) under
/// its cinema's refund policy, and answers with the order: CONFIRMED with the cancelled seats
/// and the refund among `refunds`, or CANCELLED once no seat remains. A cancellation this
/// request (any attempt of its key) made is the answer; one a crash left under way is finished
/// first, whoever asks.
#[tracing::instrument(skip(store, endings))]
pub async fn cancel_order(
    store: &Store,
    endings: &HoldEndings,
    channel: &str,
    request: &CancelRequest<'_>,
    attempt: Attempt,
) -> Result<OrderDoc, ApiError> {
    let order_id = request.order;
    let not_found = || ApiError::not_found(format!("no order {order_id} of this channel"));
    let id = attempt.resource_id();
    for _ in 0..MAX_ATTEMPTS {
        let mut order = load_order(store, channel, order_id)
            .await?
            .ok_or_else(not_found)?;
        if order.status == OrderStatus::Pending {
            order = (settle_order(store, endings, order).await?).ok_or_else(not_found)?;
        }
        if order.refunding.is_some() || order.status == OrderStatus::Cancelling {
            // A refund under way (this request's, a crashed one's, or a concurrent one's):
            // finish it. Without a key, one that does what this request asks (a retry after
            // INTERNAL) is its answer; with one, only this key's attempts are (a request under
            // another key racing it is answered as if it came after: cancelled already).
            let under_way = order
                .refunding
                .and_then(|refund| order.refund(refund).cloned());
            let whole = order.status == OrderStatus::Cancelling;
            let finished = finish_refund(store, order).await?;
            let asked_for = !attempt.keyed()
                && match (request.asked(), &under_way) {
                    (None, _) => whole,
                    (Some(asked), Some(refund)) => same_lines(asked, refund),
                    (Some(_), None) => false,
                };
            let withdrawn =
                (under_way.as_ref()).is_some_and(|refund| finished.refund(refund.id).is_none());
            if asked_for && withdrawn {
                return Err(admitted_refusal(
                    &under_way.map(|r| r.seats).unwrap_or_default(),
                ));
            }
            if asked_for || finished.refund(id).is_some() || finished.cancel_request == Some(id) {
                return Ok(finished);
            }
            continue;
        }
        if order.refund(id).is_some() || order.cancel_request == Some(id) {
            return Ok(order);
        }
        match order.status {
            OrderStatus::Cancelled
                if order.cancel_reason == Some(CancelReason::ShowtimeCancelled) =>
            {
                return Err(ApiError::bad_input(format!(
                    "order {order_id} is cancelled already: its showtime was cancelled"
                )))
            }
            OrderStatus::Cancelled => {
                return Err(ApiError::bad_input(format!(
                    "order {order_id} is cancelled already"
                )))
            }
            OrderStatus::Pending | OrderStatus::Cancelling => return Err(not_found()),
            OrderStatus::Confirmed => {}
        }
        let policy = refund_policy(store, &order).await?;
        let now = store::now();
        let (seats, items) = ordered_lines(&order);
        let plan = plan_refund(
            OrderedLines {
                seats: &seats,
                items: &items,
            },
            request.asked(),
            RefundCause::CustomerRequest,
            &policy,
            order.showtime.starts_at,
            now,
        )?;
        let by = format!("channel:{channel}");
        let refund = RefundDoc {
            idempotency_key: request.key.map(str::to_owned),
            ..refund_doc(id, &plan, CancelReason::CustomerRequest, &by, now)
        };
        let whole = plan.whole.then_some(WholeCancel {
            at: now,
            reason: CancelReason::CustomerRequest,
            request: Some(id),
        });
        if let Some(started) = start(store, order, refund, whole).await? {
            let finished = finish_refund(store, started).await?;
            if finished.refund(id).is_none() {
                return Err(admitted_refusal(&plan.seats));
            }
            return Ok(finished);
        }
        // Another write of the order came first: read it again.
    }
    Err(ApiError::unavailable(format!(
        "order {order_id} kept changing while it was being cancelled: retry"
    )))
}

/// The refusal of a cancellation taken back because one of its seats was admitted.
fn admitted_refusal(seats: &[String]) -> ApiError {
    ApiError::RefundNotAllowed(format!(
        "seats {} can no longer be cancelled: a ticket among them was admitted at the door",
        seats.join(", ")
    ))
}

/// Whether `refund` gave back exactly what `asked` names.
fn same_lines(asked: Asked<'_>, refund: &RefundDoc) -> bool {
    let mut seats = asked.seats.to_vec();
    let mut refunded = refund.seats.clone();
    seats.sort();
    refunded.sort();
    let mut items = asked.items.to_vec();
    let mut refunded_items: Vec<ProductId> = refund.items.iter().map(|i| i.product).collect();
    items.sort();
    refunded_items.sort();
    seats == refunded && items == refunded_items
}

/// The cinema's refund policy for `order` (refunds in full until the start when it has none).
async fn refund_policy(store: &Store, order: &OrderDoc) -> Result<RefundPolicy, ApiError> {
    let cinemas = store.cinemas_by_ids(&[order.showtime.cinema_id]).await?;
    Ok(cinemas
        .first()
        .and_then(|cinema| cinema.refund_policy)
        .map(|policy| policy.policy())
        .unwrap_or_default())
}

/// An order's seats and product lines, as the refund rules see them.
fn ordered_lines(order: &OrderDoc) -> (Vec<OrderedSeat>, Vec<OrderedItem>) {
    let seats = order
        .tickets()
        .map(|seat| OrderedSeat {
            label: seat.label.clone(),
            price: seat.price,
            refunded: order.cancelled_seats.contains(&seat.label),
        })
        .collect();
    let items = order
        .products()
        .map(|line| OrderedItem {
            product: line.product,
            quantity: line.quantity,
            amount: line.amount,
            stocked: line.stocked,
            refunded: order.item_refunded(line.product),
            collected: order.item_collected(line.product),
        })
        .collect();
    (seats, items)
}

fn refund_doc(
    id: ResourceId,
    plan: &RefundPlan,
    reason: CancelReason,
    by: &str,
    at: chrono::DateTime<chrono::Utc>,
) -> RefundDoc {
    RefundDoc {
        id,
        seats: plan.seats.clone(),
        amounts: plan.amounts.clone(),
        items: plan
            .items
            .iter()
            .map(|item| RefundedItemDoc {
                product: item.product,
                quantity: item.quantity,
                amount: item.amount,
                stocked: item.stocked,
            })
            .collect(),
        amount: plan.amount(),
        fee: plan.fee(),
        reason,
        by: by.to_owned(),
        at,
        idempotency_key: None,
    }
}

/// Records `refund` on `order` (first write); the order as it now is, or `None` when another
/// write of the order came first.
async fn start(
    store: &Store,
    mut order: OrderDoc,
    refund: RefundDoc,
    whole: Option<WholeCancel>,
) -> Result<Option<OrderDoc>, ApiError> {
    if !store.start_refund(order.id, &refund, whole).await? {
        return Ok(None);
    }
    store.delay_point(DelayPoint::RefundAfterRecord).await;
    store.pause_point(PausePoint::RefundAfterRecord).await;
    store.crash_point(CrashPoint::CancelBeforeFree)?;
    if let Some(whole) = whole {
        crate::telemetry::metrics::order_cancelled();
        order.status = OrderStatus::Cancelling;
        order.cancelled_at = Some(whole.at);
        order.cancel_reason = Some(whole.reason);
        order.cancel_request = whole.request.or(order.cancel_request);
    }
    order.refunding = Some(refund.id);
    order.refunded += refund.amount;
    order.cancelled_seats.extend(refund.seats.iter().cloned());
    (order.cancelled_items).extend(refund.items.iter().map(|item| item.product));
    order.sales_stale = true;
    order.refunds.push(refund);
    Ok(Some(order))
}

/// Cancels order `order` of a showtime being cancelled, whatever state a crash or a race left
/// it in, exactly once: PENDING is settled first (CONFIRMED if its seats were sold to it,
/// discarded if its hold is gone); a refund under way is finished; CONFIRMED gets a refund of
/// every seat it has left, in full, under the order's own id (so every resumer records the
/// same one), with the reason SHOWTIME_CANCELLED. True when this call cancelled it.
#[tracing::instrument(skip(store, endings, order), fields(order = %order.id, status = ?order.status))]
pub(super) async fn cancel_for_showtime(
    store: &Store,
    endings: &HoldEndings,
    order: OrderDoc,
) -> Result<bool, ApiError> {
    let mut order = match order.status {
        OrderStatus::Pending => match settle_order(store, endings, order).await? {
            Some(settled) => settled,
            None => return Ok(false),
        },
        _ => order,
    };
    let id = ResourceId(order.id.0);
    for _ in 0..MAX_ATTEMPTS {
        if order.refunding.is_some() || order.status == OrderStatus::Cancelling {
            order = finish_refund(store, order).await?;
        }
        // Its hold was released before orders are looked at: settling never leaves one
        // PENDING.
        if order.status != OrderStatus::Confirmed {
            return Ok(false);
        }
        let now = store::now();
        let (seats, items) = ordered_lines(&order);
        let plan = plan_refund(
            OrderedLines {
                seats: &seats,
                items: &items,
            },
            None,
            RefundCause::ShowtimeCancelled,
            &RefundPolicy::default(),
            order.showtime.starts_at,
            now,
        )?;
        let refund = refund_doc(
            id,
            &plan,
            CancelReason::ShowtimeCancelled,
            "cancelShowtime",
            now,
        );
        let whole = Some(WholeCancel {
            at: now,
            reason: CancelReason::ShowtimeCancelled,
            request: None,
        });
        if let Some(started) = start(store, order.clone(), refund, whole).await? {
            finish_refund(store, started).await?;
            return Ok(true);
        }
        // Its channel cancelled some or all of it meanwhile: read it again.
        match store.orders_by_ids(&[order.id]).await?.pop() {
            Some(again) => order = again,
            None => return Ok(false),
        }
    }
    Err(ApiError::internal(format!(
        "order {} kept changing while its showtime was being cancelled",
        order.id
    )))
}
