//! The want-to-see lists' store code: the document shapes and every query and write of
//! `want_to_see`, `want_to_see_by_movie` and `want_to_see_counts` (as `Store` methods).

mod by_movie;
pub mod documents;
mod indexes;
mod lists;
mod sequence;

pub use lists::Listed;
