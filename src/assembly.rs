//! Where the process is assembled: the handlers features register with each other. A feature
//! that must learn what happened in another registers a handler here, so the feature it hears
//! from never names it (features depend on each other in one direction; see ARCHITECTURE.md).

use std::sync::Arc;

use crate::channel_events::EventRelay;
use crate::holds::HoldEndings;
use crate::store::Store;
use crate::waiting_list::OfferDeclined;
use crate::webhooks::EndpointsDue;

/// The event relay of this process, telling webhooks which channels' logs grew.
pub fn event_relay(store: &Store) -> Arc<EventRelay> {
    EventRelay::new(store.clone(), Arc::new(EndpointsDue::new(store.clone())))
}

/// Who is told when a hold ends: the waiting list (a released offer is declined).
pub fn hold_endings() -> HoldEndings {
    HoldEndings::new(vec![Arc::new(OfferDeclined)])
}
