//! The gateway records' index (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, Wanted};
use crate::store::names::GATEWAYS;
use crate::store::Store;

impl Store {
    /// The records' expiry.
    pub(crate) fn gateways_indexes() -> Vec<Wanted> {
        vec![
            // Records of gateways that died without deleting theirs.
            Wanted {
                expire_after: Some(crate::gateways::rules::RECORD_TTL),
                ..index(GATEWAYS, doc! { "seenAt": 1 }, "seen_expiry")
            },
        ]
    }
}
