//! The concessions' part of the schema: `Product` (listed by `Cinema.products`), the
//! operators' `createProduct` and `updateProduct`, and the counter's `collectItems`. Selling
//! is `holdSeats(input: {items})`.

pub mod mutation;
pub mod types;

pub use mutation::ConcessionMutation;
pub use types::{ItemCollection, Product};
