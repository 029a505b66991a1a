//! The GraphQL types shared by every feature (connections, money, nodes, lazily loaded
//! documents), and the features' types re-exported: each feature keeps its own in its
//! `graphql/`.
//!
//! A field that calls the store directly awaits the call boxed (`Box::pin(store.f(..))`): a
//! driver call's future is kilobytes, an object's field resolver is one future as large as its
//! largest field's, and async-graphql boxes (allocates and copies) one per field asked. Unboxed,
//! every `name` of a page's cinemas and movies paid for the size of `Cinema.showtimes`'s find:
//! 4% of the gateway's CPU on the loaded showtimes page went to those copies.

mod connection;
pub mod lazy;
pub mod money;
mod seat_kind;

pub use crate::catalogue::graphql::types::{
    nearby_cinemas, Channel, Cinema, DoorKey, Hall, Movie, MovieDetails, NearbyCinemaConnection,
    Region, RegionLevel, Review, Showtime, ShowtimeStatus, TicketRule, TicketType,
};
pub use crate::holds::graphql::Hold;
pub use crate::live::graphql::SeatMapEvent;
pub use crate::operators::graphql::AuditEntry;
pub use crate::orders::graphql::{Order, OrderChange};
pub use connection::{connection, list_cost, page_cost};
pub use money::Money;
pub use seat_kind::SeatKind;
