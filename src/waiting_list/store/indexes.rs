//! The waiting lists' indexes (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, unique, Wanted};
use crate::store::names::WAITING_LIST;
use crate::store::Store;

impl Store {
    /// The indexes of the waiting lists.
    pub(crate) fn waiting_list_indexes() -> Vec<Wanted> {
        vec![
            // Waiting lists: one entry per customer of a channel and showtime (fields that never
            // change); a showtime's line in order; the showtimes with parties in line.
            unique(
                WAITING_LIST,
                doc! { "showtime": 1, "channel": 1, "customer": 1 },
                "customer",
            ),
            index(
                WAITING_LIST,
                doc! { "showtime": 1, "state": 1, "seq": 1 },
                "showtime_state_seq",
            ),
            index(
                WAITING_LIST,
                doc! { "state": 1, "showtime": 1 },
                "state_showtime",
            ),
        ]
    }
}
