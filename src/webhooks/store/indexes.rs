//! The webhooks' indexes (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, sparse, Wanted};
use crate::store::names::{WEBHOOK_DELIVERIES, WEBHOOK_ENDPOINTS};
use crate::store::Store;

impl Store {
    /// The indexes of endpoints and deliveries.
    pub(crate) fn webhooks_indexes() -> Vec<Wanted> {
        vec![
            // Webhooks: a channel's endpoints, those due (`dueAt` exists only then), and an
            // endpoint's deliveries in the log's order, deleted with their events.
            index(
                WEBHOOK_ENDPOINTS,
                doc! { "channel": 1, "_id": 1 },
                "channel",
            ),
            sparse(WEBHOOK_ENDPOINTS, doc! { "dueAt": 1 }, "due"),
            // The channel's cap: one endpoint per slot (`webhooks::rules::cap_slots`).
            Wanted {
                unique: true,
                ..sparse(WEBHOOK_ENDPOINTS, doc! { "capSlot": 1 }, "cap_slot")
            },
            index(
                WEBHOOK_DELIVERIES,
                doc! { "endpoint": 1, "sequence": -1, "_id": -1 },
                "endpoint_sequence",
            ),
            Wanted {
                expire_after: Some(std::time::Duration::ZERO),
                ..index(WEBHOOK_DELIVERIES, doc! { "expiresAt": 1 }, "expiry")
            },
        ]
    }
}
