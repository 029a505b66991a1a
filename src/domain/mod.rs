//! The shared pure rules several features read: ids, hall layouts and seat maps, seat states
//! and seat-map changes, money and pricing, best seats, cursors, paging, global ids, ticket
//! codes, API keys, customer ids, rate limits and input caps. A rule one feature alone reads lives in that
//! feature's `rules`.
//!
//! Pure Rust: nothing here knows MongoDB or GraphQL, so every rule is unit-tested inline.

pub mod api_key;
pub mod best_seats;
pub mod clock;
pub mod cursor;
pub mod customer;
pub mod geo;
pub mod global_id;
pub mod ids;
pub mod input_caps;
pub mod layout;
pub mod list_caps;
pub mod money;
pub mod paging;
pub mod pricing;
pub mod rate_limit;
pub mod seat;
pub mod seat_changes;
pub mod text;
pub mod ticket_codes;
pub mod time_range;
