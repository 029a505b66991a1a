//! The orders' indexes (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, sparse, Wanted};
use crate::store::names::ORDERS;
use crate::store::Store;

impl Store {
    /// The indexes of orders.
    pub(crate) fn orders_indexes() -> Vec<Wanted> {
        vec![
            index(
                ORDERS,
                doc! { "channel": 1, "createdAt": -1, "_id": -1 },
                "channel_newest",
            ),
            // A showtime's cancellation: its orders still to cancel, and those it cancelled.
            index(
                ORDERS,
                doc! { "showtime.id": 1, "status": 1 },
                "showtime_status",
            ),
            // The reconciler's and the sales projection's searches for orders to settle or count.
            index(
                ORDERS,
                doc! { "status": 1, "salesCounted": 1 },
                "status_sales",
            ),
            // Orders with a refund under way (`refunding` exists only then) or whose refunds the
            // sales figures may not reflect yet (`salesStale` exists only then).
            sparse(ORDERS, doc! { "refunding": 1 }, "refunding"),
            sparse(ORDERS, doc! { "salesStale": 1 }, "sales_stale"),
            // An order found by its pickup code's keyed hash (collectItems).
            sparse(ORDERS, doc! { "pickupKey": 1 }, "pickup_key"),
        ]
    }
}
