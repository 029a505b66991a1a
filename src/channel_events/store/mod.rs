//! The channel events' store code: the `events` collection, each channel's log; and who an
//! entry naming no channel is told to (`recipients`); handed events' bytes (`handed`).

pub mod documents;
pub(super) mod handed;
mod indexes;
mod log;
mod recipients;
