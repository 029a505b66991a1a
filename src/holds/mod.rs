//! Holds: a channel's customer holds seats (named, or the best N adjacent) for a few minutes,
//! extends the hold once, releases it or lets it lapse; the sweeper returns lapsed holds'
//! seats to sale; a channel reads its holds back. A hold lives in its showtime's seat
//! inventory, so every write is one of `inventory`'s conditional updates (a hold has no
//! store code of its own); a showtime's requests queue on one lock per showtime
//! (`ShowtimeLocks`) so that a sell-out refuses early instead of racing.
//!
//! Laid out as every feature is: `rules` (pure: the policy, the count and couple-seat rules,
//! the extension), the use cases (`hold`: place; `choice`: seats chosen on a read; `named_read`;
//! `release`; `reads`, `extension`, `sweeper`), `graphql` (Hold, holdSeats, releaseHold, extendHold, Query.hold, Query.holds).

mod batch;
mod carriage;
mod choice;
mod endings;
mod expire;
mod extension;
mod fate;
pub mod graphql;
mod hold;
mod named_read;
mod reads;
mod release;
pub mod rules;
mod seen;
mod showtime_locks;
mod sweeper;

pub use carriage::{Carriage, Carried};
pub use choice::SeatChoice;
pub use endings::{Ending, HoldEnded, HoldEndings};
pub use expire::{expire_hold, release_for_cancel};
pub use extension::extend_hold;
pub use fate::{fate_in_inventory, hold_fate, HoldFate, OrdersOfHold};
pub use hold::{hold_seats, hold_time, HeldSeats, HoldRequest};
pub use named_read::{read_named_seats, FirstRead};
pub use reads::{hold_of_channel, holds_of_channel};
pub use release::{forget_release, release_hold};
pub use rules::HoldPolicy;
pub use seen::{SeenSeats, SEEN_FOR};
pub use showtime_locks::ShowtimeLocks;
pub use sweeper::{sweep_expired_holds, sweep_expired_holds_of};
