//! `orders`, and the writes that move an order through its life.
//!
//! Invariant 6 (an order and its SOLD seats agree, even if the gateway dies between two writes)
//! is kept with ONE authoritative document plus a reconciler, not a transaction: the seats'
//! inventory document decides. A confirmation first writes the order as PENDING, then sells
//! the seats to it in one atomic inventory update (the moment the order takes effect), then
//! marks it CONFIRMED. A cancellation marks the order CANCELLING, gives the seats back in one
//! atomic update, then marks it CANCELLED. Whoever finds an order PENDING or CANCELLING (a
//! gateway died in between) settles it from the inventory: `orders::settle_order`.
//!
//! Why not a transaction: every confirmation writes its showtime's inventory document, and on
//! a hot showtime concurrent transactions on that one document abort each other (write
//! conflicts). Measured on SecantusDB with hand-written driver calls, 64 clients each holding a
//! pair of seats of one showtime and confirming it: 4 pairs/s with the confirmation in a
//! transaction (18,568 aborted transactions for 384 orders), 306 pairs/s with this design.

use bson::{doc, Document};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::ids::{CinemaId, HoldId, OrderId, ShowtimeId};
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::store::codec::{date, ids_made_by, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::documents::{CancelReason, CollectionDoc, OrderDoc, OrderStatus};
use crate::store::is_duplicate_key;
use crate::store::{filters, names, Store};

#[derive(Serialize, Deserialize)]
struct NewestKey(i64, OrderId);

impl Store {
    /// Writes `order` (PENDING) and returns it. When an order with its id exists already
    /// (another attempt of the same idempotency key wrote it), that one is kept and returned
    /// instead. `may_exist` says to expect that: the write is then an upsert, not an insert.
    #[tracing::instrument(skip(self, order), fields(order = %order.id))]
    pub(in crate::orders) async fn insert_pending_order(
        &self,
        order: &OrderDoc,
        may_exist: bool,
    ) -> Result<OrderDoc, ApiError> {
        debug_assert_eq!(order.status, OrderStatus::Pending);
        let orders = self.collection::<OrderDoc>(names::ORDERS);
        if !may_exist {
            match self
                .bounded_raw(Call::new(names::ORDERS, "insert"), orders.insert_one(order))
                .await?
            {
                Ok(_) => return Ok(order.clone()),
                Err(error) if is_duplicate_key(&error) => {}
                Err(error) => return Err(error.into()),
            }
        }
        self.bounded(
            Call::new(names::ORDERS, "findAndModify"),
            orders
                .find_one_and_update(
                    doc! { "_id": order.id.oid() },
                    doc! { "$setOnInsert": bson::to_document(order)? },
                )
                .upsert(true)
                .return_document(mongodb::options::ReturnDocument::After),
        )
        .await?
        .ok_or_else(|| ApiError::internal(format!("order {} vanished on upsert", order.id)))
    }

    /// Writes `orders` (PENDING, all new: none is a take-over of an idempotency key) in one
    /// command; returns the positions of those whose id existed already (another attempt of
    /// the same key wrote it first), which were not written.
    #[tracing::instrument(skip_all, fields(orders = orders.len()))]
    pub(in crate::orders) async fn insert_pending_orders(
        &self,
        orders: &[OrderDoc],
    ) -> Result<Vec<usize>, ApiError> {
        debug_assert!(orders.iter().all(|o| o.status == OrderStatus::Pending));
        self.insert_new_bounded(names::ORDERS, orders).await
    }

    /// Moves the orders `ids` that are PENDING to CONFIRMED in one command; how many it moved.
    /// (`_id: {$in}` on a sharded `orders` is sent to the shards owning them.)
    #[tracing::instrument(skip_all, fields(orders = ids.len()))]
    pub(in crate::orders) async fn confirm_pending_orders(
        &self,
        ids: &[OrderId],
    ) -> Result<u64, ApiError> {
        let ids: Vec<_> = ids.iter().map(|id| id.oid()).collect();
        let result = self
            .bounded(
                Call::new(names::ORDERS, "update"),
                self.collection::<Document>(names::ORDERS).update_many(
                    doc! { "_id": { "$in": ids }, "status": "PENDING" },
                    doc! { "$set": { "status": "CONFIRMED" } },
                ),
            )
            .await?;
        Ok(result.modified_count)
    }

    /// The orders of showtime `showtime` that are not CANCELLED yet (PENDING, CONFIRMED or
    /// CANCELLING), at most `limit` (index `showtime_status`).
    #[tracing::instrument(skip(self))]
    pub(in crate::orders) async fn live_orders_of_showtime(
        &self,
        showtime: ShowtimeId,
        limit: usize,
    ) -> Result<Vec<OrderDoc>, ApiError> {
        let filter = doc! {
            "showtime.id": showtime.oid(),
            "status": { "$in": ["PENDING", "CONFIRMED", "CANCELLING"] },
        };
        self.find_limited(names::ORDERS, filter, None, None, limit)
            .await
    }

    /// How many orders of showtime `showtime` are CANCELLED for `reason` (index
    /// `showtime_status`).
    #[tracing::instrument(skip(self))]
    pub(in crate::orders) async fn count_cancelled_orders(
        &self,
        showtime: ShowtimeId,
        reason: CancelReason,
    ) -> Result<u64, ApiError> {
        let filter = doc! {
            "showtime.id": showtime.oid(),
            "status": "CANCELLED",
            "cancelReason": bson::to_bson(&reason)?,
        };
        self.bounded(
            Call::new(names::ORDERS, "count"),
            self.collection::<Document>(names::ORDERS)
                .count_documents(filter),
        )
        .await
    }

    /// Moves order `id` from status `from` to `to`. False when it was not in `from`.
    #[tracing::instrument(skip(self))]
    pub(in crate::orders) async fn set_order_status(
        &self,
        id: OrderId,
        from: OrderStatus,
        to: OrderStatus,
    ) -> Result<bool, ApiError> {
        self.update_order(
            doc! { "_id": id.oid(), "status": bson::to_bson(&from)? },
            doc! { "$set": { "status": bson::to_bson(&to)? } },
        )
        .await
    }

    /// Runs one conditional update of an order; true when it matched and changed it.
    pub(super) async fn update_order(
        &self,
        filter: Document,
        update: Document,
    ) -> Result<bool, ApiError> {
        let result = self
            .bounded(
                Call::new(names::ORDERS, "update"),
                self.collection::<Document>(names::ORDERS)
                    .update_one(filter, update),
            )
            .await?;
        Ok(result.modified_count == 1)
    }

    /// Deletes order `id` if it is still PENDING: its seats were never sold to it.
    #[tracing::instrument(skip(self))]
    pub(in crate::orders) async fn discard_pending_order(
        &self,
        id: OrderId,
    ) -> Result<bool, ApiError> {
        let result = self
            .bounded(
                Call::new(names::ORDERS, "delete"),
                self.collection::<Document>(names::ORDERS)
                    .delete_one(doc! { "_id": id.oid(), "status": "PENDING" }),
            )
            .await?;
        Ok(result.deleted_count == 1)
    }

    /// Orders a gateway left between two writes: PENDING since before `before`, CANCELLING,
    /// or with a refund under way that was recorded by `before` (to the second: a younger one
    /// belongs to a request still finishing it). At most `limit` (indexes `status_sales` and
    /// `refunding`).
    #[tracing::instrument(skip(self))]
    pub async fn unsettled_orders(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<OrderDoc>, ApiError> {
        let filter = doc! { "$or": [
            { "status": "PENDING", "createdAt": { "$lt": date(before) } },
            { "status": "CANCELLING" },
            // Only orders with a refund under way have the field, and a refund's id is made
            // when it is recorded.
            { "refunding": { "$lt": ids_made_by(before) } },
        ] };
        self.find_limited(names::ORDERS, filter, None, None, limit)
            .await
    }

    /// The orders (any state) that confirm hold `hold` of `showtime`: on index
    /// `showtime_status`, so a showtime's orders are examined (a rare path: the vouchers'
    /// reconciler).
    #[tracing::instrument(skip(self))]
    pub(in crate::orders) async fn orders_of_hold(
        &self,
        showtime: ShowtimeId,
        hold: HoldId,
        limit: usize,
    ) -> Result<Vec<OrderDoc>, ApiError> {
        let filter = doc! { "showtime.id": showtime.oid(), "holdId": hold.oid() };
        self.find_limited(names::ORDERS, filter, None, None, limit)
            .await
    }

    /// The order with products whose pickup code's keyed hash is `key`, sold at `cinema`
    /// (index `pickup_key`; two orders alike in 50 bits at one cinema are not told apart).
    #[tracing::instrument(skip_all)]
    pub(in crate::orders) async fn order_by_pickup_key(
        &self,
        key: &str,
        cinema: CinemaId,
    ) -> Result<Option<OrderDoc>, ApiError> {
        let filter = doc! { "pickupKey": key, "showtime.cinemaId": cinema.oid() };
        Ok(self
            .find_limited(names::ORDERS, filter, None, None, 1)
            .await?
            .pop())
    }

    /// Records `collection` on order `id`, matching only while it is CONFIRMED, nothing of
    /// it was collected, no refund is under way and it has exactly `refunds` refunds (so its
    /// refunded lines are those the collection was made from). False when it did not match.
    #[tracing::instrument(skip(self, collection))]
    pub(in crate::orders) async fn collect_order_items(
        &self,
        id: OrderId,
        refunds: usize,
        collection: &CollectionDoc,
    ) -> Result<bool, ApiError> {
        let mut filter = doc! {
            "_id": id.oid(),
            "status": "CONFIRMED",
            "collected": { "$exists": false },
            "refunding": { "$exists": false },
            format!("refunds.{refunds}"): { "$exists": false },
        };
        if let Some(last) = refunds.checked_sub(1) {
            filter.insert(format!("refunds.{last}"), doc! { "$exists": true });
        }
        self.update_order(
            filter,
            doc! { "$set": { "collected": bson::to_bson(collection)? } },
        )
        .await
    }

    /// Orders by id.
    #[tracing::instrument(skip(self))]
    pub async fn orders_by_ids(&self, ids: &[OrderId]) -> Result<Vec<OrderDoc>, ApiError> {
        self.find_by_ids(names::ORDERS, ids).await
    }

    /// A channel's orders, newest first (index `channel_newest`); PENDING ones are not orders
    /// yet and are left out.
    #[tracing::instrument(skip(self))]
    pub(in crate::orders) async fn list_orders(
        &self,
        channel: &str,
        page: &PageRequest,
    ) -> Result<Page<OrderDoc>, ApiError> {
        self.find_page(
            names::ORDERS,
            "orders",
            doc! { "channel": channel, "status": { "$ne": "PENDING" } },
            doc! { "channel": 1, "createdAt": -1, "_id": -1 },
            None,
            page,
            |NewestKey(millis, id)| {
                filters::after_descending(
                    &["createdAt", "_id"],
                    &[bson::DateTime::from_millis(millis).into(), id.oid().into()],
                )
            },
            |order: &OrderDoc| NewestKey(order.created_at.timestamp_millis(), order.id),
        )
        .await
    }
}
