//! The handler the waiting list registers with holds (`holds::HoldEnded`): an offer's hold
//! released by its channel is the party declining it.

use super::join::declined;
use crate::holds::HoldEnded;
use crate::store::documents::HoldDoc;
use crate::store::Store;

/// Marks a released offer's entry DECLINED.
pub struct OfferDeclined;

#[async_trait::async_trait]
impl HoldEnded for OfferDeclined {
    async fn released(&self, store: &Store, hold: &HoldDoc) {
        let Some(offer) = &hold.offer else {
            return;
        };
        if let Err(error) = declined(store, offer.entry, hold.id).await {
            // The offers' pass settles the entry from the hold (gone: LAPSED).
            tracing::warn!(%error, "an offer was released; its entry says so later");
        }
    }
}
