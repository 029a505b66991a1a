//! `VoucherBatch`, its effect and scope, and the answer that shows a batch's codes.

use async_graphql::{Enum, Object, SimpleObject, ID};
use chrono::{DateTime, Utc};

use crate::domain::global_id::GlobalId;
use crate::vouchers::store::documents::{EffectDoc, NarrowedDoc, VoucherBatchDoc};
use crate::vouchers::RedemptionCount;

/// A batch of voucher codes an operator made: what each code does, where and when, how
/// often, and how often its codes are used so far (all its codes together).
pub struct VoucherBatch {
    pub batch: VoucherBatchDoc,
    pub count: RedemptionCount,
}

/// What a voucher does to each seat of a hold.
#[derive(Enum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoucherEffectKind {
    /// `amount` fen off each seat, never below 0.
    AmountOff,
    /// `percent` off each seat; the discount is rounded down to the fen.
    PercentOff,
    /// Each seat at `amount` fen, or at its list price when that is lower.
    FixedPrice,
    /// `ticketType` may be bought although the showtime's rules refuse it, at its price.
    UnlockTicketType,
}

/// A voucher's effect.
#[derive(SimpleObject, Debug)]
pub struct VoucherEffect {
    /// Which effect.
    pub kind: VoucherEffectKind,
    /// For AMOUNT_OFF and FIXED_PRICE: fen.
    pub amount: Option<i64>,
    /// For PERCENT_OFF: 1 to 100.
    pub percent: Option<i32>,
    /// For UNLOCK_TICKET_TYPE: the ticket type's code.
    pub ticket_type: Option<String>,
}

impl From<&EffectDoc> for VoucherEffect {
    fn from(effect: &EffectDoc) -> Self {
        let none = VoucherEffect {
            kind: VoucherEffectKind::AmountOff,
            amount: None,
            percent: None,
            ticket_type: None,
        };
        match effect {
            EffectDoc::AmountOff { amount } => VoucherEffect {
                amount: Some(*amount),
                ..none
            },
            EffectDoc::PercentOff { percent } => VoucherEffect {
                kind: VoucherEffectKind::PercentOff,
                percent: Some(*percent),
                ..none
            },
            EffectDoc::FixedPrice { amount } => VoucherEffect {
                kind: VoucherEffectKind::FixedPrice,
                amount: Some(*amount),
                ..none
            },
            EffectDoc::UnlockTicketType { ticket_type } => VoucherEffect {
                kind: VoucherEffectKind::UnlockTicketType,
                ticket_type: Some(ticket_type.to_string()),
                ..none
            },
        }
    }
}

/// A batch of voucher codes an operator made: what each code does, where and when, how
/// often, and how often its codes are used so far (all its codes together).
#[Object]
impl VoucherBatch {
    /// Its id.
    async fn id(&self) -> ID {
        ID(GlobalId::VoucherBatch(self.batch.id).encode())
    }

    /// Its name, for the operator.
    async fn name(&self) -> &str {
        &self.batch.name
    }

    /// What its codes begin with (empty for none).
    async fn prefix(&self) -> &str {
        &self.batch.prefix
    }

    /// How many codes it has.
    async fn code_count(&self) -> i32 {
        self.batch.count
    }

    /// What each code does to each seat.
    async fn effect(&self) -> VoucherEffect {
        VoucherEffect::from(&self.batch.effect)
    }

    /// The only cinema its codes may be used at, if narrowed to one.
    async fn cinema_id(&self) -> Option<ID> {
        match self.batch.only {
            Some(NarrowedDoc::Cinema { id }) => Some(ID(GlobalId::Cinema(id).encode())),
            _ => None,
        }
    }

    /// The only movie its codes may be used for, if narrowed to one.
    async fn movie_id(&self) -> Option<ID> {
        match self.batch.only {
            Some(NarrowedDoc::Movie { id }) => Some(ID(GlobalId::Movie(id).encode())),
            _ => None,
        }
    }

    /// The only showtime its codes may be used for, if narrowed to one.
    async fn showtime_id(&self) -> Option<ID> {
        match self.batch.only {
            Some(NarrowedDoc::Showtime { id }) => Some(ID(GlobalId::Showtime(id).encode())),
            _ => None,
        }
    }

    /// From when its codes may be used.
    async fn valid_from(&self) -> DateTime<Utc> {
        self.batch.valid_from
    }

    /// Until when (exclusive); a hold placed before may still be confirmed after.
    async fn valid_until(&self) -> DateTime<Utc> {
        self.batch.valid_until
    }

    /// How many times each code may be redeemed.
    async fn max_redemptions(&self) -> i64 {
        self.batch.max_redemptions
    }

    /// How many times each code may be redeemed by one customer, if capped.
    async fn max_per_customer(&self) -> Option<i64> {
        self.batch.max_per_customer
    }

    /// False once disabled: its codes are refused.
    async fn enabled(&self) -> bool {
        self.batch.enabled
    }

    /// When it was made.
    async fn created_at(&self) -> DateTime<Utc> {
        self.batch.created_at
    }

    /// Redemptions its codes have reserved for live holds (given back if they lapse).
    async fn reserved(&self) -> i64 {
        self.count.reserved
    }

    /// Redemptions its codes have made final: confirmed orders (given back by a whole
    /// refund).
    async fn redeemed(&self) -> i64 {
        self.count.redeemed
    }
}

/// A batch just made, and its codes: shown this once (only their keyed hashes are stored).
/// A retry with the same idempotency key shows the same codes.
#[derive(SimpleObject)]
pub struct CreatedVoucherBatch {
    /// The batch.
    pub batch: VoucherBatch,
    /// Its codes, in order: give each to one customer (or publish one).
    pub codes: Vec<String>,
}
