//! The sales figures' index (`store::indexes` creates every feature's at start).

use bson::doc;

use crate::store::indexes::{index, Wanted};
use crate::store::names::CINEMA_SALES_HOURLY;
use crate::store::Store;

impl Store {
    /// The index of the hourly figures.
    pub(crate) fn sales_indexes() -> Vec<Wanted> {
        vec![
            // A cinema's hourly sales figures, newest hour first (`sales::hourly_sales`).
            index(
                CINEMA_SALES_HOURLY,
                doc! { "cinemaId": 1, "hour": -1 },
                "cinema_newest",
            ),
        ]
    }
}
