//! Finding seats across showtimes (`findSeats`): "two seats together for this film, tonight,
//! near me". It only reads: the area's cinemas, their showtimes in the window, and those
//! showtimes' seat maps, three reads whatever the number of cinemas (`search`), bounded as
//! `rules` says. Holding an option's seats is `holdSeats` with its labels.
//!
//! It owns no collection: its store code (`store`) reads `cinemas` and `showtimes` shaped
//! for the search, and the seat maps through the inventory's reads. Laid out as every
//! feature is: `rules` (pure), the use case (`search`), `store`, `graphql`.

pub mod graphql;
pub mod rules;
pub mod search;
pub mod store;

pub use search::{find_seats, SeatOption, SeatSearch};
