//! One file per GraphQL type.

mod admission;
mod audit_entry;
mod cinema;
mod connection;
mod hall;
mod hold;
mod lazy;
mod money;
mod movie;
mod movie_details;
mod node;
mod order;
mod order_change;
mod region;
mod review;
mod sales;
mod seat_map;
mod seat_map_event;
mod showtime;
mod ticket_type;

pub use admission::{Admission, DoorKey};
pub use audit_entry::AuditEntry;
pub use cinema::{nearby_cinemas, Cinema, NearbyCinemaConnection};
pub use connection::{connection, page_cost};
pub use hall::Hall;
pub use hold::Hold;
pub use movie::Movie;
pub use node::Node;
pub use order::Order;
pub use order_change::OrderChange;
pub use region::{Region, RegionLevel};
pub use review::Review;
pub use seat_map::SeatKind;
pub use seat_map_event::SeatMapEvent;
pub use showtime::{Channel, Showtime, ShowtimeStatus};
pub use ticket_type::{TicketRule, TicketType};
