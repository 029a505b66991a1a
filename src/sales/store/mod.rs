//! The sales projection's store code: the orders still to count, the transaction that counts
//! them, the hourly buckets' reads, and the one aggregation of which seats sell first.

pub mod documents;
mod indexes;
mod projection;
mod seat_sales;
