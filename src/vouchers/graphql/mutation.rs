//! Operators making and disabling batches of voucher codes.

use std::sync::Arc;

use async_graphql::{Context, InputObject, Object, ID};
use chrono::{DateTime, Utc};

use super::types::{CreatedVoucherBatch, VoucherBatch};
use crate::domain::global_id;
use crate::domain::pricing::TicketType;
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::idempotency::graphql::IdempotencyContext;
use crate::vouchers::rules::{Caps, Narrowed, Validity, VoucherEffect};
use crate::vouchers::{self, NewBatch};

#[derive(Default)]
pub struct VoucherMutation;

/// What each code does to each seat of a hold: exactly one of the four.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct VoucherEffectInput {
    /// This many fen off each seat (1 to 10,000,000), never below 0.
    pub amount_off: Option<i64>,
    /// This percentage off each seat (1 to 100); the discount is rounded down to the fen.
    pub percent_off: Option<i32>,
    /// Each seat at this many fen (0 to 10,000,000), or at its list price when lower.
    pub fixed_price: Option<i64>,
    /// A ticket type the showtime's rules refuse (say CHILD after 21:00) may be bought, at
    /// its price.
    pub unlock_ticket_type: Option<String>,
}

impl VoucherEffectInput {
    fn checked(&self) -> Result<VoucherEffect, ApiError> {
        let effect = match (
            self.amount_off,
            self.percent_off,
            self.fixed_price,
            &self.unlock_ticket_type,
        ) {
            (Some(amount), None, None, None) => VoucherEffect::AmountOff(amount),
            (None, Some(percent), None, None) => VoucherEffect::PercentOff(
                u8::try_from(percent)
                    .map_err(|_| ApiError::bad_input("percentOff must be 1 to 100"))?,
            ),
            (None, None, Some(amount), None) => VoucherEffect::FixedPrice(amount),
            (None, None, None, Some(code)) => {
                VoucherEffect::UnlockTicketType(TicketType::parse("unlockTicketType", code)?)
            }
            _ => {
                return Err(ApiError::bad_input(
                    "effect: give exactly one of amountOff, percentOff, fixedPrice and \
                     unlockTicketType",
                ))
            }
        };
        effect.checked()
    }
}

/// A batch of voucher codes to make.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct CreateVoucherBatchInput {
    /// A name for it (1 to 80 characters), shown to the operator only.
    pub name: String,
    /// What every code begins with: up to 8 of the codes' characters (digits 2–9 and
    /// capitals without I, L and O). None by default.
    pub prefix: Option<String>,
    /// How many codes (1 to 10,000).
    pub count: i32,
    /// What each code does.
    pub effect: VoucherEffectInput,
    /// Only at this cinema (of the calling operator's).
    pub cinema_id: Option<ID>,
    /// Only for this movie (at the calling operator's cinemas).
    pub movie_id: Option<ID>,
    /// Only for this showtime (of one of the calling operator's cinemas).
    pub showtime_id: Option<ID>,
    /// From when its codes may be used (now when not given).
    pub valid_from: Option<DateTime<Utc>>,
    /// Until when (exclusive): at most 366 days after `validFrom` (30 days after it when not
    /// given).
    pub valid_until: Option<DateTime<Utc>>,
    /// How many times each code may be redeemed (1 to 1,000,000).
    pub max_redemptions: i32,
    /// How many times one customer may redeem each code (1 to 20); holds must then name
    /// their customer (`customerId`).
    pub max_per_customer: Option<i32>,
    /// Makes retries safe: a retry with the same key and input makes nothing more and shows
    /// the same codes; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48
    /// hours.
    pub idempotency_key: Option<String>,
}

/// How long a batch is valid when `validUntil` is not given.
const DEFAULT_VALID_DAYS: i64 = 30;

impl CreateVoucherBatchInput {
    fn validity(&self) -> Result<Validity, ApiError> {
        let from = self.valid_from.unwrap_or_else(crate::store::now);
        let until =
            (self.valid_until).unwrap_or_else(|| from + chrono::Duration::days(DEFAULT_VALID_DAYS));
        Validity::new(from, until)
    }

    fn narrowed(&self) -> Result<Option<Narrowed>, ApiError> {
        match (&self.cinema_id, &self.movie_id, &self.showtime_id) {
            (None, None, None) => Ok(None),
            (Some(id), None, None) => Ok(Some(Narrowed::Cinema(global_id::cinema_id(id)?))),
            (None, Some(id), None) => Ok(Some(Narrowed::Movie(global_id::movie_id(id)?))),
            (None, None, Some(id)) => Ok(Some(Narrowed::Showtime(global_id::showtime_id(id)?))),
            _ => Err(ApiError::bad_input(
                "give at most one of cinemaId, movieId and showtimeId",
            )),
        }
    }
}

#[Object]
impl VoucherMutation {
    /// Makes a batch of voucher codes as the calling operator. The codes are in the answer,
    /// this once (they are stored hashed); a retry with the same idempotency key shows the
    /// same codes. A chain's codes are for its own cinemas only.
    #[tracing::instrument(skip_all)]
    async fn create_voucher_batch(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What the codes do, where, when and how often.")]
        input: CreateVoucherBatchInput,
    ) -> Result<CreatedVoucherBatch, ApiError> {
        let operator = ctx.calling_operator("making vouchers")?;
        let new = NewBatch::checked(
            &input.name,
            input.prefix.as_deref(),
            i64::from(input.count),
            input.effect.checked()?,
            input.narrowed()?,
            input.validity()?,
            Caps::new(
                i64::from(input.max_redemptions),
                input.max_per_customer.map(i64::from),
            )?,
        )?;
        // Boxed, as every resolver's use case: the mutation root's future (and, in a debug
        // build, its poll's stack frame) holds every resolver's future inline.
        let made = Box::pin(vouchers::create_batch(
            ctx.store(),
            ctx.data_unchecked::<Arc<TicketSecret>>(),
            ctx.key_policy(),
            operator,
            input.idempotency_key.as_deref(),
            &new,
            &input,
        ))
        .await?;
        Ok(CreatedVoucherBatch {
            codes: made
                .codes
                .iter()
                .map(|code| code.reveal().to_owned())
                .collect(),
            batch: VoucherBatch {
                batch: made.batch,
                count: Default::default(),
            },
        })
    }

    /// Disables a batch of the calling operator: its codes are refused from now on (holds
    /// that used one keep their price). NOT_FOUND when the operator has no such batch.
    #[tracing::instrument(skip(self, ctx))]
    async fn disable_voucher_batch(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The batch's id.")] id: ID,
    ) -> Result<VoucherBatch, ApiError> {
        let operator = ctx.calling_operator("disabling vouchers")?;
        let id = global_id::voucher_batch_id(&id)?;
        let (batch, count) = Box::pin(vouchers::disable_batch(ctx.store(), operator, id)).await?;
        Ok(VoucherBatch { batch, count })
    }
}
