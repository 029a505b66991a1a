//! Where the process is assembled: the handlers features register with each other, and the
//! indexes of every feature. A feature that must learn what happened in another registers a
//! handler here, so the feature it hears from never names it (features depend on each other in
//! one direction; see ARCHITECTURE.md); the shared store creates the indexes collected here
//! and names no feature.

use std::sync::Arc;

use crate::channel_events::EventRelay;
use crate::concessions::{StockOfEndedHold, StockReconciler};
use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::holds::{HoldEndings, OrdersOfHold};
use crate::live::{ExpireOnTime, Live};
use crate::orders::OrderLookups;
use crate::store::documents::HoldDoc;
use crate::store::indexes::Wanted;
use crate::store::{Readiness, Store};
use crate::telemetry::metrics::Expirer;
use crate::vouchers::RedemptionOfEndedHold;
use crate::waiting_list::OfferDeclined;
use crate::webhooks::EndpointsDue;

/// The event relay of this process, telling webhooks which channels' logs grew.
pub fn event_relay(store: &Store) -> Arc<EventRelay> {
    EventRelay::new(store.clone(), Arc::new(EndpointsDue::new(store.clone())))
}

/// Who is told when a hold ends: vouchers (its redemption given back when unsold, redeemed
/// when sold), concessions (its units given back, or sold), the waiting list (a released
/// offer is declined). In this order: a sale redeems the voucher, then sells the stock.
pub fn hold_endings() -> HoldEndings {
    the_hold_endings().clone()
}

/// The handlers of ended holds, made once per process (they keep nothing of their own); the
/// orders' reconciler pass finds them there (`HoldEndings::of_this_process`).
fn the_hold_endings() -> &'static HoldEndings {
    HoldEndings::of_process(|| {
        vec![
            Arc::new(RedemptionOfEndedHold),
            Arc::new(StockOfEndedHold),
            Arc::new(OfferDeclined),
        ]
    })
}

/// The orders of a hold, for what became of it (`holds::hold_fate`), from the orders feature.
pub fn orders_of_hold() -> &'static dyn OrdersOfHold {
    &OrderLookups
}

/// What the concessions' reconciler asks the orders feature, and who is told of the holds it
/// expires.
pub fn stock_reconciler() -> StockReconciler<'static> {
    StockReconciler {
        of_hold: orders_of_hold(),
        refunds: &OrderLookups,
        endings: the_hold_endings(),
    }
}

/// The live feeds of this process, `buffer` events deep per subscriber: a watched hold is
/// expired on time by the holds' own expiry.
pub fn live(store: &Store, buffer: usize) -> Live {
    Live::new(
        store.clone(),
        buffer,
        Arc::new(HoldsExpireOnTime(hold_endings())),
    )
}

/// The holds' expiry, as the live feeds call it at a watched hold's `expiresAt`.
struct HoldsExpireOnTime(HoldEndings);

#[async_trait::async_trait]
impl ExpireOnTime for HoldsExpireOnTime {
    async fn expire(
        &self,
        store: &Store,
        showtime: ShowtimeId,
        hold: &HoldDoc,
    ) -> Result<bool, ApiError> {
        crate::holds::expire_hold(store, &self.0, showtime, hold, Expirer::OnTime).await
    }
}

/// Every index, each feature's declared in its own `store/indexes.rs` (the inventory's in its
/// `store/mod.rs`), in an order that keeps each collection's indexes in the order they were
/// always created in.
fn indexes() -> Vec<Wanted> {
    [
        Store::inventory_indexes(),
        Store::operators_indexes(),
        Store::catalogue_indexes(),
        Store::orders_indexes(),
        Store::idempotency_indexes(),
        Store::gateways_indexes(),
        Store::channel_events_indexes(),
        Store::webhooks_indexes(),
        Store::want_to_see_indexes(),
        Store::vouchers_indexes(),
        Store::sales_indexes(),
        Store::concessions_indexes(),
        Store::waiting_list_indexes(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

impl Store {
    /// Creates every feature's index that does not exist yet, so this runs at each start
    /// (`store::indexes`).
    #[tracing::instrument(skip(self))]
    pub async fn ensure_indexes(&self) -> Result<(), ApiError> {
        self.create_indexes(indexes()).await
    }

    /// Pings the database and lists the indexes of every indexed collection, concurrently,
    /// within the operation timeout: ready when it answers and every feature's index is there.
    #[tracing::instrument(skip_all)]
    pub async fn readiness(&self) -> Readiness {
        let wanted: Vec<(&'static str, &'static str)> = (indexes().into_iter())
            .map(|w| (w.collection, w.name))
            .collect();
        self.readiness_of(&wanted).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::names;

    #[test]
    fn no_index_is_wanted_twice() {
        let mut seen = std::collections::HashSet::new();
        for Wanted {
            collection, name, ..
        } in indexes()
        {
            assert!(seen.insert((collection, name)), "{collection}.{name} twice");
        }
    }

    #[test]
    fn every_indexed_collection_is_one_of_all_the_collections() {
        for Wanted { collection, .. } in indexes() {
            assert!(names::ALL.contains(&collection), "{collection}");
        }
    }
}
