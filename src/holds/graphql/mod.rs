//! Holds in the schema: the `Hold` type, `holdSeats` / `releaseHold` / `extendHold`, and
//! `Query.hold` / `Query.holds`.

mod mutation;
mod query;
mod types;

pub use mutation::HoldMutation;
pub use query::HoldQuery;
pub use types::Hold;
