//! The concessions' part of the schema: `Product` (listed by `Cinema.products`), the
//! operators' `createProduct` and `updateProduct`. Selling is `holdSeats(input: {items})`;
//! the counter's `collectItems` is the orders'.

pub mod mutation;
pub mod types;

pub use mutation::ConcessionMutation;
pub use types::Product;
