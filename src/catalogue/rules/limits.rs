//! The rules operator writes are checked against, set by the gateway's configuration.

use chrono::TimeDelta;

use crate::domain::layout::MAX_CAPACITY;

/// What a hall and a schedule may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CatalogueRules {
    /// The most seats a hall's layout may have (at most [`MAX_CAPACITY`], which the query
    /// complexity of a seat map assumes).
    pub max_hall_seats: usize,
    /// The time a hall needs after a showtime ends before the next may start (cleaning).
    pub cleaning_gap: TimeDelta,
}

impl Default for CatalogueRules {
    fn default() -> Self {
        CatalogueRules {
            max_hall_seats: MAX_CAPACITY,
            cleaning_gap: TimeDelta::minutes(15),
        }
    }
}
