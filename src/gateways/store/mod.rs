//! The gateways' store code: the `gateways` collection of live processes.

mod indexes;
mod records;

pub(in crate::gateways) use records::Seen;
