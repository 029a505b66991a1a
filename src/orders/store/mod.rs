//! The orders' store code: the `orders` collection, and the writes that move an order through
//! its life and record its refunds.

mod indexes;
mod orders;
mod refunds;

pub use refunds::WholeCancel;
