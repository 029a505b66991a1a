//! The catalogue's GraphQL types, one file per type.

mod cinema;
mod door_key;
mod hall;
mod movie;
mod movie_details;
mod region;
mod review;
mod showtime;
mod ticket_type;

pub use cinema::{nearby_cinemas, Cinema, NearbyCinemaConnection};
pub use door_key::DoorKey;
pub use hall::Hall;
pub use movie::Movie;
pub use movie_details::MovieDetails;
pub use region::{Region, RegionLevel};
pub use review::Review;
pub use showtime::{Channel, Showtime, ShowtimeStatus};
pub use ticket_type::{TicketRule, TicketType};
