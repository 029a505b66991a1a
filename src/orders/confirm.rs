//! Confirming a hold into an order, and settling an order a gateway left between two writes
//! (cancelling is in `refunds`). The inventory document is the authority on which seats an order holds
//! (invariant 6; the design is in `orders::store::orders`).

use super::confirm_batch::{confirm_in_batch, Confirmations, Job, Outcome};
use super::refund_finish::finish_refund;
use crate::domain::ids::{HoldId, OrderId, ShowtimeId};
use crate::domain::paging::{Page, PageRequest};
use crate::domain::seat::SeatState;
use crate::domain::text;
use crate::domain::ticket_codes::{self, TicketSecret};
use crate::error::ApiError;
use crate::holds::rules::HoldPolicy;
use crate::holds::HoldEndings;
use crate::idempotency::Attempt;
use crate::store::documents::{
    CustomerDoc, HoldDoc, OrderDoc, OrderLineDoc, OrderShowtimeDoc, OrderStatus, ProductLineDoc,
    SeatInventoryDoc, ShowtimeDoc, ShowtimeStatus, TicketLineDoc, ORDER_SCHEMA_VERSION,
};
use crate::store::{self, CrashPoint, Store};

/// Who the tickets are for.
#[derive(Debug, Clone)]
pub struct Customer {
    pub name: String,
    pub contact: String,
}

/// A hold that is not there: HOLD_EXPIRED when its id is older than a hold lives (it lapsed and
/// was swept or taken over), NOT_FOUND otherwise (unknown, another channel's, or released).
pub(super) fn missing_hold(hold_id: HoldId, policy: &HoldPolicy) -> ApiError {
    let ttl = chrono::TimeDelta::from_std(policy.ttl).unwrap_or(chrono::TimeDelta::MAX);
    let lapsed = store::created_at(hold_id)
        .checked_add_signed(ttl)
        .is_some_and(|lapses| lapses < store::now());
    if lapsed {
        ApiError::HoldExpired(format!("hold {hold_id} has expired"))
    } else {
        ApiError::not_found(format!("no live hold {hold_id} of this channel"))
    }
}

/// A hold of a cancelled showtime: the cancellation released it (or is about to), and it can
/// never be confirmed. HOLD_EXPIRED, as for any hold that is gone for good, saying why.
pub(super) fn released_by_cancellation(hold_id: HoldId, showtime_id: ShowtimeId) -> ApiError {
    ApiError::HoldExpired(format!(
        "hold {hold_id} was released: showtime {showtime_id} was cancelled"
    ))
}

/// Confirms a live hold of `channel` into an order. The order is written PENDING, then the
/// hold's seats are sold to it in one atomic update (the moment it takes effect), then it is
/// marked CONFIRMED. An expired hold can never be confirmed (HOLD_EXPIRED). The order gets the
/// key's resource id, whichever attempt writes it; an attempt that took the key over settles
/// and returns the order an earlier attempt made, or goes on with it. An order with products
/// keeps the keyed hash of its pickup code (from `secret`), by which the counter finds it.
/// Confirmations of one showtime are written a batch at a time (`confirm_batch`); an attempt
/// that took a key over confirms on its own.
#[allow(clippy::too_many_arguments)]
#[tracing::instrument(skip(store, endings, confirmations, secret, customer, policy))]
pub async fn confirm_hold(
    store: &Store,
    endings: &HoldEndings,
    confirmations: &Confirmations,
    secret: &TicketSecret,
    channel: &str,
    showtime_id: ShowtimeId,
    hold_id: HoldId,
    customer: Customer,
    policy: &HoldPolicy,
    attempt: Attempt,
) -> Result<OrderDoc, ApiError> {
    let order_id = OrderId(attempt.resource_id().0);
    if attempt.taken_over() {
        if let Some(earlier) = load_order(store, channel, order_id).await? {
            if let Some(settled) = settle_order(store, endings, earlier).await? {
                return Ok(settled);
            }
        }
    }
    let mut customer = CustomerDoc {
        name: text::required("customer.name", &customer.name)?,
        contact: text::required("customer.contact", &customer.contact)?,
    };
    if !attempt.taken_over() {
        let job = Job {
            channel: channel.to_owned(),
            hold_id,
            order_id,
            customer,
            policy: *policy,
        };
        // Boxed: the batch's future is large, and most confirmations only wait in it.
        match Box::pin(confirm_in_batch(
            store,
            endings,
            confirmations,
            secret,
            showtime_id,
            job,
        ))
        .await?
        {
            Outcome::Confirmed(order) => return Ok(*order),
            Outcome::Alone(back) => customer = back,
        }
    }
    let alone = Alone {
        channel,
        showtime_id,
        hold_id,
        order_id,
        may_exist: attempt.taken_over(),
    };
    confirm_alone(store, endings, secret, alone, customer, policy).await
}

/// What a confirmation on its own is of.
struct Alone<'a> {
    channel: &'a str,
    showtime_id: ShowtimeId,
    hold_id: HoldId,
    order_id: OrderId,
    /// An earlier attempt of the key may have written the order.
    may_exist: bool,
}

/// Confirms one hold on its own: a take-over of a key, or a confirmation a batch handed back.
async fn confirm_alone(
    store: &Store,
    endings: &HoldEndings,
    secret: &TicketSecret,
    alone: Alone<'_>,
    customer: CustomerDoc,
    policy: &HoldPolicy,
) -> Result<OrderDoc, ApiError> {
    let Alone {
        channel,
        showtime_id,
        hold_id,
        order_id,
        may_exist,
    } = alone;
    // Only the hold is read, not the seats; the showtime (for the order's snapshot) beside it.
    let (hold, showtimes) = tokio::try_join!(
        store.hold_of(showtime_id, hold_id),
        store.showtimes_by_ids(std::slice::from_ref(&showtime_id))
    )?;
    // The showtime is read anyway (for the snapshot): a cancelled one is told apart at no cost.
    if showtimes
        .first()
        .is_some_and(|showtime| showtime.status != ShowtimeStatus::Scheduled)
    {
        return Err(released_by_cancellation(hold_id, showtime_id));
    }
    let Some(hold) = hold.filter(|hold| hold.channel == channel) else {
        // Not the happy path: a second read may tell a hold a cancellation released (the
        // showtime was read before the cancellation began) from one that lapsed.
        let cancelled = store
            .cancellation_state(showtime_id)
            .await?
            .is_some_and(|state| state.status != ShowtimeStatus::Scheduled);
        return Err(if cancelled {
            released_by_cancellation(hold_id, showtime_id)
        } else {
            missing_hold(hold_id, policy)
        });
    };
    if hold.expires_at <= store::now() {
        return Err(ApiError::HoldExpired(format!("hold {hold_id} has expired")));
    }
    let showtime = showtimes
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::internal(format!("showtime {showtime_id} is gone")))?;
    let order = new_order(secret, channel, order_id, &showtime, &hold, customer)?;
    let order = store.insert_pending_order(&order, may_exist).await?;
    store.crash_point(CrashPoint::ConfirmBeforeSell)?;
    sell_and_confirm(store, endings, channel, &hold, order, policy).await
}

/// The PENDING order of `channel` that confirms `hold` of `showtime` for `customer`.
pub(super) fn new_order(
    secret: &TicketSecret,
    channel: &str,
    order_id: OrderId,
    showtime: &ShowtimeDoc,
    hold: &HoldDoc,
    customer: CustomerDoc,
) -> Result<OrderDoc, ApiError> {
    let pickup_key = match hold.items.is_empty() {
        true => None,
        false => Some(ticket_codes::pickup_key(
            secret,
            &ticket_codes::pickup_code(secret, order_id),
        )?),
    };
    Ok(OrderDoc {
        id: order_id,
        schema_version: ORDER_SCHEMA_VERSION,
        channel: channel.to_owned(),
        status: OrderStatus::Pending,
        hold_id: hold.id,
        showtime: OrderShowtimeDoc {
            id: showtime.id,
            cinema_id: showtime.cinema.id,
            movie_id: showtime.movie.id,
            starts_at: showtime.starts_at,
            movie_title: showtime.movie.title.clone(),
            cinema_name: showtime.cinema.name.clone(),
            hall_name: showtime.theater.name.clone(),
        },
        total: hold.total(),
        lines: order_lines(hold),
        currency: showtime.currency.clone(),
        customer,
        created_at: store::now(),
        cancelled_at: None,
        cancel_request: None,
        sales_counted: false,
        cancel_reason: None,
        refunds: Vec::new(),
        refunded: 0,
        cancelled_seats: Vec::new(),
        refunding: None,
        sales_counted_as: None,
        sales_stale: false,
        voucher: hold.voucher.clone(),
        cancelled_items: Vec::new(),
        pickup_key,
        collected: None,
    })
}

/// Sells `hold`'s seats to PENDING `order` (written) on its own, and marks it CONFIRMED; when
/// the sale does not happen, finds out why, discards the order and says so.
pub(super) async fn sell_and_confirm(
    store: &Store,
    endings: &HoldEndings,
    channel: &str,
    hold: &HoldDoc,
    mut order: OrderDoc,
    policy: &HoldPolicy,
) -> Result<OrderDoc, ApiError> {
    let (showtime_id, hold_id) = (order.showtime.id, hold.id);
    if store.sell_hold(showtime_id, hold, order.id).await? {
        store.crash_point(CrashPoint::ConfirmAfterSell)?;
        let id = order.id;
        if !mark_confirmed(store, endings, &order).await? {
            // A reconciler settled it first: return what it made of it.
            return order_of(store, endings, channel, id).await;
        }
        order.status = OrderStatus::Confirmed;
        return Ok(order);
    }
    // Not sold by this update. Read the seats once: they may have been sold to this order by
    // another attempt of the key; otherwise the hold has expired by the database's clock (it
    // is still there) or is gone (released, or sold to another order), and either is for good,
    // so no sale to this order can happen any more and the order is discarded.
    let inventory = store.inventory(showtime_id).await?;
    if inventory.as_ref().is_some_and(|i| sold_to(i, &order)) {
        mark_confirmed(store, endings, &order).await?;
        return order_of(store, endings, channel, order.id).await;
    }
    store.discard_pending_order(order.id).await?;
    if inventory.as_ref().is_some_and(|i| i.cancelled) {
        return Err(released_by_cancellation(hold_id, showtime_id));
    }
    let still_there = inventory.is_some_and(|i| i.holds.iter().any(|h| h.id == hold.id));
    Err(if still_there {
        ApiError::HoldExpired(format!("hold {hold_id} has expired"))
    } else {
        missing_hold(hold_id, policy)
    })
}

/// The lines of the order that confirms `hold`: a ticket per seat, then a line per product.
fn order_lines(hold: &HoldDoc) -> Vec<OrderLineDoc> {
    let tickets = hold
        .seats
        .iter()
        .zip(&hold.kinds)
        .zip(hold.seat_prices())
        .map(|((label, kind), (ticket_type, price))| {
            OrderLineDoc::Ticket(TicketLineDoc {
                label: label.clone(),
                seat_kind: *kind,
                ticket_type,
                price,
            })
        });
    let products = hold.items.iter().map(|item| {
        OrderLineDoc::Product(ProductLineDoc {
            product: item.product,
            name: item.name.clone(),
            quantity: item.quantity,
            unit_price: item.unit_price,
            amount: item.amount(),
            stocked: item.stocked,
        })
    });
    tickets.chain(products).collect()
}

/// Moves PENDING `order`, whose seats are sold to it, to CONFIRMED; true (and counted in
/// the figures) when this call moved it, whichever path got there first (a confirmation, a
/// retry of its key, the reconciler). Every path tells holds of the sale (`tell_sale`).
async fn mark_confirmed(
    store: &Store,
    endings: &HoldEndings,
    order: &OrderDoc,
) -> Result<bool, ApiError> {
    let moved = store
        .set_order_status(order.id, OrderStatus::Pending, OrderStatus::Confirmed)
        .await?;
    if moved {
        crate::telemetry::metrics::order_confirmed();
    }
    tell_sale(store, endings, order).await;
    Ok(moved)
}

/// What every path that confirms `order` does after it: tells the handlers of ended holds
/// that its hold was sold (vouchers redeem the voucher it used, concessions sell the units
/// its products reserved). Each handler's write names the hold and assumes the reservation,
/// so telling a sale again does nothing more; a failure is logged and left to its
/// reconciler.
pub(super) async fn tell_sale(store: &Store, endings: &HoldEndings, order: &OrderDoc) {
    // Boxed: a rare extra step, kept out of every confirmation's future.
    Box::pin(endings.sold(store, order)).await;
}

/// Whether the inventory has seats of `order` SOLD under it.
fn sold_to(inventory: &SeatInventoryDoc, order: &OrderDoc) -> bool {
    order.tickets().any(|seat| {
        inventory
            .seat(&seat.label)
            .is_some_and(|s| s.state == SeatState::Sold && s.order == Some(order.id))
    })
}

/// Order `id` as stored, if it is `channel`'s.
pub(super) async fn load_order(
    store: &Store,
    channel: &str,
    id: OrderId,
) -> Result<Option<OrderDoc>, ApiError> {
    Ok(store
        .orders_by_ids(&[id])
        .await?
        .pop()
        .filter(|order| order.channel == channel))
}

/// Brings an order a gateway left between two writes to where the inventory says it is, and
/// returns it; None when it is not an order (PENDING whose seats were never sold to it).
/// - PENDING, seats SOLD under it: the sale happened; it becomes CONFIRMED.
/// - PENDING, its hold gone and the seats not sold to it: the sale can never happen (a sale
///   needs the live hold); it is discarded.
/// - PENDING, its hold still live: a confirmation may be under way; it is left alone.
/// - CANCELLING, or a refund under way (`refunding`): the refund was recorded; its seats are
///   given back and it is marked done (a CANCELLING order becomes CANCELLED).
#[tracing::instrument(skip(store, endings, order), fields(order = %order.id, status = ?order.status))]
pub async fn settle_order(
    store: &Store,
    endings: &HoldEndings,
    order: OrderDoc,
) -> Result<Option<OrderDoc>, ApiError> {
    let id = order.id;
    match order.status {
        _ if order.refunding.is_some() => finish_refund(store, order).await.map(Some),
        OrderStatus::Confirmed | OrderStatus::Cancelled => Ok(Some(order)),
        OrderStatus::Cancelling => finish_refund(store, order).await.map(Some),
        OrderStatus::Pending => {
            let showtime = order.showtime.id;
            let inventory = store.inventory(showtime).await?;
            if inventory.as_ref().is_some_and(|i| sold_to(i, &order)) {
                mark_confirmed(store, endings, &order).await?;
                return load_order(store, &order.channel, id).await;
            }
            let hold_live = inventory
                .is_some_and(|inventory| inventory.holds.iter().any(|h| h.id == order.hold_id));
            if !hold_live {
                store.discard_pending_order(id).await?;
            }
            Ok(None)
        }
    }
}

/// An order of `channel`; another channel's order, and one that is not an order yet, are
/// NOT_FOUND.
pub async fn order_of(
    store: &Store,
    endings: &HoldEndings,
    channel: &str,
    order_id: OrderId,
) -> Result<OrderDoc, ApiError> {
    let not_found = || ApiError::not_found(format!("no order {order_id} of this channel"));
    let order = load_order(store, channel, order_id)
        .await?
        .ok_or_else(not_found)?;
    settle_order(store, endings, order)
        .await?
        .ok_or_else(not_found)
}

/// A page of `channel`'s orders, newest first. PENDING orders are not orders yet and are left
/// out; one left CANCELLING by a crash is settled before it is shown.
#[tracing::instrument(skip(store))]
pub async fn list_orders(
    store: &Store,
    channel: &str,
    page: &PageRequest,
) -> Result<Page<OrderDoc>, ApiError> {
    let mut orders = store.list_orders(channel, page).await?;
    for (_, order) in &mut orders.items {
        if order.status == OrderStatus::Cancelling || order.refunding.is_some() {
            *order = finish_refund(store, order.clone()).await?;
        }
    }
    Ok(orders)
}
