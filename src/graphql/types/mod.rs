//! One file per GraphQL type.
//!
//! A field that calls the store directly awaits the call boxed (`Box::pin(store.f(..))`): a
//! driver call's future is kilobytes, an object's field resolver is one future as large as its
//! largest field's, and async-graphql boxes (allocates and copies) one per field asked. Unboxed,
//! every `name` of a page's cinemas and movies paid for the size of `Cinema.showtimes`'s find:
//! 4% of the gateway's CPU on the loaded showtimes page went to those copies.

mod audit_entry;
mod cinema;
mod connection;
mod door_key;
mod hall;
mod lazy;
mod money;
mod movie;
mod movie_details;
mod node;
mod region;
mod review;
mod seat_map;
mod seat_map_event;
mod showtime;
mod ticket_type;

pub use crate::holds::graphql::Hold;
pub use crate::orders::graphql::{Order, OrderChange};
pub use audit_entry::AuditEntry;
pub use cinema::{nearby_cinemas, Cinema, NearbyCinemaConnection};
pub use connection::{connection, list_cost, page_cost};
pub use door_key::DoorKey;
pub use hall::Hall;
pub use money::Money;
pub use movie::Movie;
pub use node::Node;
pub use region::{Region, RegionLevel};
pub use review::Review;
pub use seat_map::SeatKind;
pub use seat_map_event::SeatMapEvent;
pub use showtime::{Channel, Showtime, ShowtimeStatus};
pub use ticket_type::{TicketRule, TicketType};
