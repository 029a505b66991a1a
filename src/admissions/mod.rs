//! Admission at the door: a ticket's code is checked without the database (its HMAC, its
//! cinema against the door's), then its seat is admitted once, in one conditional update
//! that reads nothing (`admit`); the window and the refusals are `rules`.
//!
//! It owns the `admitted` marks on the seats of `seat_inventory` and the inventory's
//! `admitted` count (its store code, `store/seats.rs`), and tells the channel (an outbox entry
//! in the same update). Door staff keys, which let a door's scanners call it, are operator
//! records made by `catalogue`. Laid out as every feature is: `rules` (pure), the use case
//! (`admit`), `store`, `graphql`.

pub mod admit;
pub mod graphql;
pub mod rules;
pub mod store;

pub use admit::{admit_ticket, Admission, DoorAt};
pub use rules::AdmissionWindow;
