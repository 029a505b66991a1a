//! What else a hold carries is not the holds' to settle: features that put something on a hold
//! (a voucher's redemption, products' units, a waiting party's offer) register a handler,
//! told when the hold ends, where the process is assembled (`crate::assembly`). Holds names
//! none of them.
//!
//! A hold ends in one of four ways:
//! - released by its channel, expired, or released by its showtime's cancellation: unsold,
//!   told as an [`Ending`] with the hold (`HoldEnded::ended`), and what it carried goes back;
//! - sold: its seats were sold to an order, told with the order (`HoldEnded::sold`, by every
//!   path that moves an order to CONFIRMED), and what it carried is made final;
//! - fenced: an attempt that took an idempotency key over fences the earlier attempts' hold
//!   ids (`hold::hold_seats`). A fence is set only while none of them is placed, so a fenced
//!   hold never was a hold and carries nothing to tell; what its attempt reserved before
//!   placing it is given back by that attempt (`Carriage::settle`) or, if it died, by the
//!   owners' reconcilers.
//!
//! A handler's failure is logged, never the ending's: the hold has ended whatever the handler
//! does, and the owner's reconciler settles what a failed handler left.

use std::sync::{Arc, OnceLock};

use crate::store::documents::{HoldDoc, OrderDoc};
use crate::store::Store;

/// How a hold ended without being sold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Its channel released it.
    Released,
    /// It lapsed and was expired (by the sweeper, a next hold, the live feeds or a reconciler).
    Expired,
    /// Its showtime was cancelled.
    Cancelled,
}

/// Told when a hold ended.
#[async_trait::async_trait]
pub trait HoldEnded: Send + Sync {
    /// `hold` ended unsold as `ending` says: its seats are no longer its own.
    async fn ended(&self, store: &Store, hold: &HoldDoc, ending: Ending);

    /// The hold `order.hold_id` was sold: its seats are SOLD to `order`, which is (being
    /// moved to) CONFIRMED. Told by every path that confirms an order, so possibly more than
    /// once for one order: what a handler writes must happen once however often it is told.
    /// A handler with nothing to make final keeps this default.
    async fn sold(&self, _store: &Store, _order: &OrderDoc) {}
}

/// The handlers of ended holds a process registered, told in the order they were given.
#[derive(Clone, Default)]
pub struct HoldEndings(Arc<[Arc<dyn HoldEnded>]>);

/// This process's handlers, made once by `crate::assembly` (which names them).
static OF_PROCESS: OnceLock<HoldEndings> = OnceLock::new();

impl HoldEndings {
    pub fn new(handlers: Vec<Arc<dyn HoldEnded>>) -> Self {
        HoldEndings(handlers.into())
    }

    /// This process's handlers: made by `make` the first time (`crate::assembly`, the only
    /// caller, which decides who they are), the same ever after.
    pub fn of_process(make: impl FnOnce() -> Vec<Arc<dyn HoldEnded>>) -> &'static HoldEndings {
        OF_PROCESS.get_or_init(|| HoldEndings::new(make()))
    }

    /// This process's handlers, for the one use case that is handed none: the orders'
    /// reconciler pass (`orders::settle_orders`), whose `(store, grace)` signature tools and
    /// tests call as it always was. Every process makes them as it starts (its HTTP settings
    /// and its background tasks ask `crate::assembly` for them); before that, none are told,
    /// and the owners' reconcilers settle what a sale carried.
    pub fn of_this_process() -> HoldEndings {
        OF_PROCESS.get().cloned().unwrap_or_else(|| {
            tracing::warn!("no handlers of ended holds made yet: a sale is left to reconcilers");
            HoldEndings::default()
        })
    }

    /// Tells every handler that `hold` ended unsold as `ending` says.
    pub async fn ended(&self, store: &Store, hold: &HoldDoc, ending: Ending) {
        for handler in self.0.iter() {
            handler.ended(store, hold, ending).await;
        }
    }

    /// Tells every handler that `order`'s hold was sold to it.
    pub async fn sold(&self, store: &Store, order: &OrderDoc) {
        for handler in self.0.iter() {
            handler.sold(store, order).await;
        }
    }
}

impl std::fmt::Debug for HoldEndings {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "HoldEndings({} handlers)", self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_makes_its_handlers_once_and_the_reconciler_finds_those() {
        let made = HoldEndings::of_process(Vec::new);
        let again = HoldEndings::of_process(|| unreachable!("made once per process"));
        assert!(std::ptr::eq(made, again));
        assert!(Arc::ptr_eq(&HoldEndings::of_this_process().0, &made.0));
    }
}
