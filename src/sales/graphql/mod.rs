//! The sales figures' part of the schema: `Sales` (a movie's totals) and `HourlySales` (a
//! cinema's buckets, `Cinema.hourlySales`).

pub mod types;

pub use types::{HourlySales, Sales};
