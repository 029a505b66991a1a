//! The catalogue in the schema: cinemas, halls, movies, showtimes, prices, ticket types,
//! regions, door keys and the audit log, read by everyone and written by operators.

mod context;
pub mod mutation;
pub mod query;
pub mod types;

pub use context::CatalogueContext;
