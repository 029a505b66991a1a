//! The domain: ids, hall layouts and seat maps, seat states, money, cursors, global ids and input
//! validation.
//!
//! Pure Rust: nothing here knows MongoDB or GraphQL, so every rule is unit-tested inline.

pub mod api_key;
pub mod best_seats;
pub mod catalogue;
pub mod catalogue_rules;
pub mod clock;
pub mod cursor;
pub mod geo;
pub mod global_id;
pub mod ids;
pub mod input_caps;
pub mod layout;
pub mod list_caps;
pub mod money;
pub mod operator;
pub mod paging;
pub mod pricing;
pub mod rate_limit;
pub mod region;
pub mod schedule;
pub mod seat;
pub mod seat_blocks;
pub mod seat_changes;
pub mod text;
pub mod ticket_codes;
pub mod time_range;
