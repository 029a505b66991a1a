//! The seat search's part of the schema: `Query.findSeats` and `SeatOption`.

pub mod query;
pub mod types;

pub use query::SeatSearchQuery;
pub use types::SeatOption;
