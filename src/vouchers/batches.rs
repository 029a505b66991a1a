//! Making, listing and disabling batches of voucher codes (operators only).
//!
//! A batch runs once per idempotency key, and its id is the key's resource id: its codes are
//! derived from that id (`VoucherCode::of_batch`), so a retry answers with the same codes,
//! while the key's stored answer keeps the batch's id only, never a code. Codes are stored as
//! keyed hashes; the answer that makes them is the one place they are shown.

use serde::Serialize;

use super::convert;
use super::rules::{
    batch_size, parse_prefix, Caps, Narrowed, Validity, VoucherCode, VoucherEffect, VoucherScope,
};
use super::store::documents::{VoucherBatchDoc, VoucherCodeDoc};
use super::store::RedemptionCount;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::{ResourceId, VoucherBatchId};
use crate::domain::text;
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::idempotency::{Attempt, KeyPolicy};
use crate::operators::{self, Audited, Keyed};
use crate::store::{self, Store};

/// The longest name a batch may have.
pub const MAX_NAME_CHARS: usize = 80;
/// The most batches one listing shows.
pub const MAX_LISTED: usize = 100;

/// A batch as an operator asks for it (checked by the rules before it gets here).
#[derive(Debug, Clone)]
pub struct NewBatch {
    pub name: String,
    pub prefix: String,
    pub count: usize,
    pub effect: VoucherEffect,
    pub only: Option<Narrowed>,
    pub validity: Validity,
    pub caps: Caps,
}

impl NewBatch {
    /// Checks an operator's input, every size before anything is made of it.
    #[allow(clippy::too_many_arguments)]
    pub fn checked(
        name: &str,
        prefix: Option<&str>,
        count: i64,
        effect: VoucherEffect,
        only: Option<Narrowed>,
        validity: Validity,
        caps: Caps,
    ) -> Result<Self, ApiError> {
        let name = text::required_within("name", name, MAX_NAME_CHARS)?;
        Ok(NewBatch {
            name,
            prefix: parse_prefix(prefix.unwrap_or_default())?,
            count: batch_size(count)?,
            effect: effect.checked()?,
            only,
            validity,
            caps,
        })
    }
}

/// A batch just made (or made by an earlier attempt of the same key), with its codes.
#[derive(Debug)]
pub struct MadeBatch {
    pub batch: VoucherBatchDoc,
    pub codes: Vec<VoucherCode>,
}

/// Makes a batch of `new.count` codes as operator `operator`. A scope narrowed to a cinema,
/// movie or showtime must name one that exists (NOT_FOUND); a chain may narrow only to its
/// own cinemas and their showtimes (FORBIDDEN).
#[tracing::instrument(skip(store, secret, keys, new, request))]
pub async fn create_batch<R: Serialize>(
    store: &Store,
    secret: &TicketSecret,
    keys: &KeyPolicy,
    operator: &str,
    key: Option<&str>,
    new: &NewBatch,
    request: &R,
) -> Result<MadeBatch, ApiError> {
    let cinemas = operators::operator_scope(store, operator).await?;
    let scope = VoucherScope::new(cinemas, new.only)?;
    check_narrowed(store, operator, new.only).await?;
    let keyed = Keyed {
        store,
        keys,
        operator,
        key,
        request,
    };
    let id: VoucherBatchId = keyed
        .once("createVoucherBatch", |attempt| {
            let scope = scope.clone();
            async move {
                let id = VoucherBatchId(attempt.resource_id().0);
                let batch = convert::batch_doc(id, operator, new, &scope, store::now());
                let codes = derive_codes(secret, &batch).await?;
                let stored: Vec<VoucherCodeDoc> = codes
                    .iter()
                    .zip(0..)
                    .map(|(code, index)| VoucherCodeDoc {
                        hash: convert::hash_hex(code, secret),
                        batch: id,
                        index,
                    })
                    .collect();
                store.insert_voucher_batch(&batch, &stored).await?;
                audit(store, attempt, operator, "createVoucherBatch", &batch).await?;
                Ok(id)
            }
        })
        .await?;
    let batch = store
        .voucher_batch(id)
        .await?
        .ok_or_else(|| ApiError::internal(format!("voucher batch {id} is gone")))?;
    let codes = derive_codes(secret, &batch).await?;
    Ok(MadeBatch { batch, codes })
}

/// The codes of `batch`, derived again (off the async threads: 10,000 codes are 20,000 HMACs).
async fn derive_codes(
    secret: &TicketSecret,
    batch: &VoucherBatchDoc,
) -> Result<Vec<VoucherCode>, ApiError> {
    let (secret, id, prefix) = (secret.clone(), ResourceId(batch.id.0), batch.prefix.clone());
    let count = u32::try_from(batch.count)
        .map_err(|error| ApiError::internal_caused("a batch's count", error))?;
    tokio::task::spawn_blocking(move || {
        (0..count)
            .map(|index| VoucherCode::of_batch(&secret, id, index, &prefix))
            .collect()
    })
    .await
    .map_err(|error| ApiError::internal_caused("deriving a batch's codes", error))
}

/// NOT_FOUND for a narrowed scope naming nothing; FORBIDDEN for a showtime at a cinema the
/// operator does not write (a cinema is checked by `VoucherScope::new`).
async fn check_narrowed(
    store: &Store,
    operator: &str,
    only: Option<Narrowed>,
) -> Result<(), ApiError> {
    let missing = |id: GlobalId| ApiError::not_found(format!("{} does not exist", id.encode()));
    match only {
        None => Ok(()),
        Some(Narrowed::Cinema(id)) => match store.cinemas_by_ids(&[id]).await?.is_empty() {
            true => Err(missing(GlobalId::Cinema(id))),
            false => Ok(()),
        },
        Some(Narrowed::Movie(id)) => match store.movies_by_ids(&[id]).await?.is_empty() {
            true => Err(missing(GlobalId::Movie(id))),
            false => Ok(()),
        },
        Some(Narrowed::Showtime(id)) => {
            let showtime = store.showtimes_by_ids(&[id]).await?.pop();
            let showtime = showtime.ok_or_else(|| missing(GlobalId::Showtime(id)))?;
            operators::authorize(store, operator, showtime.cinema.id).await
        }
    }
}

/// `operator`'s batches, newest first, at most `first` (1 to `MAX_LISTED`), each with how
/// many of its redemptions are reserved by live holds and redeemed by orders.
#[tracing::instrument(skip(store))]
pub async fn list_batches(
    store: &Store,
    operator: &str,
    first: usize,
) -> Result<Vec<(VoucherBatchDoc, RedemptionCount)>, ApiError> {
    let batches = store.voucher_batches(operator, first).await?;
    let ids: Vec<VoucherBatchId> = batches.iter().map(|batch| batch.id).collect();
    let counts = store.redemption_counts(&ids).await?;
    Ok(batches
        .into_iter()
        .zip(counts)
        .map(|(batch, (_, count))| (batch, count))
        .collect())
}

/// Disables batch `id` of `operator`: its codes are refused from now on (holds that reserved
/// a redemption keep it). NOT_FOUND when the operator has no such batch. Recorded in the
/// audit log, as the batch's making is.
#[tracing::instrument(skip(store))]
pub async fn disable_batch(
    store: &Store,
    operator: &str,
    id: VoucherBatchId,
) -> Result<(VoucherBatchDoc, RedemptionCount), ApiError> {
    if !store.disable_voucher_batch(operator, id).await? {
        return Err(ApiError::not_found(format!(
            "operator `{operator}` has no voucher batch {}",
            GlobalId::VoucherBatch(id).encode()
        )));
    }
    let batch = store
        .voucher_batch(id)
        .await?
        .ok_or_else(|| ApiError::internal(format!("voucher batch {id} is gone")))?;
    audit(
        store,
        Attempt::unkeyed(),
        operator,
        "disableVoucherBatch",
        &batch,
    )
    .await?;
    let count = (store.redemption_counts(&[id]).await?.pop())
        .map(|(_, count)| count)
        .unwrap_or_default();
    Ok((batch, count))
}

/// The audit log's entry of a batch written: the batch as stored (its codes are not in it).
async fn audit(
    store: &Store,
    attempt: Attempt,
    operator: &str,
    operation: &str,
    batch: &VoucherBatchDoc,
) -> Result<(), ApiError> {
    let cinema = match batch.only {
        Some(super::store::documents::NarrowedDoc::Cinema { id }) => Some(id),
        _ => None,
    };
    operators::record(
        store,
        attempt,
        Audited {
            operator,
            operation,
            cinema,
            subject: GlobalId::VoucherBatch(batch.id),
            before: None,
            after: Audited::json(batch),
        },
    )
    .await
}
