//! Collecting an order's products at the counter with its pickup code (`collectItems`):
//! once per order, as a ticket is admitted once.
//!
//! The code is turned into its keyed hash (`ticket_codes::pickup_key`) before anything is
//! read: the counter finds the order by it, on index `pickup_key`. The collection is one
//! conditional update of the order that assumes what was read (CONFIRMED, nothing collected,
//! no refund under way, as many refunds as read), so a refund and a collection never both
//! take a product line, and two counters never both hand one over.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::admissions::{door_keys, AdmissionWindow, DoorAt};
use crate::domain::ids::{OrderId, ProductId, ShowtimeId};
use crate::domain::ticket_codes::{pickup_key, TicketSecret};
use crate::error::ApiError;
use crate::idempotency::{once, Attempt, KeyPolicy};
use crate::store::documents::{CollectionDoc, OrderDoc, OrderStatus, ProductLineDoc};
use crate::store::{self, Store};

/// A collection's answer races at most this many refunds of the order before it gives up
/// (each lost race is a refund recorded or finished: an order has at most 10 product lines).
const MAX_ATTEMPTS: usize = 12;

/// Products handed over: which order, which lines, when, where.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Collected {
    pub order: OrderId,
    /// The order's showtime, which its id names (None in answers stored before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub showtime: Option<ShowtimeId>,
    pub items: Vec<CollectedItem>,
    pub at: DateTime<Utc>,
    pub door: String,
}

/// One product line handed over.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectedItem {
    pub product: ProductId,
    pub name: String,
    pub quantity: i64,
}

/// Hands over the products of the order whose pickup code is `code`, at `counter`: once per
/// order (and once per idempotency key). BAD_USER_INPUT for a malformed code (before
/// anything is read); NOT_FOUND for a code of no order with products at this cinema;
/// ALREADY_COLLECTED (when, where); TICKET_CANCELLED for an order cancelled or whose
/// products were all refunded; ADMISSION_CLOSED outside its showtime's admission window.
#[tracing::instrument(skip(store, keys, secret, code), fields(counter = counter.name))]
pub async fn collect_items(
    store: &Store,
    keys: &KeyPolicy,
    secret: &TicketSecret,
    window: AdmissionWindow,
    counter: DoorAt<'_>,
    code: &str,
    key: Option<&str>,
) -> Result<Collected, ApiError> {
    let lookup = pickup_key(secret, code)?;
    let space = door_keys(counter.key);
    // The key's record holds the code's keyed hash, never the code.
    once(
        store,
        keys,
        &space,
        key,
        "collectItems",
        &lookup,
        |attempt| collect_once(store, window, counter, &lookup, attempt),
    )
    .await
}

async fn collect_once(
    store: &Store,
    window: AdmissionWindow,
    counter: DoorAt<'_>,
    lookup: &str,
    attempt: Attempt,
) -> Result<Collected, ApiError> {
    let request = attempt.resource_id();
    for _ in 0..MAX_ATTEMPTS {
        let order = store
            .order_by_pickup_key(lookup, counter.cinema)
            .await?
            .ok_or_else(|| {
                ApiError::not_found("no order with products at this cinema has this pickup code")
            })?;
        if let Some(collected) = &order.collected {
            if collected.request == request {
                return Ok(answer(&order, collected));
            }
            return Err(ApiError::AlreadyCollected {
                message: format!(
                    "the products of this order were collected at {} ({})",
                    collected.door, collected.at
                ),
                at: collected.at,
                door: collected.door.clone(),
            });
        }
        if order.refunding.is_some() || order.status == OrderStatus::Cancelling {
            // A refund under way decides first which lines are left: finish it.
            super::refund_finish::finish_refund(store, order).await?;
            continue;
        }
        if order.status != OrderStatus::Confirmed {
            return Err(ApiError::TicketCancelled(
                "this order was cancelled: its products were refunded".into(),
            ));
        }
        let products: Vec<ProductId> = (order.products())
            .filter(|line| !order.item_refunded(line.product))
            .map(|line| line.product)
            .collect();
        if products.is_empty() {
            return Err(ApiError::TicketCancelled(
                "every product of this order was refunded: nothing to collect".into(),
            ));
        }
        // The showtime's start as it is now (the order's copy is as it was when sold).
        let showtime = store.showtimes_by_ids(&[order.showtime.id]).await?.pop();
        let starts_at = showtime.map_or(order.showtime.starts_at, |s| s.starts_at);
        let now = store::now();
        if let Some(closed) = window.refusal_at(starts_at, now) {
            return Err(closed);
        }
        let collection = CollectionDoc {
            at: now,
            door: counter.name.to_owned(),
            request,
            products,
        };
        if store
            .collect_order_items(order.id, order.refunds.len(), &collection)
            .await?
        {
            crate::telemetry::metrics::items_collected();
            return Ok(answer(&order, &collection));
        }
        // A refund or another counter came first: read it again.
    }
    Err(ApiError::unavailable(
        "the order kept changing while its products were being collected: retry",
    ))
}

fn answer(order: &OrderDoc, collected: &CollectionDoc) -> Collected {
    let line = |product: &ProductId| order.products().find(|line| line.product == *product);
    Collected {
        order: order.id,
        showtime: Some(order.showtime.id),
        items: (collected.products.iter())
            .filter_map(line)
            .map(|line: &ProductLineDoc| CollectedItem {
                product: line.product,
                name: line.name.clone(),
                quantity: line.quantity,
            })
            .collect(),
        at: collected.at,
        door: collected.door.clone(),
    }
}
