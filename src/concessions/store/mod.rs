//! The concessions' store code: the shape of `products` and every query and write of it
//! (as `Store` methods).

pub mod documents;
mod indexes;
mod products;
mod stock;

pub use products::ProductChange;
pub use stock::MAX_PENDING;
