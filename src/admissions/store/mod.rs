//! The admissions' store code: the `admitted` mark on a SOLD seat of `seat_inventory`.

mod seats;

pub use seats::AdmissionSeat;
