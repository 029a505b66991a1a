//! The want-to-see lists' indexes (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, sparse, Wanted};
use crate::store::names::{WANT_TO_SEE, WANT_TO_SEE_BY_MOVIE};
use crate::store::Store;

impl Store {
    /// The indexes of the lists and of a movie's buckets.
    pub(crate) fn want_to_see_indexes() -> Vec<Wanted> {
        vec![
            // Want-to-see lists: the entries in flight, for the repair pass; a movie's buckets,
            // newest first.
            sparse(WANT_TO_SEE, doc! { "movies.since": 1 }, "since"),
            index(
                WANT_TO_SEE_BY_MOVIE,
                doc! { "movie": 1, "bucket": -1 },
                "movie_bucket",
            ),
        ]
    }
}
