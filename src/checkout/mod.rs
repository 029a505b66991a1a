//! Checkout: a customer's seats held together with what they carry, a voucher that prices
//! them and products beside them (`holdSeats`). It sits above holds, vouchers and
//! concessions and is the only feature that names all three: holds places the hold and knows
//! only that it carries something (`holds::Carriage`); vouchers and concessions reserve and
//! give back their own parts.
//!
//! - `carriage`: a hold's voucher and products, reserved before the hold is placed and
//!   settled after.
//! - `graphql`: `holdSeats` and its inputs.

mod carriage;
pub mod graphql;

pub use carriage::{HoldVoucher, VoucherAndProducts};
