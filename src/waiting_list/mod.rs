//! A seat-aware waiting list (issue 36): a channel's customer waits for seats of a showtime
//! that fit its party (how many, which kind, side by side or not); when seats come back, the
//! earliest party they fit is offered them as an ordinary hold for its channel, told by a
//! WAITING_LIST_OFFERED event (and webhook).
//!
//! - `rules` (pure): what a party may ask for.
//! - `join`: joining (a place in line), leaving (an offer declined), reading an entry, the
//!   lines' lengths.
//! - `offers`: the passes that offer freed seats in line order, never skipping a party.
//! - `lines`: which showtimes this process knows to have a line (seats freed where nobody
//!   waits cost no read).
//! - `released`: the handler holds tell of a released hold (an offer declined).
//! - `store`: `waiting_list`, `waiting_list_seq`; `graphql`.

pub mod graphql;
mod join;
mod lines;
mod offers;
mod released;
pub mod rules;
pub mod store;

pub use join::{entry_of, join, leave, waiting_lengths};
pub use offers::{serve_showtime, settle_offer, Offers, PASS_EVERY};
pub use released::OfferDeclined;
