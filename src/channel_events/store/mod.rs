//! The channel events' store code: the `events` collection, each channel's log.

mod log;

pub use log::Appended;
