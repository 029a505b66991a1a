//! The handler the waiting list registers with holds (`holds::HoldEnded`): an offer's hold
//! released by its channel is the party declining it.

use super::join::declined;
use crate::holds::{Ending, HoldEnded};
use crate::store::documents::HoldDoc;
use crate::store::Store;

/// Marks a released offer's entry DECLINED.
pub struct OfferDeclined;

#[async_trait::async_trait]
impl HoldEnded for OfferDeclined {
    async fn ended(&self, store: &Store, hold: &HoldDoc, ending: Ending) {
        if ending != Ending::Released {
            // An offer that lapsed or whose showtime was cancelled: the offers' pass settles it
            // (as it marks a sold one ACCEPTED: this handler keeps `sold`'s default).
            return;
        }
        let Some(offer) = &hold.offer else {
            return;
        };
        if let Err(error) = declined(store, offer.entry, hold.id).await {
            // The offers' pass settles the entry from the hold (gone: LAPSED).
            tracing::warn!(%error, "an offer was released; its entry says so later");
        }
    }
}
