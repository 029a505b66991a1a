//! The catalogue: cinemas, halls, movies (details, reviews), showtimes and their schedule,
//! prices and ticket types, regions, channels and door keys; read by everyone, written by
//! operators (a cinema chain for its own cinemas, or the platform).
//!
//! Every write runs the same way: the caller's scope is checked first (FORBIDDEN changes
//! nothing), then the write runs once per idempotency key (`idempotency::once`, in the
//! operator's own key space), then it is recorded in the audit log (all three `operators`). It may read before it
//! writes, but each write's filter carries the state it assumes. A document's copies of
//! another's fields are kept true by `references` (propagation). Blocked seats and a
//! showtime's cancellation change seats through `inventory` and orders through `orders`.
//!
//! Laid out as every feature is: `rules/` (pure), the use cases (one file per part), `store/`
//! (its collections), `graphql/` (`mutation/`, `query/`, `types/`).

mod cinemas;
mod door_keys;
pub mod graphql;
mod halls;
mod movies;
mod operators;
mod prices;
mod references;
pub mod rules;
mod seat_blocks;
mod showtime_cancel;
mod showtimes;
pub mod store;
mod ticket_types;

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
pub use store::{
    CancellationState, CatalogueBatch, CinemaChanges, CinemaFilter, CinemaRegion,
    CinemaWithDistance, Copied, DetailsChanges, HallChanges, MovieChanges, MovieFilter,
    PriceChange, PriceChanged, Propagation, ScheduleRefusal, Scheduled, ShowtimeFilter,
    ShowtimeParts, TicketTypeInsert, Updated, MAX_DEFINED_TICKET_TYPES,
};
pub use ticket_types::{check_matrix, define_ticket_type};
