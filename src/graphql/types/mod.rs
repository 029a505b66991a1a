//! The GraphQL types shared by every feature (connections, money, seat kinds, lazily loaded
//! documents). Each feature keeps its own in its `graphql/`, where another names them.
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

pub use connection::{connection, list_cost, page_cost};
pub use money::Money;
pub use seat_kind::SeatKind;
