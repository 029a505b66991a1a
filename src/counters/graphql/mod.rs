//! What a resolver reaches of the counters through its context: the process's tally, and the
//! request's loader of counts, which `schema::prepare` attaches beside the other loaders.

use std::sync::Arc;

use async_graphql::Context;

use crate::counters::{self, Counted, Tally};
use crate::graphql::loaders::{BatchLoader, Loaders};
use crate::store::Store;

/// The approximate counters (`tallies`) of movies and showtimes, by the request's loaders'
/// batches: one `find` of `tallies` per batch, movies and showtimes together.
pub struct Tallies(BatchLoader<Counted, i64>);

impl Tallies {
    /// A fresh loader, sent with the batches of the request's `loaders`.
    pub fn new(store: &Store, loaders: &Loaders) -> Self {
        let store = store.clone();
        let loader = BatchLoader::new(move |keys: Vec<Counted>| {
            let store = store.clone();
            Box::pin(async move { counters::counts(&store, &keys).await })
        });
        Tallies(loader.dispatched_by(loaders.dispatch()))
    }
}

/// Typed access to the counters in the request data.
pub trait CountersContext {
    /// The process's approximate counters.
    fn tally(&self) -> &Tally;
    /// The request's loader of counts.
    fn tallies(&self) -> &BatchLoader<Counted, i64>;
}

impl CountersContext for Context<'_> {
    fn tally(&self) -> &Tally {
        self.data_unchecked::<Arc<Tally>>()
    }

    fn tallies(&self) -> &BatchLoader<Counted, i64> {
        &self.data_unchecked::<Tallies>().0
    }
}
