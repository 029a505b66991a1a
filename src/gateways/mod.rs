//! Gateway membership: this process among the gateways on one database. Every heartbeat it
//! records that it is alive and learns how many gateways are, and its rate limits take that
//! share (`domain::rate_limit::Share`); a gateway that stops deletes its record, one that
//! dies stops being counted three heartbeats after its last. It also learns which gateways
//! take other gateways' writes, and which of them owns each showtime (`peers`).
//!
//! It owns the `gateways` collection (`store/`). Laid out as every feature is: `rules` (when
//! a gateway stops counting, which owns a showtime), the use case (`membership`), `store`.

mod membership;
pub mod peers;
pub mod rules;
mod store;

pub use membership::Membership;
pub use peers::{Peer, Peers};
pub use rules::{LIVE_WITHIN_HEARTBEATS, RECORD_TTL};
