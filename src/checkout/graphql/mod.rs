//! Checkout in the schema: `holdSeats` (the `Hold` it returns is the holds feature's).

mod mutation;

pub use mutation::HoldSeatsMutation;
