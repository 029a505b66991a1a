//! `orders`, and the two writes that move seats in and out of them.
//!
//! Invariant 6 (an order and its SOLD seats agree, even if the gateway dies between two writes)
//! is kept with a transaction: the inventory update and the order write commit together or not
//! at all. A gateway that dies between them leaves an open transaction the server aborts, so
//! the hold is still live and can be confirmed again. Production runs on a replica set, and
//! SecantusDB advertises one, so transactions are available everywhere we run.

use std::sync::atomic::{AtomicBool, Ordering};

use bson::{doc, Bson, DateTime, Document};
use mongodb::error::TRANSIENT_TRANSACTION_ERROR;
use mongodb::ClientSession;
use serde::{Deserialize, Serialize};

use super::documents::{HoldDoc, ObjectIdExt, OrderDoc};
use super::holds::{end_hold, hold_expiry, seat_path};
use super::{filters, names, Store};
use crate::domain::ids::{OrderId, ShowtimeId};
use crate::domain::paging::{Page, PageRequest};
use crate::domain::seat::SeatState;
use crate::error::ApiError;

/// A transaction that hits a write conflict is run again, this many times at most.
const TRANSACTION_ATTEMPTS: usize = 5;

/// Test hook: makes the next confirmation fail between its two writes, as a crash would.
#[derive(Debug, Default)]
pub struct Faults {
    fail_between_confirm_writes: AtomicBool,
}

impl Faults {
    /// The next `confirm_hold` stops after updating the seats, before writing the order.
    pub fn fail_next_confirm_between_writes(&self) {
        self.fail_between_confirm_writes
            .store(true, Ordering::SeqCst);
    }

    fn take_confirm_fault(&self) -> bool {
        self.fail_between_confirm_writes
            .swap(false, Ordering::SeqCst)
    }
}

#[derive(Serialize, Deserialize)]
struct NewestKey(i64, OrderId);

/// Why a transaction body stopped: a driver error (perhaps transient, then retried) or ours.
enum Abort {
    Driver(mongodb::error::Error),
    Api(ApiError),
}

impl From<mongodb::error::Error> for Abort {
    fn from(error: mongodb::error::Error) -> Self {
        Abort::Driver(error)
    }
}

impl From<Abort> for ApiError {
    fn from(abort: Abort) -> Self {
        match abort {
            Abort::Driver(error) => error.into(),
            Abort::Api(error) => error,
        }
    }
}

/// Moves the movie's sales and the cinema's bucket of the order's hour of sale by `sign` × the
/// order (computed and bucket patterns), inside the order's transaction.
async fn move_sales(
    store: &Store,
    session: &mut ClientSession,
    order: &OrderDoc,
    sign: i64,
) -> Result<(), Abort> {
    let tickets = sign * order.seats.len() as i64;
    let revenue = sign * order.total;
    let orders = sign;
    store
        .collection::<Document>(names::MOVIES)
        .update_one(
            doc! { "_id": order.showtime.movie_id },
            doc! { "$inc": { "sales.tickets": tickets, "sales.revenue": revenue, "sales.orders": orders } },
        )
        .session(&mut *session)
        .await?;
    let millis = order.created_at.timestamp_millis();
    let hour = millis - millis.rem_euclid(3_600_000);
    store
        .collection::<Document>(names::CINEMA_SALES_HOURLY)
        .update_one(
            doc! { "_id": format!("{}:{hour}", order.showtime.cinema_id) },
            doc! {
                "$inc": { "tickets": tickets, "revenue": revenue, "orders": orders },
                "$setOnInsert": { "cinemaId": order.showtime.cinema_id, "hour": DateTime::from_millis(hour) },
            },
        )
        .upsert(true)
        .session(&mut *session)
        .await?;
    Ok(())
}

impl Store {
    /// Sells the seats of a live, unexpired hold of the order's channel and writes the order,
    /// in one transaction. False when the hold is not live (gone, expired by the database's
    /// clock, or not that channel's).
    #[tracing::instrument(skip(self, hold, order), fields(hold = %hold.id, order = %order.id))]
    pub async fn confirm_hold(
        &self,
        showtime: ShowtimeId,
        hold: &HoldDoc,
        order: &OrderDoc,
    ) -> Result<bool, ApiError> {
        let (seats, update) = end_hold(hold, SeatState::Sold, Some(order.id))?;
        let mut filter = doc! {
            "_id": showtime.oid(),
            "holds": { "$elemMatch": { "id": hold.id, "channel": &order.channel } },
        };
        filter.extend(hold_expiry(hold.id, "$gt"));
        filter.extend(seats);
        self.in_transaction(|store, session| {
            let (filter, update, order) = (filter.clone(), update.clone(), order.clone());
            Box::pin(async move {
                let sold = store
                    .collection::<Document>(names::SEAT_INVENTORY)
                    .update_one(filter, update)
                    .session(&mut *session)
                    .await?;
                if sold.modified_count == 0 {
                    return Ok(false);
                }
                if store.faults.take_confirm_fault() {
                    let fault = ApiError::internal("injected fault between the confirm writes");
                    return Err(Abort::Api(fault));
                }
                store
                    .collection::<OrderDoc>(names::ORDERS)
                    .insert_one(&order)
                    .session(&mut *session)
                    .await?;
                move_sales(store, session, &order, 1).await?;
                Ok(true)
            })
        })
        .await
    }

    /// Cancels a CONFIRMED order of `channel` and gives its seats back, in one transaction.
    /// False when there is no such order (or it is cancelled already).
    #[tracing::instrument(skip(self, order), fields(order = %order.id))]
    pub async fn cancel_order(&self, order: &OrderDoc) -> Result<bool, ApiError> {
        let mut seats_filter = doc! { "_id": order.showtime.id };
        let mut set = Document::new();
        let mut unset = Document::new();
        for seat in &order.seats {
            seats_filter.insert(seat_path(&seat.label, "state")?, "SOLD");
            seats_filter.insert(seat_path(&seat.label, "order")?, order.id);
            set.insert(seat_path(&seat.label, "state")?, "AVAILABLE");
            unset.insert(
                seat_path(&seat.label, "order")?,
                Bson::String(String::new()),
            );
        }
        let count = order.seats.len() as i64;
        let seats_update = doc! {
            "$set": set,
            "$unset": unset,
            "$inc": { "counts.sold": -count, "counts.available": count },
        };
        let order_filter =
            doc! { "_id": order.id, "channel": &order.channel, "status": "CONFIRMED" };
        let order_update =
            doc! { "$set": { "status": "CANCELLED" }, "$currentDate": { "cancelledAt": true } };
        let order_id = order.id;
        self.in_transaction(|store, session| {
            let (seats_filter, seats_update) = (seats_filter.clone(), seats_update.clone());
            let order = order.clone();
            let (order_filter, order_update) = (order_filter.clone(), order_update.clone());
            Box::pin(async move {
                let cancelled = store
                    .collection::<OrderDoc>(names::ORDERS)
                    .update_one(order_filter, order_update)
                    .session(&mut *session)
                    .await?;
                if cancelled.modified_count == 0 {
                    return Ok(false);
                }
                let freed = store
                    .collection::<Document>(names::SEAT_INVENTORY)
                    .update_one(seats_filter, seats_update)
                    .session(&mut *session)
                    .await?;
                if freed.modified_count == 0 {
                    // The order said CONFIRMED but its seats are not SOLD under it: refuse to
                    // make it worse; the transaction is aborted.
                    let detail = format!("order {order_id} and its seats disagree");
                    return Err(Abort::Api(ApiError::internal(detail)));
                }
                move_sales(store, session, &order, -1).await?;
                Ok(true)
            })
        })
        .await
    }

    /// Orders by id.
    #[tracing::instrument(skip(self))]
    pub async fn orders_by_ids(&self, ids: &[OrderId]) -> Result<Vec<OrderDoc>, ApiError> {
        let ids = ids.iter().map(|id| id.oid()).collect();
        self.find_by_ids(names::ORDERS, ids).await
    }

    /// A channel's orders, newest first (index `channel_newest`).
    #[tracing::instrument(skip(self))]
    pub async fn list_orders(
        &self,
        channel: &str,
        page: &PageRequest,
    ) -> Result<Page<OrderDoc>, ApiError> {
        self.find_page(
            names::ORDERS,
            "orders",
            doc! { "channel": channel },
            doc! { "channel": 1, "createdAt": -1, "_id": -1 },
            page,
            |NewestKey(millis, id)| {
                filters::after_descending(
                    &["createdAt", "_id"],
                    &[DateTime::from_millis(millis).into(), id.oid().into()],
                )
            },
            |order: &OrderDoc| NewestKey(order.created_at.timestamp_millis(), order.id.into()),
        )
        .await
    }

    /// Runs `body` in a transaction, again from the start on a transient error (a write
    /// conflict with a concurrent update of the same inventory). `body` returning `Ok(false)`
    /// or an error aborts.
    async fn in_transaction<F>(&self, body: F) -> Result<bool, ApiError>
    where
        F: for<'a> Fn(
            &'a Store,
            &'a mut ClientSession,
        ) -> futures::future::BoxFuture<'a, Result<bool, Abort>>,
    {
        let mut session = self.db.client().start_session().await?;
        let mut last_error = None;
        for _ in 0..TRANSACTION_ATTEMPTS {
            session.start_transaction().await?;
            let outcome = match body(self, &mut session).await {
                Ok(true) => session
                    .commit_transaction()
                    .await
                    .map(|()| true)
                    .map_err(Abort::from),
                Ok(false) => {
                    session.abort_transaction().await?;
                    return Ok(false);
                }
                Err(abort) => {
                    // Best effort: the server also aborts a transaction its session abandons.
                    let _ = session.abort_transaction().await;
                    Err(abort)
                }
            };
            match outcome {
                Ok(done) => return Ok(done),
                Err(Abort::Driver(error)) if error.contains_label(TRANSIENT_TRANSACTION_ERROR) => {
                    last_error = Some(error);
                }
                Err(abort) => return Err(abort.into()),
            }
        }
        Err(last_error.map_or_else(|| ApiError::internal("transaction failed"), ApiError::from))
    }
}
