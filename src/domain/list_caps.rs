//! How long the lists of objects a response carries can be. The complexity limit charges each
//! such list as if it were this long, so what it counts is what a response can build; the
//! resolvers never return more.

/// The most seats one hold (and so one order) can take, whatever `--max-seats-per-hold` says.
pub const MAX_SEATS_PER_HOLD: usize = 10;

/// The most cast members a movie's details list (in billing order; the rest are left out).
pub const MAX_CAST: usize = 50;

/// The most ratings from other sites a movie's details list.
pub const MAX_EXTERNAL_RATINGS: usize = 10;

/// The most channels that sell one showtime.
pub const MAX_CHANNEL_PRICES: usize = 32;

/// The most entries of a showtime's price matrix (channel × seat kind × ticket type), and so
/// the most prices it lists.
pub const MAX_PRICE_ENTRIES: usize = 64;

/// The most price revisions a showtime's `priceHistory` lists (the newest).
pub const MAX_PRICE_REVISIONS: usize = 20;

/// The most ticket types one showtime refuses.
pub const MAX_TICKET_RULES: usize = 8;
