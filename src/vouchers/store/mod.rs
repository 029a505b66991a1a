//! The vouchers' store code: the document shapes and every query and write of
//! `voucher_batches`, `voucher_codes` and `voucher_redemptions` (as `Store` methods).

mod batches;
pub mod documents;
mod indexes;
mod redemptions;

pub use redemptions::{Claim, Claimed, RedemptionCount};
