//! The operators' indexes (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, unique, Wanted};
use crate::store::names::{AUDIT_LOG, OPERATORS};
use crate::store::Store;

impl Store {
    /// The indexes of operators and their audit log.
    pub(crate) fn operators_indexes() -> Vec<Wanted> {
        vec![
            unique(OPERATORS, doc! { "apiKeyHash": 1 }, "api_key"),
            // The audit log, newest first, of everyone or of one operator.
            index(AUDIT_LOG, doc! { "at": -1, "_id": -1 }, "at"),
            index(
                AUDIT_LOG,
                doc! { "operator": 1, "at": -1, "_id": -1 },
                "operator_at",
            ),
        ]
    }
}
