//! The gateways' store code: the `gateways` collection of live processes.

mod indexes;
mod records;
