//! What else a hold carries is not the holds' to settle: features that put something on a hold
//! (a voucher's redemption, products' units, a waiting party's offer) register a handler,
//! told when the hold ends, where the process is assembled (`crate::assembly`). Holds names
//! none of them.
//!
//! A handler's failure is logged, never the ending's: the hold has ended whatever the handler
//! does, and the owner's reconciler settles what a failed handler left.

use std::sync::Arc;

use crate::store::documents::HoldDoc;
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
    /// `hold` ended as `ending` says: its seats are no longer its own.
    async fn ended(&self, store: &Store, hold: &HoldDoc, ending: Ending);
}

/// The handlers of ended holds a process registered, told in the order they were given.
#[derive(Clone, Default)]
pub struct HoldEndings(Arc<[Arc<dyn HoldEnded>]>);

impl HoldEndings {
    pub fn new(handlers: Vec<Arc<dyn HoldEnded>>) -> Self {
        HoldEndings(handlers.into())
    }

    /// Tells every handler that `hold` ended as `ending` says.
    pub async fn ended(&self, store: &Store, hold: &HoldDoc, ending: Ending) {
        for handler in self.0.iter() {
            handler.ended(store, hold, ending).await;
        }
    }
}

impl std::fmt::Debug for HoldEndings {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "HoldEndings({} handlers)", self.0.len())
    }
}
