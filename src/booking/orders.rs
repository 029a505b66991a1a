//! Confirming a hold into an order, and cancelling an order.

use bson::oid::ObjectId;
use bson::DateTime;

use super::ResourceId;
use crate::domain::holds::HoldPolicy;
use crate::domain::ids::{HoldId, OrderId, ShowtimeId};
use crate::domain::layout::parse_seat_label;
use crate::domain::text;
use crate::error::ApiError;
use crate::store::documents::{
    CustomerDoc, HoldDoc, OrderDoc, OrderSeatDoc, OrderShowtimeDoc, OrderStatus, SeatInventoryDoc,
    SCHEMA_VERSION,
};
use crate::store::Store;

/// Who the tickets are for.
#[derive(Debug, Clone)]
pub struct Customer {
    pub name: String,
    pub contact: String,
}

/// A hold that is not there: HOLD_EXPIRED when its id is older than a hold lives (it lapsed and
/// was swept or taken over), NOT_FOUND otherwise (unknown, another channel's, or released).
fn missing_hold(hold_id: HoldId, policy: &HoldPolicy) -> ApiError {
    let created = ObjectId::from_bytes(hold_id.0).timestamp();
    let lapsed = created.saturating_add_duration(policy.ttl) < DateTime::now();
    if lapsed {
        ApiError::HoldExpired(format!("hold {hold_id} has expired"))
    } else {
        ApiError::not_found(format!("no live hold {hold_id} of this channel"))
    }
}

fn seat_kind(
    inventory: &SeatInventoryDoc,
    label: &str,
) -> Result<crate::domain::seat::SeatKind, ApiError> {
    let (row, number) = parse_seat_label(label)?;
    inventory
        .seats
        .get(row)
        .and_then(|positions| positions.get(number - 1))
        .and_then(Option::as_ref)
        .map(|seat| seat.kind)
        .ok_or_else(|| ApiError::internal(format!("held seat {label} is not in the inventory")))
}

/// Confirms a live hold of `channel` into an order: its seats become SOLD and the order is
/// written in one transaction. An expired hold can never be confirmed (HOLD_EXPIRED). The
/// order gets the id `order_id`; if this channel's order with that id exists already (a retry
/// after a crash), it is returned.
#[tracing::instrument(skip(store, customer, policy))]
pub async fn confirm_hold(
    store: &Store,
    channel: &str,
    showtime_id: ShowtimeId,
    hold_id: HoldId,
    customer: Customer,
    policy: &HoldPolicy,
    order_id: ResourceId,
) -> Result<OrderDoc, ApiError> {
    if order_id.may_exist {
        if let Ok(order) = order_of(store, channel, order_id.id.into()).await {
            return Ok(order);
        }
    }
    let customer = CustomerDoc {
        name: text::required("customer.name", &customer.name)?,
        contact: text::required("customer.contact", &customer.contact)?,
    };
    let inventory = store
        .inventory(showtime_id)
        .await?
        .ok_or_else(|| missing_hold(hold_id, policy))?;
    let hold: HoldDoc = inventory
        .holds
        .iter()
        .find(|hold| HoldId::from(hold.id) == hold_id && hold.channel == channel)
        .cloned()
        .ok_or_else(|| missing_hold(hold_id, policy))?;
    if hold.expires_at <= DateTime::now() {
        return Err(ApiError::HoldExpired(format!("hold {hold_id} has expired")));
    }
    let showtime = store
        .showtimes_by_ids(&[showtime_id])
        .await?
        .pop()
        .ok_or_else(|| ApiError::internal(format!("showtime {showtime_id} is gone")))?;
    let seats = hold
        .seats
        .iter()
        .map(|label| {
            Ok(OrderSeatDoc {
                label: label.clone(),
                kind: seat_kind(&inventory, label)?,
                price: hold.unit_price,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    let order = OrderDoc {
        id: order_id.id,
        schema_version: SCHEMA_VERSION,
        channel: channel.to_owned(),
        status: OrderStatus::Confirmed,
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
        total: seats.iter().map(|seat| seat.price).sum(),
        seats,
        currency: showtime.currency.clone(),
        customer,
        created_at: DateTime::now(),
        cancelled_at: None,
    };
    if store.confirm_hold(showtime_id, &hold, &order).await? {
        return Ok(order);
    }
    // The hold was live a moment ago: either the database's clock says it has expired, or a
    // concurrent release or confirmation took it.
    let still_there = store
        .inventory(showtime_id)
        .await?
        .is_some_and(|inventory| inventory.holds.iter().any(|h| h.id == hold.id));
    Err(if still_there {
        ApiError::HoldExpired(format!("hold {hold_id} has expired"))
    } else {
        missing_hold(hold_id, policy)
    })
}

/// An order of `channel`; another channel's order is NOT_FOUND.
pub async fn order_of(
    store: &Store,
    channel: &str,
    order_id: OrderId,
) -> Result<OrderDoc, ApiError> {
    store
        .orders_by_ids(&[order_id])
        .await?
        .pop()
        .filter(|order| order.channel == channel)
        .ok_or_else(|| ApiError::not_found(format!("no order {order_id} of this channel")))
}

/// Cancels a confirmed order of `channel`: its seats are AVAILABLE again.
#[tracing::instrument(skip(store))]
pub async fn cancel_order(
    store: &Store,
    channel: &str,
    order_id: OrderId,
) -> Result<OrderDoc, ApiError> {
    let order = order_of(store, channel, order_id).await?;
    if order.status == OrderStatus::Cancelled {
        return Err(ApiError::bad_input(format!(
            "order {order_id} is cancelled already"
        )));
    }
    if !store.cancel_order(&order).await? {
        return Err(ApiError::bad_input(format!(
            "order {order_id} is cancelled already"
        )));
    }
    order_of(store, channel, order_id).await
}
