//! Admission at the door: a ticket's code is checked without the database (its HMAC, its
//! cinema against the door's), then its seat is admitted once, in one conditional update
//! that reads nothing (`admit`); the window and the refusals are `rules`.
//!
//! The `admitted` marks on the seats and the inventory's `admitted` count are written by the
//! seat inventory's module (`inventory`, the only one that changes that document), which
//! tells the channel in the same update. Door staff keys, which let a door's scanners call
//! it, are operator records made by `catalogue`. Laid out as every feature is: `rules`
//! (pure), the use case (`admit`) and `graphql`; no store of its own.

pub mod admit;
pub mod graphql;
pub mod rules;

pub use admit::{admit_ticket, Admission, DoorAt};
pub use rules::{door_keys, AdmissionWindow};
