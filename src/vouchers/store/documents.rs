//! Vouchers as stored (`vouchers::rules`): `voucher_batches` (what an operator made),
//! `voucher_codes` (one per code, `_id` its keyed hash), `voucher_redemptions` (one per
//! redemption a voucher has handed out, numbered below its cap) and `voucher_customers` (the
//! holds each customer has a code's redemptions for, under its per-customer cap).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::ids::{
    CinemaId, HoldId, MovieId, OrderId, RedemptionId, ShowtimeId, VoucherBatchId,
};
use crate::domain::pricing::TicketType;
use crate::store::codec;

/// `voucher_batches`: a batch of codes and everything its codes share. `_id` is the making
/// request's resource id, so a retried batch is the same batch (with the same codes).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VoucherBatchDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: VoucherBatchId,
    pub schema_version: i32,
    /// The operator that made it: only it lists and disables it.
    pub operator: String,
    pub name: String,
    pub prefix: String,
    pub count: i32,
    pub effect: EffectDoc,
    /// Every cinema (the platform's batch), or the chain's cinemas when it was made.
    pub all_cinemas: bool,
    #[serde(default, with = "codec::ids")]
    pub cinemas: Vec<CinemaId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<NarrowedDoc>,
    #[serde(with = "codec::time")]
    pub valid_from: DateTime<Utc>,
    #[serde(with = "codec::time")]
    pub valid_until: DateTime<Utc>,
    /// Per code.
    pub max_redemptions: i64,
    /// Per code and customer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_per_customer: Option<i64>,
    pub enabled: bool,
    #[serde(with = "codec::time")]
    pub created_at: DateTime<Utc>,
}

/// A voucher's effect as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EffectDoc {
    AmountOff { amount: i64 },
    PercentOff { percent: i32 },
    FixedPrice { amount: i64 },
    UnlockTicketType { ticket_type: TicketType },
}

/// What a batch's scope is narrowed to, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum NarrowedDoc {
    Cinema {
        #[serde(with = "codec::id")]
        id: CinemaId,
    },
    Movie {
        #[serde(with = "codec::id")]
        id: MovieId,
    },
    Showtime {
        #[serde(with = "codec::id")]
        id: ShowtimeId,
    },
}

/// `voucher_codes`: one code of a batch. `_id` is the code's keyed hash (hex), never the code.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VoucherCodeDoc {
    #[serde(rename = "_id")]
    pub hash: String,
    #[serde(with = "codec::id")]
    pub batch: VoucherBatchId,
    /// Its place in the batch (the code is derived from the batch and this).
    pub index: i32,
}

/// `voucher_redemptions`: one redemption of a code, `slot` below the code's cap and unique
/// per code, so no more redemptions than the cap can exist at all. A FREE one is handed out
/// again before a new number is taken.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RedemptionDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: RedemptionId,
    /// The code's hash.
    pub voucher: String,
    #[serde(with = "codec::id")]
    pub batch: VoucherBatchId,
    pub slot: i32,
    pub state: RedemptionState,
    /// The hold that reserved it (RESERVED, REDEEMED).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub hold: Option<HoldId>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub showtime: Option<ShowtimeId>,
    /// The customer it counts against under the code's per-customer cap
    /// (`voucher_customers`' id), when capped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer: Option<String>,
    /// RESERVED only: when the reconciler looks at it if nothing settled it before (its
    /// hold's expiry, and a grace).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_time"
    )]
    pub check_at: Option<DateTime<Utc>>,
    /// REDEEMED only: the order.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub order: Option<OrderId>,
}

impl RedemptionDoc {
    /// The showtime and hold that reserved it, when one did.
    pub fn held_by(&self) -> Option<(ShowtimeId, HoldId)> {
        self.showtime.zip(self.hold)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RedemptionState {
    Free,
    Reserved,
    Redeemed,
}

/// `voucher_customers`: the holds whose redemptions of one code count against one customer
/// (`_id`: the code's hash, `:`, the channel's customer), at most the per-customer cap of
/// them: the cap holds by the filter of the one update that adds a hold.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VoucherCustomerDoc {
    #[serde(rename = "_id")]
    pub key: String,
    #[serde(with = "codec::ids")]
    pub holds: Vec<HoldId>,
}
