//! `products`' stock: a hold's reservation, its give-back or sale, a refund's return, and
//! the entries the reconciler is due to settle. Every write names its entry (the hold's or
//! the refund's id) and the state it assumes, so each happens once whoever repeats it.

use bson::doc;
use chrono::{DateTime, Utc};

use super::documents::{ProductDoc, StockEntryDoc, StockEntryKind};
use crate::domain::ids::{OrderId, ProductId, ResourceId, ShowtimeId};
use crate::error::ApiError;
use crate::store::codec::{date, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::{names, Store};

/// The most stock entries one product keeps at once (holds with units reserved and refunds
/// not yet settled): a bound on its document. A hold beyond it is refused for a moment
/// (UNAVAILABLE), never oversold.
pub const MAX_PENDING: usize = 1_000;

impl Store {
    async fn update_product(
        &self,
        filter: bson::Document,
        update: bson::Document,
    ) -> Result<bool, ApiError> {
        let result = self
            .bounded(
                Call::new(names::PRODUCTS, "update"),
                self.collection::<bson::Document>(names::PRODUCTS)
                    .update_one(filter, update),
            )
            .await?;
        Ok(result.modified_count == 1)
    }

    /// Takes `entry.quantity` units of `product` for the hold `entry` names, when that many
    /// are left, it has none reserved yet, and the product has room for one more entry.
    #[tracing::instrument(skip(self, entry), fields(hold = %entry.id))]
    pub(in crate::concessions) async fn reserve_stock(
        &self,
        product: ProductId,
        entry: &StockEntryDoc,
    ) -> Result<bool, ApiError> {
        debug_assert_eq!(entry.kind, StockEntryKind::Hold);
        self.update_product(
            doc! {
                "_id": product.oid(),
                "stock": { "$gte": entry.quantity },
                "pending.id": { "$ne": entry.id },
                format!("pending.{}", MAX_PENDING - 1): { "$exists": false },
            },
            doc! {
                "$inc": { "stock": -entry.quantity },
                "$push": { "pending": bson::to_bson(entry)? },
            },
        )
        .await
    }

    /// Gives back the units hold `hold` reserved of `product`: true when this call did.
    #[tracing::instrument(skip(self))]
    pub(in crate::concessions) async fn give_back_stock(
        &self,
        product: ProductId,
        hold: bson::oid::ObjectId,
        quantity: i64,
    ) -> Result<bool, ApiError> {
        self.end_reservation(product, hold, quantity, "stock").await
    }

    /// Makes the units hold `hold` reserved of `product` sold: true when this call did.
    #[tracing::instrument(skip(self))]
    pub(in crate::concessions) async fn sell_stock(
        &self,
        product: ProductId,
        hold: bson::oid::ObjectId,
        quantity: i64,
    ) -> Result<bool, ApiError> {
        self.end_reservation(product, hold, quantity, "sold").await
    }

    /// Drops hold `hold`'s reservation of `quantity` units of `product` and adds them to
    /// `to` (back in `stock`, or `sold`), in one update that matches only while it is there.
    async fn end_reservation(
        &self,
        product: ProductId,
        hold: bson::oid::ObjectId,
        quantity: i64,
        to: &str,
    ) -> Result<bool, ApiError> {
        self.update_product(
            doc! {
                "_id": product.oid(),
                "pending": { "$elemMatch": { "id": hold, "kind": "HOLD", "quantity": quantity } },
            },
            doc! { "$inc": { to: quantity }, "$pull": { "pending": { "id": hold } } },
        )
        .await
    }

    /// Puts back the units refund `refund` gave back of `product` (once: the entry it leaves
    /// stays until the refund is settled). False when it did so already.
    #[tracing::instrument(skip(self))]
    pub(in crate::concessions) async fn return_stock(
        &self,
        product: ProductId,
        refund: ResourceId,
        order: OrderId,
        showtime: ShowtimeId,
        quantity: i64,
        check_at: DateTime<Utc>,
    ) -> Result<bool, ApiError> {
        let entry = StockEntryDoc {
            id: refund.oid(),
            kind: StockEntryKind::Return,
            quantity,
            showtime,
            order: Some(order.oid()),
            check_at,
        };
        self.update_product(
            doc! { "_id": product.oid(), "pending.id": { "$ne": refund.oid() } },
            doc! {
                "$inc": { "stock": quantity, "sold": -quantity },
                "$push": { "pending": bson::to_bson(&entry)? },
            },
        )
        .await
    }

    /// Drops entry `id` of `product` (a settled refund's return).
    #[tracing::instrument(skip(self))]
    pub(in crate::concessions) async fn drop_stock_entry(
        &self,
        product: ProductId,
        id: bson::oid::ObjectId,
        kind: StockEntryKind,
    ) -> Result<bool, ApiError> {
        self.update_product(
            doc! {
                "_id": product.oid(),
                "pending": { "$elemMatch": { "id": id, "kind": bson::to_bson(&kind)? } },
            },
            doc! { "$pull": { "pending": { "id": id } } },
        )
        .await
    }

    /// Moves the check of entry `id` of `product` to `at`.
    #[tracing::instrument(skip(self))]
    pub(in crate::concessions) async fn postpone_stock_check(
        &self,
        product: ProductId,
        id: bson::oid::ObjectId,
        at: DateTime<Utc>,
    ) -> Result<bool, ApiError> {
        self.update_product(
            doc! { "_id": product.oid(), "pending.id": id },
            doc! { "$set": { "pending.$.checkAt": date(at) } },
        )
        .await
    }

    /// Products with a stock entry due by `due_by`, at most `limit` (index
    /// `pending_check_at`).
    #[tracing::instrument(skip(self))]
    pub(in crate::concessions) async fn products_with_entries_due(
        &self,
        due_by: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<ProductDoc>, ApiError> {
        self.find_limited(
            names::PRODUCTS,
            doc! { "pending.checkAt": { "$lt": date(due_by) } },
            None,
            None,
            limit,
        )
        .await
    }
}
