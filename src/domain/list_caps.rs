//! How long the lists of objects a response carries can be. The complexity limit charges each
//! such list as if it were this long, so what it counts is what a response can build; the
//! resolvers never return more.

/// The most seats one hold (and so one order) can take, whatever `--max-seats-per-hold` says.
pub const MAX_SEATS_PER_HOLD: usize = 10;

/// The most cast members a movie's details list (in billing order; the rest are left out).
pub const MAX_CAST: usize = 50;

/// The most ratings from other sites a movie's details list.
pub const MAX_EXTERNAL_RATINGS: usize = 10;

/// The most channel prices a showtime lists: the channels that sell it.
pub const MAX_CHANNEL_PRICES: usize = 32;

/// The most price revisions a showtime's `priceHistory` lists (the newest).
pub const MAX_PRICE_REVISIONS: usize = 20;
