//! Vouchers: codes an operator makes in batches that change what a hold's seats cost when a
//! channel redeems one (issue 36).
//!
//! - `rules` (pure): codes and their keyed hash, effects and the rounding rule, scopes,
//!   validity, caps, refusals.
//! - `batches`: making (once per idempotency key, the same codes on a retry), listing with
//!   redemption counts, disabling.
//! - `redemption`: a hold looks a code up and reserves a redemption; its order redeems it; a
//!   release, an expiry or a whole refund gives it back.
//! - `ended_holds`: the handler that gives an ended hold's redemption back.
//! - `reconciler`: settles redemptions a crash left RESERVED.
//! - `store`: `voucher_batches`, `voucher_codes`, `voucher_redemptions`; `graphql`.

mod batches;
mod convert;
mod ended_holds;
pub mod graphql;
mod reconciler;
mod redemption;
pub mod rules;
pub mod store;

pub use batches::{
    create_batch, disable_batch, list_batches, MadeBatch, NewBatch, MAX_LISTED, MAX_NAME_CHARS,
};
pub use ended_holds::RedemptionOfEndedHold;
pub use reconciler::{settle_redemptions, REDEMPTION_GRACE};
pub use redemption::{
    give_back, give_back_or_leave, give_back_refunded, look_up, redeem, reserve_for_hold,
    FoundVoucher,
};
pub use store::{Claim, RedemptionCount};
