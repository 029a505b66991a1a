//! Operator use cases: writing the catalogue (cinemas, halls, movies, showtimes, prices,
//! blocked seats, cancellations) on behalf of a cinema chain or the platform.
//!
//! Every write runs the same way: the caller's scope is checked first (FORBIDDEN changes
//! nothing), then the write runs once per idempotency key (`booking::once`, in the operator's
//! own key space), then it is recorded in the audit log. Like `booking`, it may read before it
//! writes, but each write's filter carries the state it assumes. It knows nothing of GraphQL.

mod access;
mod cinemas;
mod door_keys;
mod halls;
mod movies;
mod operators;
mod prices;
mod references;
mod seat_blocks;
mod showtime_cancel;
mod showtimes;
mod ticket_types;

pub use access::{authorize, operator_keys, record, Audited, Keyed};
pub use cinemas::{create_cinema, update_cinema, CinemaEdit, NewCinema};
pub use door_keys::{create_door_key, door_keys, revoke_door_key, NewDoorKey, MAX_DOOR_KEYS};
pub use halls::{create_hall, update_hall, NewHall};
pub use movies::{create_movie, update_movie};
pub use operators::create_operator;
pub use prices::change_showtime_prices;
pub use references::{finish_propagations, propagate_now};
pub use seat_blocks::{move_seats, SeatBlockRequest, SeatsMoved};
pub use showtime_cancel::cancel_showtime;
pub use showtimes::{schedule_showtime, NewShowtime};
pub use ticket_types::{check_matrix, define_ticket_type};
