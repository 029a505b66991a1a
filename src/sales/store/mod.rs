//! The sales projection's store code: the orders still to count, the transaction that counts
//! them, and the hourly buckets' reads.

pub mod documents;
mod indexes;
mod projection;
