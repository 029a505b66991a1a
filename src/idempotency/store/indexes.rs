//! The idempotency keys' index (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, Wanted};
use crate::store::names::IDEMPOTENCY_KEYS;
use crate::store::Store;

impl Store {
    /// The keys' expiry.
    pub(crate) fn idempotency_indexes() -> Vec<Wanted> {
        vec![Wanted {
            expire_after: Some(std::time::Duration::from_secs(
                crate::idempotency::rules::KEEP_SECONDS,
            )),
            ..index(IDEMPOTENCY_KEYS, doc! { "createdAt": 1 }, "expiry")
        }]
    }
}
