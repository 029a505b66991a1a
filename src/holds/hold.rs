//! Holding seats (named, or the best N adjacent) and releasing a hold.

use std::collections::HashSet;

use super::{batch, expire_hold, ShowtimeLocks};
use crate::concessions::{self, rules::ItemAsk};
use crate::domain::best_seats::{best_adjacent, best_scattered, Cell, SeatGrid};
use crate::domain::ids::{HoldId, ShowtimeId};
use crate::domain::layout::{seat_label, SeatPosition};
use crate::domain::pricing::{seat_prices_unlocking, TicketType, Unpriced};
use crate::domain::seat::{SeatKind, SeatState};
use crate::error::ApiError;
use crate::holds::rules::{check_couple_pairs, locate_named, validate_count, HoldPolicy};
use crate::idempotency::Attempt;
use crate::inventory::HoldFence;
use crate::store::documents::{
    HoldDoc, HoldItemDoc, OfferDoc, SeatInventoryDoc, ShowtimeDoc, ShowtimeStatus, VoucherUseDoc,
};
use crate::store::{self, CrashPoint, DelayPoint, Store};
use crate::telemetry::metrics::{self, Expirer};
use crate::vouchers::rules::SaleAt;
use crate::vouchers::{self, Claim, FoundVoucher};
use crate::waiting_list;

/// A hold request loses a race when another takes its seats between the read and the write;
/// it then reads again and chooses again, this many times at most.
pub(super) const MAX_ATTEMPTS: usize = 8;

/// Which seats to hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatChoice {
    /// These seats, all or none.
    Named(Vec<String>),
    /// The best `count` adjacent seats of `kind`.
    Best { count: usize, kind: SeatKind },
    /// The best `count` seats of `kind`, together or not (a waiting list's party that need
    /// not sit together).
    Scattered { count: usize, kind: SeatKind },
}

/// What a hold asks for: which seats of which showtime, as which ticket types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldRequest {
    pub showtime: ShowtimeId,
    pub choice: SeatChoice,
    /// One per seat, in the order of the named seats (or of the chosen ones, left to right):
    /// `pricing::ticket_types_for` makes them.
    pub ticket_types: Vec<TicketType>,
    /// The voucher that prices the seats, found by its code.
    pub voucher: Option<HoldVoucher>,
    /// The products to hold beside the seats (checked by `concessions::rules::check_asks`).
    pub items: Vec<ItemAsk>,
    /// The waiting list's party the hold is offered to (placed by the gateway, not asked).
    pub offer: Option<OfferDoc>,
}

/// A voucher a hold uses, and the customer it counts against (`vouchers::rules::customer_of`,
/// when the hold named one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldVoucher {
    pub found: FoundVoucher,
    pub customer: Option<String>,
}

impl SeatChoice {
    /// How many seats it asks for.
    pub fn count(&self) -> usize {
        match self {
            SeatChoice::Named(labels) => labels.len(),
            SeatChoice::Best { count, .. } | SeatChoice::Scattered { count, .. } => *count,
        }
    }
}

/// A hold that was placed, with what a client needs to show it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct HeldSeats {
    pub showtime: ShowtimeDoc,
    /// With the kind of every seat (`kinds`).
    pub hold: HoldDoc,
}

/// The seats of an inventory as the seat picker sees them: free means AVAILABLE, or HELD by a
/// hold whose expiry has passed (by this gateway's clock; the database's clock decides when
/// the hold is actually expired).
pub(super) struct Snapshot {
    inventory: SeatInventoryDoc,
    row_labels: Vec<String>,
    grid: SeatGrid,
}

impl Snapshot {
    pub(super) fn new(inventory: SeatInventoryDoc) -> Self {
        let now = store::now();
        let expired: HashSet<HoldId> = inventory
            .holds
            .iter()
            .filter(|hold| hold.expires_at < now)
            .map(|hold| hold.id)
            .collect();
        let rows = inventory
            .seats
            .values()
            .map(|positions| {
                positions
                    .iter()
                    .map(|cell| match cell {
                        None => Cell::Gap,
                        Some(seat) => Cell::Seat {
                            kind: seat.kind,
                            free: match seat.state {
                                SeatState::Available => true,
                                SeatState::Held => seat.hold.is_some_and(|h| expired.contains(&h)),
                                SeatState::Sold | SeatState::Blocked => false,
                            },
                        },
                    })
                    .collect()
            })
            .collect();
        Snapshot {
            row_labels: inventory.seats.keys().cloned().collect(),
            grid: SeatGrid::new(rows),
            inventory,
        }
    }

    pub(super) fn label(&self, position: SeatPosition) -> String {
        seat_label(&self.row_labels[position.row], position.column)
    }

    fn seat(&self, position: SeatPosition) -> &crate::store::documents::SeatCellDoc {
        self.inventory.seats[position.row][position.column]
            .as_ref()
            .expect("positions name seats, not gaps")
    }

    fn is_free(&self, position: SeatPosition) -> bool {
        matches!(
            self.grid.rows[position.row][position.column],
            Cell::Seat { free: true, .. }
        )
    }

    /// The kind of the seat at `position`.
    pub(super) fn kind(&self, position: SeatPosition) -> SeatKind {
        self.seat(position).kind
    }

    /// Whether hold id `id` is fenced off (an attempt that took its key over replaced it).
    pub(super) fn is_fenced(&self, id: HoldId) -> bool {
        self.inventory.fenced_holds.contains(&id)
    }

    /// Counts `positions` as taken from now on (a batch's next request chooses around them).
    pub(super) fn take(&mut self, positions: &[SeatPosition]) {
        for position in positions {
            if let Cell::Seat { free, .. } = &mut self.grid.rows[position.row][position.column] {
                *free = false;
            }
        }
    }

    /// The seats to take for `choice`, or SEAT_UNAVAILABLE naming those that are not free.
    pub(super) fn choose(
        &self,
        choice: &SeatChoice,
        policy: &HoldPolicy,
    ) -> Result<Vec<SeatPosition>, ApiError> {
        match choice {
            SeatChoice::Named(labels) => {
                let positions = locate_named(&self.row_labels, &self.grid, labels, policy)?;
                check_couple_pairs(&self.grid, &positions, |p| self.label(p))?;
                let taken: Vec<String> = positions
                    .iter()
                    .filter(|&&p| !self.is_free(p))
                    .map(|&p| self.label(p))
                    .collect();
                if taken.is_empty() {
                    Ok(positions)
                } else {
                    Err(ApiError::seats_taken(taken))
                }
            }
            SeatChoice::Best { count, kind } => {
                validate_count(*count, policy)?;
                best_adjacent(&self.grid, *count, *kind).ok_or_else(|| ApiError::SeatUnavailable {
                    message: format!("no {count} adjacent {kind:?} seats are free"),
                    seats: Vec::new(),
                })
            }
            SeatChoice::Scattered { count, kind } => {
                validate_count(*count, policy)?;
                best_scattered(&self.grid, *count, *kind).ok_or_else(|| ApiError::SeatUnavailable {
                    message: format!("fewer than {count} {kind:?} seats are free"),
                    seats: Vec::new(),
                })
            }
        }
    }

    /// The hold `id` of `channel`, if it is live, with its seats' kinds.
    pub(super) fn existing_hold(&self, id: HoldId, channel: &str) -> Option<HoldDoc> {
        let hold = self
            .inventory
            .holds
            .iter()
            .find(|hold| hold.id == id && hold.channel == channel)?;
        self.inventory.with_kinds(hold)
    }

    /// The expired holds that still hold some of `positions`.
    pub(super) fn expired_holds_on(&self, positions: &[SeatPosition]) -> Vec<HoldDoc> {
        let ids: HashSet<HoldId> = positions
            .iter()
            .filter(|&&p| self.seat(p).state == SeatState::Held)
            .filter_map(|&p| self.seat(p).hold)
            .collect();
        self.inventory
            .holds
            .iter()
            .filter(|hold| ids.contains(&hold.id))
            .cloned()
            .collect()
    }
}

/// Holds seats of a showtime for `channel`: all of them in one atomic update, or none, each
/// seat as the ticket type of the same place in `request.ticket_types` at the showtime's price
/// for its kind and type. The hold gets the attempt's own id. An attempt that took an
/// idempotency key over first fences off the earlier attempts' hold ids: if one of them was
/// placed, it is the answer; otherwise none of them can ever be placed, and this attempt holds
/// seats under its own id. An attempt that finds its own id fenced off was replaced
/// (`Fenced`).
#[tracing::instrument(skip(store, locks, policy))]
pub async fn hold_seats(
    store: &Store,
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
        return batch::hold_in_batch(store, &locks.batches, showtime_id, job).await;
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
        match store
            .fence_holds(showtime_id, &attempt.earlier_ids())
            .await?
        {
            HoldFence::Fenced => {}
            HoldFence::Live(hold) => {
                let hold = with_kinds(store, showtime_id, *hold).await?;
                return Ok(HeldSeats { showtime, hold });
            }
            HoldFence::NoInventory => {
                return Err(ApiError::internal(format!(
                    "showtime {showtime_id} has no seat inventory"
                )))
            }
        }
    }
    let hold_id = attempt.own_id();
    // The products first: pricing them reads and writes nothing it would have to undo.
    let items = match request.items.is_empty() {
        true => Vec::new(),
        false => {
            Box::pin(concessions::hold_lines(
                store,
                &request.items,
                showtime.cinema.id,
            ))
            .await?
        }
    };
    let redemption = match &request.voucher {
        None => None,
        Some(voucher) => {
            Some(Box::pin(reserve_voucher(store, voucher, &showtime, hold_id, policy)).await?)
        }
    };
    let units = concessions::stocked(&items);
    if !units.is_empty() {
        let check_at = store::now() + hold_time(policy)?;
        let reserved = Box::pin(concessions::reserve(
            store,
            &items,
            hold_id,
            showtime.id,
            check_at,
        ))
        .await;
        if let Err(refusal) = reserved {
            if let Some(used) = &redemption {
                Box::pin(vouchers::give_back_or_leave(store, used, hold_id)).await;
            }
            return Err(refusal);
        }
        store.crash_point(CrashPoint::HoldAfterStockReserved)?;
    }
    let placed = place(
        store,
        channel,
        request,
        policy,
        &attempt,
        &showtime,
        Some(inventory),
        redemption.clone(),
        items,
    )
    .await;
    // A hold that was surely not placed gives its units back (its own reservation: an
    // earlier one of this hold id was never made, an attempt runs once); one whose write may
    // have happened leaves them to the concessions' reconciler, which looks at the hold.
    if let Err(error) = &placed {
        if !error.effect_unknown() && !units.is_empty() {
            Box::pin(concessions::give_back_or_leave(store, &units, hold_id)).await;
        }
    }
    match (placed, redemption) {
        // A hold this attempt had placed already carries its own redemption (never so today:
        // an attempt runs once), so the one reserved now would count twice: give it back,
        // leaving the customer's count (of the hold, once) to the hold's own.
        (Ok(hold), Some(used))
            if hold.voucher.as_ref().map(|v| v.redemption) != Some(used.redemption) =>
        {
            let ours = VoucherUseDoc {
                customer: None,
                ..used
            };
            Box::pin(vouchers::give_back_or_leave(store, &ours, hold_id)).await;
            Ok(HeldSeats { showtime, hold })
        }
        (Ok(hold), _) => Ok(HeldSeats { showtime, hold }),
        // A hold that was surely not placed gives its redemption back; one whose write may
        // have happened leaves it to the vouchers' reconciler, which looks at the hold.
        (Err(error), Some(used)) if !error.effect_unknown() => {
            Box::pin(vouchers::give_back_or_leave(store, &used, hold_id)).await;
            Err(error)
        }
        (Err(error), _) => Err(error),
    }
}

/// Reserves a redemption of the hold's voucher for hold `hold_id`, after its rules allow it
/// for this showtime now (VOUCHER_REFUSED otherwise). Its check is due when the hold would
/// expire.
async fn reserve_voucher(
    store: &Store,
    voucher: &HoldVoucher,
    showtime: &ShowtimeDoc,
    hold_id: HoldId,
    policy: &HoldPolicy,
) -> Result<VoucherUseDoc, ApiError> {
    let sale = SaleAt {
        cinema: showtime.cinema.id,
        movie: showtime.movie.id,
        showtime: showtime.id,
    };
    let now = store::now();
    let customer = voucher.customer.as_deref();
    if let Some(refusal) = voucher.found.voucher.refusal(&sale, now, customer) {
        return Err(refusal.error());
    }
    let claim = Claim {
        hold: hold_id,
        showtime: showtime.id,
        customer: None,
        check_at: now + hold_time(policy)?,
    };
    let reserved = vouchers::reserve(store, &voucher.found, customer, claim).await?;
    store.crash_point(CrashPoint::HoldAfterVoucherReserved)?;
    store
        .delay_point(DelayPoint::HoldAfterVoucherReserved)
        .await;
    Ok(reserved)
}

/// How long a hold lives.
pub(super) fn hold_time(policy: &HoldPolicy) -> Result<chrono::Duration, ApiError> {
    chrono::Duration::from_std(policy.ttl)
        .map_err(|error| ApiError::internal_caused("the hold time", error))
}

/// The hold's attempts: read the seats, choose, price, place; again when another hold took
/// the seats first.
#[allow(clippy::too_many_arguments)]
async fn place(
    store: &Store,
    channel: &str,
    request: &HoldRequest,
    policy: &HoldPolicy,
    attempt: &Attempt,
    showtime: &ShowtimeDoc,
    mut first_read: Option<Option<SeatInventoryDoc>>,
    redemption: Option<VoucherUseDoc>,
    items: Vec<HoldItemDoc>,
) -> Result<HoldDoc, ApiError> {
    let (showtime_id, choice) = (request.showtime, &request.choice);
    let ticket_types = &request.ticket_types;
    let (matrix, rules) = (showtime.price_matrix(), showtime.rules());
    let voucher = request.voucher.as_ref().map(|v| &v.found.voucher);
    let unlocked = voucher.and_then(|voucher| voucher.effect.unlocks());
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
        if snapshot.inventory.fenced_holds.contains(&hold_id) {
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
            .map(|&p| (snapshot.label(p), snapshot.seat(p).kind))
            .collect();
        let priced =
            seat_prices_unlocking(&matrix, &rules, channel, &seats, ticket_types, unlocked);
        let list = match priced {
            Ok(amounts) => amounts,
            Err(unpriced) => return Err(unpriced_error(store, unpriced).await),
        };
        let amounts = voucher.map_or_else(|| list.clone(), |voucher| voucher.prices(&list));
        let voucher_use = redemption.as_ref().map(|used| VoucherUseDoc {
            discount: list.iter().sum::<i64>() - amounts.iter().sum::<i64>(),
            ..used.clone()
        });
        // Seats of an expired hold are free to the next hold at once: expire it first (by the
        // database's clock), then take them.
        let mut expired_all = true;
        for expired in snapshot.expired_holds_on(&positions) {
            expired_all &= expire_hold(store, showtime_id, &expired, Expirer::NextHold).await?;
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
            unit_price: None,
            created_at: now,
            expires_at: now + ttl,
            extended_by: None,
            voucher: voucher_use.map(Box::new),
            items: items.clone(),
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

/// What a hold of named seats read before its first attempt (`read_named_seats`).
#[derive(Debug, Clone)]
pub struct FirstRead {
    /// The showtime's inventory, read after the request came.
    pub inventory: Option<SeatInventoryDoc>,
    /// SEAT_UNAVAILABLE when it shows some of the seats taken.
    pub refusal: Option<ApiError>,
}

/// For a hold of named seats, the showtime's inventory read before anything else: seats that
/// are taken need neither the showtime nor a claim on the idempotency key to refuse. On a hot
/// showtime most named holds ask for seats their buyer saw free a while ago (issue 34: at 600
/// buyers on 2 showtimes, refused holds sent a quarter of all commands, 4 each; now 2: this
/// read, and the key's record written with its answer, `once_unless_refused`). `None` for the
/// best seats, which are chosen on their batch's read.
pub async fn read_named_seats(
    store: &Store,
    request: &HoldRequest,
    policy: &HoldPolicy,
) -> Result<Option<FirstRead>, ApiError> {
    if !matches!(request.choice, SeatChoice::Named(_)) {
        return Ok(None);
    }
    let inventory = store.inventory(request.showtime).await?;
    let refusal = inventory
        .as_ref()
        // The showtime's refusal comes first (see `hold_seats`); its inventory says when it
        // is cancelled.
        .filter(|inventory| !inventory.cancelled)
        .and_then(|inventory| {
            match Snapshot::new(inventory.clone()).choose(&request.choice, policy) {
                Err(refusal @ ApiError::SeatUnavailable { .. }) => Some(refusal),
                _ => None,
            }
        });
    Ok(Some(FirstRead { inventory, refusal }))
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

/// `hold` with its seats' kinds (a hold made before holds kept them is looked up).
pub async fn with_kinds(
    store: &Store,
    showtime_id: ShowtimeId,
    hold: HoldDoc,
) -> Result<HoldDoc, ApiError> {
    if hold.kinds.len() == hold.seats.len() {
        return Ok(hold);
    }
    store
        .inventory(showtime_id)
        .await?
        .and_then(|inventory| inventory.with_kinds(&hold))
        .ok_or_else(|| ApiError::internal(format!("hold {}'s seats are not all there", hold.id)))
}

/// Releases a live hold of `channel` and returns its seats' labels. Another channel's hold,
/// an expired and swept hold and an unknown one are all NOT_FOUND: a channel learns nothing of
/// others' holds. A keyed release leaves, in the same update, a note of itself in the
/// inventory (until its answer is stored: `forget_release`), so an attempt that took the key
/// over answers with the release an earlier attempt made.
#[tracing::instrument(skip(store))]
pub async fn release_hold(
    store: &Store,
    channel: &str,
    showtime_id: ShowtimeId,
    hold_id: HoldId,
    attempt: Attempt,
) -> Result<Vec<String>, ApiError> {
    let not_found = || ApiError::not_found(format!("no live hold {hold_id} of channel {channel}"));
    let request = attempt.resource_id();
    let hold = store
        .hold_of(showtime_id, hold_id)
        .await?
        .filter(|hold| hold.channel == channel);
    let note = attempt.keyed().then_some(request);
    if let Some(hold) = hold {
        if store.release_hold(showtime_id, &hold, note).await? {
            super::give_back_reservations(store, &hold).await;
            if let Some(offer) = &hold.offer {
                // Its channel declined a waiting party's offer.
                let declined = Box::pin(waiting_list::declined(store, offer.entry, hold.id));
                if let Err(error) = declined.await {
                    tracing::warn!(%error, "an offer was released; its entry says so later");
                }
            }
            store.crash_point(CrashPoint::ReleaseAfterFree)?;
            return Ok(hold.seats);
        }
    }
    if attempt.taken_over() {
        if let Some(seats) = store.released_by(showtime_id, hold_id, request).await? {
            return Ok(seats);
        }
    }
    Err(not_found())
}

/// Drops the note a keyed release of `hold_id` left, once the release's answer is stored (a
/// retry then replays the answer and needs no note).
pub async fn forget_release(
    store: &Store,
    showtime_id: ShowtimeId,
    hold_id: HoldId,
) -> Result<(), ApiError> {
    store.forget_release(showtime_id, hold_id).await
}
