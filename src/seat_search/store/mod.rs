//! The seat search's reads (`reads`), one command each. `explain_showtimes` and
//! `cinemas_near` are for the tests and the `find_seats` benchmark, which measure them.

mod reads;

pub use reads::{cinemas_near, explain_showtimes, NearbyCinema, SearchedShowtimes};
