//! The sales figures' part of the schema: `Sales` (a movie's totals) and `HourlySales` (a
//! cinema's buckets, `Cinema.hourlySales`), `HallSeatSales` (which seats sell first,
//! `Hall.seatSales`).

pub mod types;

pub use types::{HallSeatSales, HourlySales, Sales, SeatSales};
