//! Booking use cases: holding, extending and releasing seats, confirming a hold into an order,
//! cancelling an order or some of its seats (refunds), and cancelling a whole showtime (its
//! holds and orders); the idempotency keys they run under; and, until it moves into a folder
//! of its own (issue 35), the gateways' membership. Seat search, want-to-see lists, counters, admissions, channel events,
//! sales figures and webhooks have moved out (`crate::seat_search`, …).
//!
//! This layer sequences the domain's rules and the store's atomic updates. It may read before
//! it writes, to choose seats or to report what was taken, but every write's filter re-checks
//! the precondition of each seat it changes, so a stale read can only make a write miss (and
//! be retried), never make it wrong. It knows nothing of GraphQL.

mod gateways;
mod idempotency;

pub use gateways::{Membership, LIVE_WITHIN_HEARTBEATS};
pub use idempotency::{fence, once, once_unless_refused, Attempt, KeyPolicy};
