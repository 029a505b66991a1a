//! The seat inventory: one document per showtime holding the state of every seat, the
//! showtime's live holds, the counts by state, a version, and an outbox of events. Every seat
//! invariant of the brief lives in this document, so one module changes it: this one. Holds,
//! orders and refunds, admissions, blocked seats and cancellations call its operations (each
//! ONE conditional update whose filter carries the state it assumes of every seat it
//! changes, with the counts, the version and the event in the same update); the live feeds
//! read its changes through it (`feed_clause`, `read_feed_change`); the outbox relay reads and
//! clears its outbox through it. No other code names the `seat_inventory` collection
//! (`tests/api/architecture.rs`).
//!
//! Its operations are `Store` methods defined in `store/`, one file per kind of change.

mod store;

pub use store::{
    feed_clause, read_feed_change, AdmissionSeat, FeedChange, HoldFence, HoldsSeen, InventoryUpdate,
};
