//! Approximate counters (seed 002's approximation pattern): a movie's want-to-see count and a
//! showtime's page views, shown on listings and written by each gateway once a second, each
//! increment exactly once (`tally`).
//!
//! It owns the `tallies` collection. Called by the page views (`Query.showtime`), by
//! want-to-see marks, and by the want-to-see reconciliation, which sets a movie's shown count
//! to the exact one. Laid out as every feature is: `rules`, the use cases (`tally`), `store`, `graphql` (the
//! tally and the request's loader of counts in a resolver's context).

pub mod graphql;
#[cfg(feature = "test-hooks")]
pub mod inspect;
pub mod rules;
mod store;
mod tally;

pub use rules::{Counted, Increment};
pub use tally::{
    counts, prune_flush_marks, set_want_to_see, started, Tally, FLUSH_EVERY, FLUSH_MARKS_KEPT,
};
