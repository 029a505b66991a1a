//! Sales figures (seed 002's computed pattern): each movie's totals (on the movie) and each
//! cinema's hourly buckets (`cinema_sales_hourly`), moved by the orders confirmed, cancelled
//! or refunded since the last pass, exactly once per order (`projection`, a background pass).
//!
//! It owns `cinema_sales_hourly` and the orders' `salesStale` and `salesCountedAs` marks, and
//! writes the movies' `sales` totals, in one transaction per batch (`store`). Laid out as
//! every feature is: the use cases (`projection`, `seat_sales`), `rules` (the bounds and
//! figures of which seats sell first), `store`, `graphql` (what an order counts for is
//! `orders::rules::SalesFigure`, beside the refund rules it follows).
//!
//! `seat_sales` reads a hall's showtimes with their orders in one aggregation: which seats
//! sell first (`Hall.seatSales`).

pub mod graphql;
pub mod projection;
pub mod rules;
pub mod seat_sales;
pub mod store;

pub use projection::{hourly_sales, project_sales};
pub use seat_sales::{hall_seat_sales, HallSeatSales};
