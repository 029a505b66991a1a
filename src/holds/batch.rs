//! Group commit of the best-available holds waiting for one showtime (issue 48).
//!
//! A blockbuster's first minute is one showtime with thousands of buyers, all asking for the
//! best seats. One after another, each hold reads the showtime and its inventory and writes
//! it: three commands a hold, and every buyer waits for all those before it. Together, the
//! holds that came while one batch was being placed are the next batch: ONE read of the
//! showtime and the inventory, seats chosen for each request in arrival order on that read
//! (each seeing the seats the previous ones took), and ONE conditional update placing them
//! all (`Store::place_holds`: every seat AVAILABLE in its filter, an outbox entry per hold).
//! When another gateway took a seat meanwhile the update matches nothing, and the batch reads
//! again and chooses again. Each request still gets its own answer (its hold, or its own
//! refusal: no seats left, not sold on its channel, fenced off), and its idempotency key's
//! record is its own.
//!
//! The queue is `group_commit`'s relay of leaders.
//!
//! Holds of named seats go this way too: a named seat that the batch's read (or an earlier
//! request of the batch) shows taken is refused from that read. A batch of one named hold
//! chooses on the read its request made before claiming its key (`hold::read_named_seats`),
//! so a quiet evening's named hold reads the inventory once, as on its own; if the read is
//! stale by then, the update matches nothing and the batch reads again.
//!
//! Only plain holds go this way (best or named seats, no voucher, no products, no
//! waiting-list offer, not a take-over of an idempotency key): the others run on their own
//! (`hold::place`), under the showtime's lock. Correctness does not rest on the batching: the
//! filter decides.

use super::choice::{SeatChoice, Snapshot};
use super::hold::{
    cancelled, gave_up, hold_time, started, unpriced_error, HeldSeats, MAX_ATTEMPTS,
};
use super::seen::{ReadAt, SeenSeats};
use super::{expire_hold, HoldEndings, HoldPolicy, ShowtimeLocks};
use crate::domain::ids::{HoldId, ShowtimeId};
use crate::domain::layout::SeatPosition;
use crate::domain::pricing::{seat_prices_unlocking, PriceEntry, TicketRule, TicketType};
use crate::domain::seat::SeatKind;
use crate::error::ApiError;
use crate::group_commit::{read_failed, refuse_all, Entry, Queues};
use crate::store::documents::{HoldDoc, SeatInventoryDoc, ShowtimeDoc, ShowtimeStatus};
use crate::store::{self, Store};
use crate::telemetry::metrics::{self, Expirer};

/// One request's hold, as a batch places it.
#[derive(Debug)]
pub(super) struct Job {
    pub channel: String,
    pub choice: SeatChoice,
    pub ticket_types: Vec<TicketType>,
    pub hold_id: HoldId,
    /// The idempotency attempt's number (a fenced-off attempt is told which).
    pub attempt: i32,
    pub policy: HoldPolicy,
    /// The inventory the request read before it claimed its key (named seats only).
    pub first_read: Option<SeatInventoryDoc>,
}

/// The queues of this process's showtimes' holds.
pub type Batches = Queues<ShowtimeId, Job, HeldSeats>;

type Queued = Entry<Job, HeldSeats>;

/// Whether `hold_seats` may place this request in a batch.
pub(super) fn batchable(request: &super::HoldRequest, taken_over: bool) -> bool {
    request.carriage.is_none() && request.offer.is_none() && !taken_over
}

/// Holds `job`'s seats of `showtime` in the next batch of this process's holds of it.
pub(super) async fn hold_in_batch(
    store: &Store,
    endings: &HoldEndings,
    locks: &ShowtimeLocks,
    showtime: ShowtimeId,
    job: Job,
) -> Result<HeldSeats, ApiError> {
    let seen = &locks.seen;
    locks
        .batches
        .run(
            showtime,
            job,
            || store.pause_point(crate::store::PausePoint::BatchBeforeTake),
            || store.note_hold_queued(),
            |entries| place_batch(store, endings, seen, showtime, entries),
        )
        .await
}

/// A read of a showtime's inventory, and when it was sent (`None`: before the batch, by its
/// request, which took no mark; its view is not kept).
struct Read {
    inventory: Option<SeatInventoryDoc>,
    at: Option<ReadAt>,
}

/// Places the holds of `jobs` (one showtime's, the leader's first), each answered on its
/// entry; returns the jobs it did not serve because the door refused the leader (whose own
/// job it answers so) before anything was sent.
async fn place_batch(
    store: &Store,
    endings: &HoldEndings,
    seen: &SeenSeats,
    showtime_id: ShowtimeId,
    mut jobs: Vec<Queued>,
) -> Vec<Queued> {
    let first_read = match jobs.as_mut_slice() {
        [only] => only.job.first_read.take(),
        _ => None,
    };
    let read_at = first_read.is_none().then(|| ReadAt::now(store));
    let showtimes = store.showtimes_by_ids(std::slice::from_ref(&showtime_id));
    let read = match first_read {
        Some(inventory) => showtimes
            .await
            .map(|showtimes| (showtimes, Some(inventory))),
        None => tokio::try_join!(showtimes, store.inventory(showtime_id)),
    };
    let (showtimes, inventory) = match read {
        Ok(read) => read,
        Err(error) => return read_failed(jobs, error),
    };
    let Some(showtime) = showtimes.into_iter().next() else {
        let error = ApiError::not_found(format!("showtime {showtime_id} does not exist"));
        refuse_all(jobs, &error);
        return Vec::new();
    };
    if showtime.status != ShowtimeStatus::Scheduled {
        refuse_all(jobs, &cancelled(showtime_id));
        return Vec::new();
    }
    let mut pending = Vec::with_capacity(jobs.len());
    for entry in jobs {
        if showtime.sold_on(&entry.job.channel) {
            pending.push(entry);
        } else {
            let error = ApiError::forbidden(format!(
                "channel {} does not sell this showtime",
                entry.job.channel
            ));
            entry.answer(Err(error));
        }
    }
    let mut read = Some(Read {
        inventory,
        at: read_at,
    });
    for _ in 0..MAX_ATTEMPTS {
        if pending.is_empty() {
            return Vec::new();
        }
        pending = match attempt(store, endings, seen, &showtime, read.take(), pending).await {
            Ok(lost) => lost,
            Err((jobs, error)) => {
                refuse_all(jobs, &error);
                return Vec::new();
            }
        };
    }
    for entry in pending {
        let seats = match &entry.job.choice {
            SeatChoice::Named(labels) => labels.clone(),
            SeatChoice::Best { .. } | SeatChoice::Scattered { .. } => Vec::new(),
        };
        entry.answer(Err(gave_up(seats)));
    }
    Vec::new()
}

/// A hold a batch chose for a job.
struct Chosen {
    entry: Queued,
    hold: HoldDoc,
    positions: Vec<SeatPosition>,
}

/// One try of a batch on `read` (or a fresh read of the inventory): answers the jobs it
/// places or refuses, and returns those whose seats another hold took first (to try again).
async fn attempt(
    store: &Store,
    endings: &HoldEndings,
    seen: &SeenSeats,
    showtime: &ShowtimeDoc,
    read: Option<Read>,
    jobs: Vec<Queued>,
) -> Result<Vec<Queued>, (Vec<Queued>, ApiError)> {
    let showtime_id = showtime.id;
    if showtime.starts_at <= store::now() {
        return Err((jobs, started()));
    }
    let Read { inventory, at } = match read {
        Some(read) => read,
        None => {
            let at = ReadAt::now(store);
            match store.inventory(showtime_id).await {
                Ok(inventory) => Read {
                    inventory,
                    at: Some(at),
                },
                Err(error) => return Err((jobs, error)),
            }
        }
    };
    let Some(inventory) = inventory else {
        let error = ApiError::internal(format!("showtime {showtime_id} has no seat inventory"));
        return Err((jobs, error));
    };
    // The inventory's mark decides (the hold's filter requires it unset).
    if inventory.cancelled {
        return Err((jobs, cancelled(showtime_id)));
    }
    let mut snapshot = Snapshot::new(inventory);
    // Once for the batch: every job is priced on the same showtime.
    let prices = (showtime.price_matrix(), showtime.rules());
    let mut chosen = Vec::with_capacity(jobs.len());
    for entry in jobs {
        match choose(store, &prices, &mut snapshot, &entry.job).await {
            Ok(Choice::Hold(hold, positions)) => chosen.push(Chosen {
                entry,
                hold,
                positions,
            }),
            Ok(Choice::Placed(hold)) => entry.answer(Ok(HeldSeats {
                showtime: showtime.clone(),
                hold,
            })),
            Err(refusal) => entry.answer(Err(refusal)),
        }
    }
    let lost = |chosen: Vec<Chosen>| {
        (chosen.into_iter())
            .map(|chosen| chosen.entry)
            .collect::<Vec<_>>()
    };
    if chosen.is_empty() {
        // Refused all on this read: the next holds may be refused on it too (`seen`).
        if let Some(at) = at {
            seen.note(showtime, snapshot, at);
        }
        return Ok(Vec::new());
    }
    // Seats of an expired hold are free to the next hold at once: expire it first (by the
    // database's clock), then take them.
    let positions: Vec<SeatPosition> = (chosen.iter())
        .flat_map(|chosen| chosen.positions.iter().copied())
        .collect();
    let mut expired_all = true;
    for expired in snapshot.expired_holds_on(&positions) {
        match expire_hold(store, endings, showtime_id, &expired, Expirer::NextHold).await {
            Ok(expired) => expired_all &= expired,
            Err(error) => return Err((lost(chosen), error)),
        }
    }
    if !expired_all {
        return Ok(lost(chosen));
    }
    let holds: Vec<HoldDoc> = chosen.iter().map(|chosen| chosen.hold.clone()).collect();
    match store.place_holds(showtime_id, &holds).await {
        Ok(true) => {
            // What it read, with what it took: refuses the next holds while it is good.
            if let Some(at) = at {
                seen.note(showtime, snapshot, at);
            }
            for chosen in chosen {
                metrics::hold_placed();
                let held = HeldSeats {
                    showtime: showtime.clone(),
                    hold: chosen.hold,
                };
                chosen.entry.answer(Ok(held));
            }
            Ok(Vec::new())
        }
        Ok(false) => Ok(lost(chosen)),
        Err(error) => Err((lost(chosen), error)),
    }
}

/// What a batch makes of one job on its read.
enum Choice {
    /// A hold to place, and its seats.
    Hold(HoldDoc, Vec<SeatPosition>),
    /// The job's hold is there already (an earlier attempt of its key placed it).
    Placed(HoldDoc),
}

/// Chooses `job`'s seats on `snapshot` (taking them there, so the next job sees them taken)
/// and prices them; its refusal otherwise.
async fn choose(
    store: &Store,
    (matrix, rules): &(Vec<PriceEntry>, Vec<TicketRule>),
    snapshot: &mut Snapshot,
    job: &Job,
) -> Result<Choice, ApiError> {
    if snapshot.is_fenced(job.hold_id) {
        return Err(ApiError::Fenced {
            attempt: job.attempt,
        });
    }
    if let Some(hold) = snapshot.existing_hold(job.hold_id, &job.channel) {
        return Ok(Choice::Placed(hold));
    }
    let positions = snapshot.choose(&job.choice, &job.policy)?;
    let seats: Vec<(String, SeatKind)> = (positions.iter())
        .map(|&p| (snapshot.label(p), snapshot.kind(p)))
        .collect();
    let amounts =
        match seat_prices_unlocking(matrix, rules, &job.channel, &seats, &job.ticket_types, None) {
            Ok(amounts) => amounts,
            Err(unpriced) => return Err(unpriced_error(store, unpriced).await),
        };
    let now = store::now();
    let expires_at = now + hold_time(&job.policy)?;
    snapshot.take(&positions, expires_at);
    let hold = HoldDoc {
        id: job.hold_id,
        channel: job.channel.clone(),
        kinds: seats.iter().map(|(_, kind)| *kind).collect(),
        seats: seats.into_iter().map(|(label, _)| label).collect(),
        ticket_types: job.ticket_types.clone(),
        amounts,
        created_at: now,
        expires_at,
        extended_by: None,
        voucher: None,
        items: Vec::new(),
        offer: None,
    };
    Ok(Choice::Hold(hold, positions))
}
