//! The catalogue's query roots, one per part.

mod cinemas;
mod door_keys;
mod movies;
mod regions;
mod showtimes;
mod ticket_types;

pub use cinemas::CinemaQuery;
pub use door_keys::DoorKeyQuery;
pub use movies::MovieQuery;
pub use regions::RegionQuery;
pub use showtimes::ShowtimeQuery;
pub use ticket_types::TicketTypeQuery;
