//! What else a hold carries is not the holds' to settle: features that put something on a hold
//! (a waiting party's offer) register a handler, told when the hold ends, where the process is
//! assembled (`crate::assembly`). Holds names none of them.
//!
//! A handler's failure is logged, never the ending's: the hold has ended whatever the handler
//! does, and the owner's reconciler settles what a failed handler left.

use std::sync::Arc;

use crate::store::documents::HoldDoc;
use crate::store::Store;

/// Told when a hold ended.
#[async_trait::async_trait]
pub trait HoldEnded: Send + Sync {
    /// `hold` was released by its channel: its seats are for sale again.
    async fn released(&self, store: &Store, hold: &HoldDoc);
}

/// The handlers of ended holds a process registered.
#[derive(Clone, Default)]
pub struct HoldEndings(Arc<[Arc<dyn HoldEnded>]>);

impl HoldEndings {
    pub fn new(handlers: Vec<Arc<dyn HoldEnded>>) -> Self {
        HoldEndings(handlers.into())
    }

    /// Tells every handler that `hold` was released.
    pub async fn released(&self, store: &Store, hold: &HoldDoc) {
        for handler in self.0.iter() {
            handler.released(store, hold).await;
        }
    }
}

impl std::fmt::Debug for HoldEndings {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "HoldEndings({} handlers)", self.0.len())
    }
}
