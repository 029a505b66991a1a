//! Redeeming a voucher: a hold looks its code up, reserves one of its redemptions before it
//! is placed, and carries it; its order makes it final; a release, an expiry, a hold that was
//! never placed or a whole refund gives it back.
//!
//! A code's redemptions are documents numbered 0 to cap − 1, unique per code: no more can
//! exist than the cap allows, whatever races. A hold claims a FREE one in one update; when
//! none is FREE the next numbers are added FREE, a chunk at a time, so the buyers of one
//! code take different documents at once. A per-customer cap is a list of holds per code
//! and customer that one conditional update extends. Every change of a redemption names its
//! hold and the state it assumes. Whatever a crash leaves RESERVED is settled by
//! `reconciler`.

use super::convert;
use chrono::{DateTime, Utc};

use super::rules::{Refusal, SaleAt, Voucher, VoucherCode};
use super::store::documents::RedemptionState;
use super::store::{Claim, Claimed};
use crate::domain::ids::{HoldId, OrderId, RedemptionId, VoucherBatchId};
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::holds::{self, HoldEndings};
use crate::store::documents::VoucherUseDoc;
use crate::store::{CrashPoint, DelayPoint, Store};
use crate::telemetry::metrics::Expirer;

/// A claim that lost every race this many times gives up (UNAVAILABLE: retry).
const MAX_CLAIMS: usize = 64;
/// How many numbers a claim that found none FREE adds as FREE redemptions at once.
const FREE_AHEAD: i32 = 32;
/// The most lapsed holds' redemptions one claim settles before it gives up.
const MAX_RECLAIMED: usize = 4;

/// A voucher found by its code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundVoucher {
    /// The code's stored hash.
    pub hash: String,
    pub batch: VoucherBatchId,
    pub voucher: Voucher,
}

/// The voucher whose code is `code`: VOUCHER_REFUSED (UNKNOWN) when there is none. Two
/// reads: the code, then its batch.
#[tracing::instrument(skip_all)]
pub async fn look_up(
    store: &Store,
    secret: &TicketSecret,
    code: &VoucherCode,
) -> Result<FoundVoucher, ApiError> {
    let hash = convert::hash_hex(code, secret);
    let found = store
        .voucher_code(&hash)
        .await?
        .ok_or_else(|| Refusal::Unknown.error())?;
    let batch = store
        .voucher_batch(found.batch)
        .await?
        .ok_or_else(|| ApiError::internal(format!("voucher batch {} is gone", found.batch)))?;
    Ok(FoundVoucher {
        hash,
        batch: batch.id,
        voucher: convert::voucher(&batch)?,
    })
}

/// Reserves one redemption of `found` for `claim`'s hold, counted against the customer when
/// the voucher caps each customer (`customer`: `rules::customer_of`). VOUCHER_REFUSED
/// (USED_UP, CUSTOMER_LIMIT) when none is left. Returns what the hold carries (no discount
/// yet: the seats are priced after).
#[tracing::instrument(skip(store, found, customer, claim), fields(hold = %claim.hold))]
async fn reserve(
    store: &Store,
    endings: &HoldEndings,
    found: &FoundVoucher,
    customer: Option<&str>,
    mut claim: Claim,
) -> Result<VoucherUseDoc, ApiError> {
    let per_customer = match (found.voucher.caps.per_customer, customer) {
        (Some(cap), Some(customer)) => Some((format!("{}:{customer}", found.hash), cap)),
        _ => None,
    };
    if let Some((key, cap)) = &per_customer {
        // Not the authority (the count below is): it spares a claim and its give-back.
        if store.customer_holds(key).await?.len() >= *cap as usize {
            return Err(Refusal::CustomerLimit.error());
        }
    }
    claim.customer = per_customer.as_ref().map(|(key, _)| key.clone());
    let redemption = claim_redemption(store, endings, found, &claim).await?;
    if let Some((key, cap)) = &per_customer {
        // An error here leaves the claim to the reconciler (the hold is never placed).
        if !store.count_customer_hold(key, claim.hold, *cap).await? {
            store
                .free_redemption(
                    Some(&found.hash),
                    redemption,
                    claim.hold,
                    &[RedemptionState::Reserved],
                )
                .await?;
            return Err(Refusal::CustomerLimit.error());
        }
    }
    Ok(VoucherUseDoc {
        redemption,
        batch: found.batch,
        discount: 0,
        customer: claim.customer,
        voucher: Some(found.hash.clone()),
    })
}

/// Reserves a redemption of `found` for `hold`, after its rules allow it for this sale now
/// (VOUCHER_REFUSED otherwise), counted against `customer` when the voucher caps each
/// customer; its check is due at `check_at`, when the hold would expire.
pub async fn reserve_for_hold(
    store: &Store,
    endings: &HoldEndings,
    found: &FoundVoucher,
    customer: Option<&str>,
    sale: &SaleAt<'_>,
    hold: HoldId,
    check_at: DateTime<Utc>,
) -> Result<VoucherUseDoc, ApiError> {
    if let Some(refusal) = found.voucher.refusal(sale, crate::store::now(), customer) {
        return Err(refusal.error());
    }
    let claim = Claim {
        hold,
        showtime: sale.showtime,
        customer: None,
        check_at,
    };
    let reserved = reserve(store, endings, found, customer, claim).await?;
    store.crash_point(CrashPoint::HoldAfterVoucherReserved)?;
    store
        .delay_point(DelayPoint::HoldAfterVoucherReserved)
        .await;
    Ok(reserved)
}

/// Claims a redemption of `found`: a FREE one (one update), else, while there are numbers
/// below the cap, after adding the next `FREE_AHEAD` numbers as FREE redemptions (so that
/// buyers of one code claim different documents at once rather than race for the next
/// number); at the cap, after taking back those of lapsed holds. USED_UP when none is left.
async fn claim_redemption(
    store: &Store,
    endings: &HoldEndings,
    found: &FoundVoucher,
    claim: &Claim,
) -> Result<RedemptionId, ApiError> {
    let cap = i32::try_from(found.voucher.caps.total).unwrap_or(i32::MAX);
    let mut reclaimed = false;
    for _ in 0..MAX_CLAIMS {
        if let Claimed::Claimed(id) = store.claim_free_redemption(&found.hash, claim).await? {
            return Ok(id);
        }
        let next = store
            .highest_redemption_slot(&found.hash)
            .await?
            .map_or(0, |highest| highest + 1);
        if next < cap {
            let numbers = next..cap.min(next.saturating_add(FREE_AHEAD));
            store
                .add_free_redemptions(&found.hash, found.batch, numbers)
                .await?;
            continue;
        }
        // At the cap. A claim that lost a race for a FREE one may have been told none is
        // left while others are: look again before refusing.
        if store.has_free_redemption(&found.hash).await? {
            continue;
        }
        // Redemptions held by lapsed holds are free to take, as their seats are: expire
        // those holds first (once), then claim again.
        if reclaimed || reclaim_lapsed(store, endings, &found.hash).await? == 0 {
            return Err(Refusal::UsedUp.error());
        }
        reclaimed = true;
    }
    Err(ApiError::unavailable(
        "the voucher is in great demand: retry in a moment",
    ))
}

/// Settles the redemptions of `voucher` whose holds have lapsed in their inventories (at
/// most `MAX_RECLAIMED`); returns how many were given back. One whose hold is gone from its
/// inventory was given back when the hold ended, or is the reconciler's (it asks the hold's
/// orders).
async fn reclaim_lapsed(
    store: &Store,
    endings: &HoldEndings,
    voucher: &str,
) -> Result<usize, ApiError> {
    let lapsed = store
        .lapsed_redemptions(voucher, crate::store::now(), MAX_RECLAIMED)
        .await?;
    let mut freed = 0;
    for redemption in &lapsed {
        let Some((showtime, hold)) = redemption.held_by() else {
            continue;
        };
        let Some(fate) = holds::fate_in_inventory(store, showtime, hold).await? else {
            continue;
        };
        if super::reconciler::settle(store, endings, redemption, fate, Expirer::NextHold).await? {
            freed += 1;
        }
    }
    Ok(freed)
}

/// Gives `hold`'s redemption back from `states`: the customer's count first, so a crash
/// between the two leaves a redemption the reconciler gives back, never a customer's count
/// that nothing would.
pub(super) async fn free(
    store: &Store,
    voucher: Option<&str>,
    redemption: RedemptionId,
    customer: Option<&str>,
    hold: HoldId,
    states: &[RedemptionState],
) -> Result<bool, ApiError> {
    if let Some(customer) = customer {
        store.uncount_customer_hold(customer, hold).await?;
    }
    store
        .free_redemption(voucher, redemption, hold, states)
        .await
}

/// Gives back the redemption a hold reserved (released, expired, or never placed); a no-op
/// when it is not RESERVED by that hold any more.
pub async fn give_back(store: &Store, used: &VoucherUseDoc, hold: HoldId) -> Result<(), ApiError> {
    let customer = used.customer.as_deref();
    free(
        store,
        used.voucher.as_deref(),
        used.redemption,
        customer,
        hold,
        &[RedemptionState::Reserved],
    )
    .await?;
    Ok(())
}

/// Gives back the redemption `hold` reserved, with a log line rather than an error when the
/// database fails (the reconciler gives it back later): for paths whose own work is done.
pub async fn give_back_or_leave(store: &Store, used: &VoucherUseDoc, hold: HoldId) {
    if let Err(error) = give_back(store, used, hold).await {
        tracing::warn!(%error, %hold, "a voucher redemption is left to the reconciler");
    }
}

/// Makes the redemption `hold` reserved final for `order` (its sale happened). A failure is
/// logged: the reconciler finds the order by its seats and redeems it.
pub async fn redeem(store: &Store, used: &VoucherUseDoc, hold: HoldId, order: OrderId) {
    if let Err(error) = store
        .redeem_redemption(used.voucher.as_deref(), used.redemption, hold, order)
        .await
    {
        tracing::warn!(%error, %hold, "a voucher redemption is left to the reconciler");
    }
}

/// Gives back the redemption of an order refunded whole (the refund policy: a whole refund
/// returns the voucher, a partial one keeps it redeemed).
pub async fn give_back_refunded(
    store: &Store,
    used: &VoucherUseDoc,
    hold: HoldId,
) -> Result<(), ApiError> {
    let states = [RedemptionState::Reserved, RedemptionState::Redeemed];
    free(
        store,
        used.voucher.as_deref(),
        used.redemption,
        used.customer.as_deref(),
        hold,
        &states,
    )
    .await?;
    Ok(())
}
