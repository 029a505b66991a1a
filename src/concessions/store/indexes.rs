//! The concessions' indexes (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, sparse, Wanted};
use crate::store::names::PRODUCTS;
use crate::store::Store;

impl Store {
    /// The indexes of products.
    pub(crate) fn concessions_indexes() -> Vec<Wanted> {
        vec![
            // Concessions: a cinema's products in the order they were made; the stock entries
            // the reconciler is due to look at.
            index(PRODUCTS, doc! { "cinemaId": 1, "_id": 1 }, "cinema"),
            sparse(PRODUCTS, doc! { "pending.checkAt": 1 }, "pending_check_at"),
        ]
    }
}
