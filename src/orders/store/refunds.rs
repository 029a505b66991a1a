//! The writes of a cancellation, whole or of some seats: the refund recorded on the order
//! (with the order's state in the filter), the seats given back in one inventory update
//! (`inventory`), the refund marked done. The order's `refunding` says a refund is between its first and last
//! write: whoever finds it finishes it (`orders::settle_order`), and no second refund of the
//! order starts until it is done.

use bson::doc;
use chrono::{DateTime, Utc};

use crate::domain::ids::{OrderId, ResourceId};
use crate::error::ApiError;
use crate::store::codec::{date, ObjectIdExt};
use crate::store::documents::{CancelReason, RefundDoc};
use crate::store::Store;

/// A refund of every seat an order still has: the order is cancelled with it.
#[derive(Debug, Clone, Copy)]
pub struct WholeCancel {
    pub at: DateTime<Utc>,
    pub reason: CancelReason,
    /// The channel's cancellation request (none for a showtime's cancellation).
    pub request: Option<ResourceId>,
}

impl Store {
    /// Records `refund` on order `order` in one update that matches only while the order is
    /// CONFIRMED, has no refund under way, has not recorded this refund, and none of its seats
    /// or product lines was refunded (nor, with product lines, were its products collected): the refund is added, `refunded` and the cancelled seats move, the figures
    /// are marked stale, and the refund is marked under way. With `whole`, the order becomes
    /// CANCELLING in the same update. False when it did not match.
    #[tracing::instrument(skip(self, refund), fields(refund = %refund.id, seats = ?refund.seats))]
    pub(in crate::orders) async fn start_refund(
        &self,
        order: OrderId,
        refund: &RefundDoc,
        whole: Option<WholeCancel>,
    ) -> Result<bool, ApiError> {
        let items: Vec<bson::oid::ObjectId> =
            refund.items.iter().map(|item| item.product.oid()).collect();
        let mut filter = doc! {
            "_id": order.oid(),
            "status": "CONFIRMED",
            "refunding": { "$exists": false },
            "refunds.id": { "$ne": refund.id.oid() },
            "cancelledSeats": { "$nin": &refund.seats },
        };
        if !items.is_empty() {
            // Products collected at the counter are never refunded.
            filter.insert("cancelledItems", doc! { "$nin": &items });
            filter.insert("collected", doc! { "$exists": false });
        }
        let mut set = doc! { "refunding": refund.id.oid(), "salesStale": true };
        if let Some(whole) = whole {
            set.insert("status", "CANCELLING");
            set.insert("cancelledAt", date(whole.at));
            set.insert("cancelReason", bson::to_bson(&whole.reason)?);
            if let Some(request) = whole.request {
                set.insert("cancelRequest", request.oid());
            }
        }
        let update = doc! {
            "$push": {
                "refunds": bson::to_bson(refund)?,
                "cancelledSeats": { "$each": &refund.seats },
                "cancelledItems": { "$each": &items },
            },
            "$inc": { "refunded": refund.amount },
            "$set": set,
        };
        self.update_order(filter, update).await
    }

    /// Ends refund `refund` of order `order` once its seats are back: `refunding` is cleared
    /// (and a CANCELLING order becomes CANCELLED). False when it was ended already.
    #[tracing::instrument(skip(self))]
    pub(in crate::orders) async fn finish_refund(
        &self,
        order: OrderId,
        refund: ResourceId,
        whole: bool,
    ) -> Result<bool, ApiError> {
        let mut filter = doc! { "_id": order.oid(), "refunding": refund.oid() };
        let mut update = doc! { "$unset": { "refunding": "" } };
        if whole {
            filter.insert("status", "CANCELLING");
            update.insert("$set", doc! { "status": "CANCELLED" });
        }
        self.update_order(filter, update).await
    }

    /// Takes back refund `refund` of order `order`, still under way, whose seats could not be
    /// given back because one was admitted at the door meanwhile: the refund is removed,
    /// `refunded` and the cancelled seats move back, the figures are marked stale, and a
    /// whole cancellation's order is CONFIRMED again. False when it did not match.
    #[tracing::instrument(skip(self, refund), fields(refund = %refund.id))]
    pub(in crate::orders) async fn withdraw_refund(
        &self,
        order: OrderId,
        refund: &RefundDoc,
        whole: bool,
    ) -> Result<bool, ApiError> {
        let mut filter = doc! { "_id": order.oid(), "refunding": refund.id.oid() };
        let mut set = doc! { "salesStale": true };
        let mut unset = doc! { "refunding": "" };
        if whole {
            filter.insert("status", "CANCELLING");
            set.insert("status", "CONFIRMED");
            for field in ["cancelledAt", "cancelReason", "cancelRequest"] {
                unset.insert(field, "");
            }
        }
        let items: Vec<bson::oid::ObjectId> =
            refund.items.iter().map(|item| item.product.oid()).collect();
        let update = doc! {
            "$pull": {
                "refunds": { "id": refund.id.oid() },
                "cancelledSeats": { "$in": &refund.seats },
                "cancelledItems": { "$in": &items },
            },
            "$inc": { "refunded": -refund.amount },
            "$set": set,
            "$unset": unset,
        };
        self.update_order(filter, update).await
    }
}
