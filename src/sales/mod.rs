//! Sales figures (seed 002's computed pattern): each movie's totals (on the movie) and each
//! cinema's hourly buckets (`cinema_sales_hourly`), moved by the orders confirmed, cancelled
//! or refunded since the last pass, exactly once per order (`projection`, a background pass).
//!
//! It owns `cinema_sales_hourly` and the orders' `salesStale` and `salesCountedAs` marks, and
//! writes the movies' `sales` totals, in one transaction per batch (`store`). Laid out as
//! every feature is: the use cases (`projection`), `store`, `graphql` (its rule, what an
//! order counts for, is `orders::rules::SalesFigure`, beside the refund rules it follows).

pub mod graphql;
pub mod projection;
pub mod store;

pub use projection::{hourly_sales, project_sales};
