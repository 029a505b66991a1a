//! Vouchers between their rules and their stored shape.

use chrono::{DateTime, Utc};

use super::batches::NewBatch;
use super::rules::{Caps, Narrowed, Validity, Voucher, VoucherCode, VoucherEffect, VoucherScope};
use super::store::documents::{EffectDoc, NarrowedDoc, VoucherBatchDoc};
use crate::domain::ids::VoucherBatchId;
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::operators::rules::OperatorScope;
use crate::store::documents::SCHEMA_VERSION;

/// What is stored of `code`: its keyed hash, in hex.
pub fn hash_hex(code: &VoucherCode, secret: &TicketSecret) -> String {
    code.hash(secret)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

pub fn batch_doc(
    id: VoucherBatchId,
    operator: &str,
    new: &NewBatch,
    scope: &VoucherScope,
    now: DateTime<Utc>,
) -> VoucherBatchDoc {
    let (all_cinemas, cinemas) = match scope.cinemas() {
        OperatorScope::All => (true, Vec::new()),
        OperatorScope::Cinemas(cinemas) => (false, cinemas.clone()),
    };
    VoucherBatchDoc {
        id,
        schema_version: SCHEMA_VERSION,
        operator: operator.to_owned(),
        name: new.name.clone(),
        prefix: new.prefix.clone(),
        count: i32::try_from(new.count).unwrap_or(i32::MAX),
        effect: effect_doc(&new.effect),
        all_cinemas,
        cinemas,
        only: scope.only().map(narrowed_doc),
        valid_from: new.validity.from,
        valid_until: new.validity.until,
        max_redemptions: i64::from(new.caps.total),
        max_per_customer: new.caps.per_customer.map(i64::from),
        enabled: true,
        created_at: now,
    }
}

fn effect_doc(effect: &VoucherEffect) -> EffectDoc {
    match effect {
        VoucherEffect::AmountOff(amount) => EffectDoc::AmountOff { amount: *amount },
        VoucherEffect::PercentOff(percent) => EffectDoc::PercentOff {
            percent: i32::from(*percent),
        },
        VoucherEffect::FixedPrice(amount) => EffectDoc::FixedPrice { amount: *amount },
        VoucherEffect::UnlockTicketType(ticket_type) => EffectDoc::UnlockTicketType {
            ticket_type: ticket_type.clone(),
        },
    }
}

fn narrowed_doc(only: Narrowed) -> NarrowedDoc {
    match only {
        Narrowed::Cinema(id) => NarrowedDoc::Cinema { id },
        Narrowed::Movie(id) => NarrowedDoc::Movie { id },
        Narrowed::Showtime(id) => NarrowedDoc::Showtime { id },
    }
}

pub fn effect(doc: &EffectDoc) -> Result<VoucherEffect, ApiError> {
    Ok(match doc {
        EffectDoc::AmountOff { amount } => VoucherEffect::AmountOff(*amount),
        EffectDoc::PercentOff { percent } => VoucherEffect::PercentOff(
            u8::try_from(*percent)
                .map_err(|error| ApiError::internal_caused("a voucher's percentage", error))?,
        ),
        EffectDoc::FixedPrice { amount } => VoucherEffect::FixedPrice(*amount),
        EffectDoc::UnlockTicketType { ticket_type } => {
            VoucherEffect::UnlockTicketType(ticket_type.clone())
        }
    })
}

pub fn narrowed(doc: &NarrowedDoc) -> Narrowed {
    match *doc {
        NarrowedDoc::Cinema { id } => Narrowed::Cinema(id),
        NarrowedDoc::Movie { id } => Narrowed::Movie(id),
        NarrowedDoc::Showtime { id } => Narrowed::Showtime(id),
    }
}

/// The voucher a stored batch makes of each of its codes.
pub fn voucher(batch: &VoucherBatchDoc) -> Result<Voucher, ApiError> {
    let inconsistent = |error: ApiError| {
        ApiError::internal(format!(
            "voucher batch {} is inconsistent: {error}",
            batch.id
        ))
    };
    let cinemas = match batch.all_cinemas {
        true => OperatorScope::All,
        false => OperatorScope::Cinemas(batch.cinemas.clone()),
    };
    let scope =
        VoucherScope::new(cinemas, batch.only.as_ref().map(narrowed)).map_err(inconsistent)?;
    Ok(Voucher {
        enabled: batch.enabled,
        validity: Validity {
            from: batch.valid_from,
            until: batch.valid_until,
        },
        scope,
        effect: effect(&batch.effect)?,
        caps: Caps::new(batch.max_redemptions, batch.max_per_customer).map_err(inconsistent)?,
    })
}
