//! Holding seats (named, or the best N adjacent) and releasing a hold.

use super::choice::{SeatChoice, Snapshot};
use super::named_read::FirstRead;
use std::sync::Arc;

use super::carriage::{Carriage, Carried};
use super::{batch, expire_hold, HoldEndings, ShowtimeLocks};
use crate::domain::ids::ShowtimeId;
use crate::domain::pricing::{seat_prices_unlocking, TicketType, Unpriced};
use crate::domain::seat::SeatKind;
use crate::error::ApiError;
use crate::holds::rules::HoldPolicy;
use crate::idempotency::Attempt;
use crate::inventory::HoldFence;
use crate::store::documents::{
    HoldDoc, OfferDoc, SeatInventoryDoc, ShowtimeDoc, ShowtimeStatus, VoucherUseDoc,
};
use crate::store::{self, Store};
use crate::telemetry::metrics::{self, Expirer};

/// A hold request loses a race when another takes its seats between the read and the write;
/// it then reads again and chooses again, this many times at most.
pub(super) const MAX_ATTEMPTS: usize = 8;

/// What a hold asks for: which seats of which showtime, as which ticket types.
#[derive(Debug, Clone)]
pub struct HoldRequest {
    pub showtime: ShowtimeId,
    pub choice: SeatChoice,
    /// One per seat, in the order of the named seats (or of the chosen ones, left to right):
    /// `pricing::ticket_types_for` makes them.
    pub ticket_types: Vec<TicketType>,
    /// What the hold carries beside its seats (a voucher, products), when anything.
    pub carriage: Option<Arc<dyn Carriage>>,
    /// The waiting list's party the hold is offered to (placed by the gateway, not asked).
    pub offer: Option<OfferDoc>,
}

/// A hold that was placed, with what a client needs to show it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct HeldSeats {
    pub showtime: ShowtimeDoc,
    /// With the kind of every seat (`kinds`).
    pub hold: HoldDoc,
}

/// Holds seats of a showtime for `channel`: all of them in one atomic update, or none, each
/// seat as the ticket type of the same place in `request.ticket_types` at the showtime's price
/// for its kind and type. The hold gets the attempt's own id. An attempt that took an
/// idempotency key over first fences off the earlier attempts' hold ids: if one of them was
/// placed, it is the answer; otherwise none of them can ever be placed, and this attempt holds
/// seats under its own id. An attempt that finds its own id fenced off was replaced
/// (`Fenced`).
#[tracing::instrument(skip(store, endings, locks, policy))]
#[allow(clippy::too_many_arguments)]
pub async fn hold_seats(
    store: &Store,
    endings: &HoldEndings,
    locks: &ShowtimeLocks,
    channel: &str,
    request: &HoldRequest,
    policy: &HoldPolicy,
    attempt: Attempt,
    first_read: Option<FirstRead>,
) -> Result<HeldSeats, ApiError> {
    let (showtime_id, choice) = (request.showtime, &request.choice);
    // Plain holds are placed together with the others waiting (`batch`).
    if batch::batchable(request, attempt.taken_over()) {
        let job = batch::Job {
            channel: channel.to_owned(),
            choice: choice.clone(),
            ticket_types: request.ticket_types.clone(),
            hold_id: attempt.own_id(),
            attempt: attempt.number(),
            policy: *policy,
            first_read: first_read.and_then(|read| read.inventory),
        };
        return batch::hold_in_batch(store, endings, locks, showtime_id, job).await;
    }
    // The other best-available requests of this process choose one after another (see
    // `showtime_locks`).
    let _chooser = match choice {
        SeatChoice::Best { .. } | SeatChoice::Scattered { .. } => {
            Some(locks.lock(showtime_id).await?)
        }
        SeatChoice::Named(_) => None,
    };
    let (showtimes, inventory) = match first_read {
        // The read `read_named_seats` made for this request, before its first attempt.
        Some(FirstRead { inventory, .. }) if !attempt.taken_over() => {
            let showtimes = store
                .showtimes_by_ids(std::slice::from_ref(&showtime_id))
                .await?;
            (showtimes, inventory)
        }
        _ => tokio::try_join!(
            store.showtimes_by_ids(std::slice::from_ref(&showtime_id)),
            store.inventory(showtime_id)
        )?,
    };
    let showtime = showtimes
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::not_found(format!("showtime {showtime_id} does not exist")))?;
    if showtime.status != ShowtimeStatus::Scheduled {
        return Err(cancelled(showtime_id));
    }
    if !showtime.sold_on(channel) {
        return Err(ApiError::forbidden(format!(
            "channel {channel} does not sell this showtime"
        )));
    }
    if attempt.taken_over() {
        // No handler of ended holds is told of a fence: the fence is set only while none of
        // the ids is placed (`Store::fence_holds`), so a fenced hold never was a hold and
        // carries nothing (no voucher, units or offer in an inventory). What its stalled
        // attempt reserved before placing it, under its id, that attempt gives back when it
        // finds itself fenced (`Carriage::settle`), or the owners' reconcilers do when it died.
        match store
            .fence_holds(showtime_id, &attempt.earlier_ids())
            .await?
        {
            HoldFence::Fenced => {}
            HoldFence::Live(hold) => {
                return Ok(HeldSeats {
                    showtime,
                    hold: *hold,
                });
            }
            HoldFence::NoInventory => {
                return Err(ApiError::internal(format!(
                    "showtime {showtime_id} has no seat inventory"
                )))
            }
        }
    }
    let hold_id = attempt.own_id();
    let carried = match &request.carriage {
        None => None,
        Some(carriage) => {
            let check_at = store::now() + hold_time(policy)?;
            let types = &request.ticket_types;
            let reserved = carriage.reserve(store, endings, &showtime, types, hold_id, check_at);
            Some(Box::pin(reserved).await?)
        }
    };
    let placed = place(
        store,
        endings,
        channel,
        request,
        policy,
        &attempt,
        &showtime,
        Some(inventory),
        carried.clone().unwrap_or_default(),
    )
    .await;
    if let (Some(carriage), Some(carried)) = (&request.carriage, &carried) {
        Box::pin(carriage.settle(store, carried, hold_id, placed.as_ref())).await;
    }
    Ok(HeldSeats {
        showtime,
        hold: placed?,
    })
}

/// How long a hold lives.
pub fn hold_time(policy: &HoldPolicy) -> Result<chrono::Duration, ApiError> {
    chrono::Duration::from_std(policy.ttl)
        .map_err(|error| ApiError::internal_caused("the hold time", error))
}

/// The hold's attempts: read the seats, choose, price, place; again when another hold took
/// the seats first.
#[allow(clippy::too_many_arguments)]
async fn place(
    store: &Store,
    endings: &HoldEndings,
    channel: &str,
    request: &HoldRequest,
    policy: &HoldPolicy,
    attempt: &Attempt,
    showtime: &ShowtimeDoc,
    mut first_read: Option<Option<SeatInventoryDoc>>,
    carried: Carried,
) -> Result<HoldDoc, ApiError> {
    let (showtime_id, choice) = (request.showtime, &request.choice);
    let ticket_types = &request.ticket_types;
    let (matrix, rules) = (showtime.price_matrix(), showtime.rules());
    let carriage = request.carriage.as_deref();
    let unlocked = carriage.and_then(|carriage| carriage.unlocks());
    let hold_id = attempt.own_id();
    for _ in 0..MAX_ATTEMPTS {
        if showtime.starts_at <= store::now() {
            return Err(started());
        }
        let inventory = match first_read.take() {
            Some(inventory) => inventory,
            None => store.inventory(showtime_id).await?,
        }
        .ok_or_else(|| {
            ApiError::internal(format!("showtime {showtime_id} has no seat inventory"))
        })?;
        // The inventory's mark decides (the hold's filter requires it unset); the showtime's
        // status above only spares a write.
        if inventory.cancelled {
            return Err(cancelled(showtime_id));
        }
        let snapshot = Snapshot::new(inventory);
        if snapshot.is_fenced(hold_id) {
            return Err(ApiError::Fenced {
                attempt: attempt.number(),
            });
        }
        if let Some(hold) = snapshot.existing_hold(hold_id, channel) {
            return Ok(hold);
        }
        let positions = snapshot.choose(choice, policy)?;
        let seats: Vec<(String, SeatKind)> = positions
            .iter()
            .map(|&p| (snapshot.label(p), snapshot.kind(p)))
            .collect();
        let priced =
            seat_prices_unlocking(&matrix, &rules, channel, &seats, ticket_types, unlocked);
        let list = match priced {
            Ok(amounts) => amounts,
            Err(unpriced) => return Err(unpriced_error(store, unpriced).await),
        };
        let amounts = carriage.map_or_else(|| list.clone(), |carriage| carriage.prices(&list));
        let voucher_use = carried.voucher.as_ref().map(|used| VoucherUseDoc {
            discount: list.iter().sum::<i64>() - amounts.iter().sum::<i64>(),
            ..used.clone()
        });
        // Seats of an expired hold are free to the next hold at once: expire it first (by the
        // database's clock), then take them.
        let mut expired_all = true;
        for expired in snapshot.expired_holds_on(&positions) {
            expired_all &=
                expire_hold(store, endings, showtime_id, &expired, Expirer::NextHold).await?;
        }
        if !expired_all {
            continue;
        }
        let now = store::now();
        let ttl = hold_time(policy)?;
        let hold = HoldDoc {
            id: hold_id,
            channel: channel.to_owned(),
            kinds: seats.iter().map(|(_, kind)| *kind).collect(),
            seats: seats.into_iter().map(|(label, _)| label).collect(),
            ticket_types: ticket_types.to_vec(),
            amounts,
            created_at: now,
            expires_at: now + ttl,
            extended_by: None,
            voucher: voucher_use.map(Box::new),
            items: carried.items.clone(),
            offer: request.offer.clone().map(Box::new),
        };
        if store.place_hold(showtime_id, &hold).await? {
            metrics::hold_placed();
            return Ok(hold);
        }
    }
    Err(gave_up(match choice {
        SeatChoice::Named(labels) => labels.clone(),
        SeatChoice::Best { .. } | SeatChoice::Scattered { .. } => Vec::new(),
    }))
}

/// A hold of a showtime that has started.
pub(super) fn started() -> ApiError {
    ApiError::bad_input("the showtime has started: its seats can no longer be held")
}

/// A hold whose seats were taken [`MAX_ATTEMPTS`] times between its read and its write.
pub(super) fn gave_up(seats: Vec<String>) -> ApiError {
    ApiError::SeatUnavailable {
        message: format!("the seats kept being taken; gave up after {MAX_ATTEMPTS} attempts"),
        seats,
    }
}

/// The refusal of a seat the showtime has no price for. A type the matrix does not name may
/// not exist at all: only then (an error path) is the registry of ticket types read.
pub(super) async fn unpriced_error(store: &Store, unpriced: Unpriced) -> ApiError {
    let ticket_type = unpriced.ticket_type();
    let known = match ticket_type.is_built_in() {
        true => Ok(true),
        false => store.ticket_type_exists(ticket_type).await,
    };
    match known {
        Ok(known) => unpriced.into_error(known),
        Err(error) => error,
    }
}

/// A hold on a cancelled showtime: BAD_USER_INPUT, like a showtime that has started (no seat
/// of it will ever be for sale again, so SEAT_UNAVAILABLE, which invites choosing other seats,
/// would mislead).
pub(super) fn cancelled(showtime_id: ShowtimeId) -> ApiError {
    ApiError::bad_input(format!(
        "showtime {showtime_id} was cancelled: its seats can no longer be held"
    ))
}
