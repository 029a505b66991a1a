//! Want-to-see lists (seed 004's "by user" and "by item" tables): a channel's customer marks
//! movies; the customer's list and each movie's wanters are kept in step (`lists`), and a
//! movie's shown count is an approximate counter set to the exact one now and then
//! (`counts`).
//!
//! It owns `want_to_see` (by customer), `want_to_see_by_movie` (the wanters in buckets) and
//! `want_to_see_counts` (each movie's mark sequence, which fixes a mark's bucket). It calls
//! `counters` for the shown counts. Laid out as every feature is: `rules` (pure), the use
//! cases (`lists`, `counts`), `store`, `graphql`.

pub mod counts;
pub mod graphql;
#[cfg(feature = "test-hooks")]
pub mod inspect;
pub mod lists;
pub mod rules;
pub mod store;

pub use counts::{reconcile_counts, want_counts, WantCounts, RECONCILE_EVERY};
pub use lists::{
    mark_want_to_see, repair_want_lists, unmark_want_to_see, want_list_page, wanters_page,
    REPAIR_AFTER,
};
