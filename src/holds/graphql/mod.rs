//! Holds in the schema: the `Hold` type, `releaseHold` / `extendHold`, and `Query.hold` /
//! `Query.holds` (`holdSeats` is checkout's: a hold is placed with what it carries).

mod mutation;
mod query;
mod types;

pub use mutation::HoldMutation;
pub use query::HoldQuery;
pub use types::Hold;
