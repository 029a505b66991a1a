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
//! The queue is a relay of leaders: the request that finds no batch running leads one, with
//! every request queued by then; when it is done it hands the lead to the oldest request that
//! queued meanwhile, which runs the next batch with everything queued by then. So no request
//! waits for more than the batch before its own, and no leader is kept from answering its own
//! client by the crowd behind it. A request waits at most until a second before its deadline,
//! and while still queued it withdraws, having sent nothing (OVERLOADED); past
//! [`MAX_QUEUED`] a request is refused at once.
//!
//! Only plain holds go this way (best seats, no voucher, no products, no waiting-list offer,
//! not a take-over of an idempotency key): the others run on their own (`hold::place`), under
//! the showtime's lock. Correctness does not rest on the batching: the filter decides.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use tokio::sync::oneshot;

use super::hold::{
    cancelled, gave_up, hold_time, started, unpriced_error, HeldSeats, SeatChoice, Snapshot,
    MAX_ATTEMPTS,
};
use super::showtime_locks::LAST_SECOND;
use super::{expire_hold, HoldPolicy};
use crate::domain::ids::{HoldId, ShowtimeId};
use crate::domain::layout::SeatPosition;
use crate::domain::pricing::{seat_prices_unlocking, PriceEntry, TicketRule, TicketType};
use crate::domain::seat::SeatKind;
use crate::error::ApiError;
use crate::overload::deadline;
use crate::store::documents::{HoldDoc, ShowtimeDoc, ShowtimeStatus};
use crate::store::{self, Store};
use crate::telemetry::metrics::{self, Expirer};

/// Most requests queued for one showtime's next batch in this process.
pub const MAX_QUEUED: usize = 256;

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
}

/// What a queued request hears: its answer, or that it leads the next batch.
enum Turn {
    /// Boxed: a showtime document is large, and the answer travels through a channel.
    Done(Box<Result<HeldSeats, ApiError>>),
    Lead(Job),
}

type Reply = oneshot::Sender<Turn>;

/// One showtime's queue.
#[derive(Default)]
struct Queue {
    waiting: VecDeque<(Job, Reply)>,
    /// Whether a request leads a batch now (or has been told to).
    led: bool,
}

/// The queues of this process's showtimes.
#[derive(Default)]
pub struct Batches {
    queues: Mutex<HashMap<ShowtimeId, Queue>>,
}

impl std::fmt::Debug for Batches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batches").finish_non_exhaustive()
    }
}

/// How a request joins: it leads (no batch was running), or waits for its turn.
enum Joined {
    Lead(Job),
    Wait(oneshot::Receiver<Turn>),
}

impl Batches {
    fn join(&self, showtime: ShowtimeId, job: Job) -> Result<Joined, ApiError> {
        let mut queues = self.queues.lock().expect("batch queues");
        let queue = queues.entry(showtime).or_default();
        if !queue.led {
            queue.led = true;
            return Ok(Joined::Lead(job));
        }
        if queue.waiting.len() >= MAX_QUEUED {
            metrics::overload_refused("showtime_queue");
            return Err(ApiError::Overloaded(format!(
                "{} requests are already waiting for this showtime's seats; retry in a moment",
                queue.waiting.len()
            )));
        }
        let (reply, turn) = oneshot::channel();
        queue.waiting.push_back((job, reply));
        Ok(Joined::Wait(turn))
    }

    /// Everything queued for `showtime` now (the leader's batch).
    fn take(&self, showtime: ShowtimeId) -> Vec<(Job, Reply)> {
        let mut queues = self.queues.lock().expect("batch queues");
        (queues.get_mut(&showtime)).map_or_else(Vec::new, |queue| queue.waiting.drain(..).collect())
    }

    /// Puts `jobs` back at the head of the queue, in their order (a leader the door refused
    /// leaves its batch to the next).
    fn requeue(&self, showtime: ShowtimeId, jobs: Vec<(Job, Reply)>) {
        let mut queues = self.queues.lock().expect("batch queues");
        let queue = queues.entry(showtime).or_default();
        for job in jobs.into_iter().rev() {
            queue.waiting.push_front(job);
        }
    }

    /// Takes `hold`'s job out of the queue if it is still there (it has not been batched).
    fn withdraw(&self, showtime: ShowtimeId, hold: HoldId) -> bool {
        let mut queues = self.queues.lock().expect("batch queues");
        let Some(queue) = queues.get_mut(&showtime) else {
            return false;
        };
        let before = queue.waiting.len();
        queue.waiting.retain(|(job, _)| job.hold_id != hold);
        queue.waiting.len() < before
    }

    /// The batch is done: the oldest request queued meanwhile leads the next one (one that
    /// gave up is skipped: it sent nothing); with none, no batch runs.
    fn hand_over(&self, showtime: ShowtimeId) {
        let mut queues = self.queues.lock().expect("batch queues");
        let Some(queue) = queues.get_mut(&showtime) else {
            return;
        };
        while let Some((job, reply)) = queue.waiting.pop_front() {
            if reply.send(Turn::Lead(job)).is_ok() {
                return;
            }
        }
        queues.remove(&showtime);
    }
}

/// Hands the lead over when the leader is done, also when its request is dropped mid-batch
/// (a timeout): the queue never waits for a leader that is gone.
struct Leading<'a> {
    batches: &'a Batches,
    showtime: ShowtimeId,
}

impl Drop for Leading<'_> {
    fn drop(&mut self) {
        self.batches.hand_over(self.showtime);
    }
}

/// Whether `hold_seats` may place this request in a batch.
pub(super) fn batchable(request: &super::HoldRequest, taken_over: bool) -> bool {
    matches!(
        request.choice,
        SeatChoice::Best { .. } | SeatChoice::Scattered { .. }
    ) && request.voucher.is_none()
        && request.items.is_empty()
        && request.offer.is_none()
        && !taken_over
}

/// Holds `job`'s seats of `showtime` in the next batch of this process's holds of it.
pub(super) async fn hold_in_batch(
    store: &Store,
    batches: &Batches,
    showtime: ShowtimeId,
    job: Job,
) -> Result<HeldSeats, ApiError> {
    let hold = job.hold_id;
    let turn = match batches.join(showtime, job)? {
        Joined::Lead(job) => return lead(store, batches, showtime, job).await,
        Joined::Wait(turn) => turn,
    };
    store.note_hold_queued();
    let mut turn = turn;
    let waited = match deadline::remaining() {
        Some(left) => tokio::time::timeout(left.saturating_sub(LAST_SECOND), &mut turn).await,
        None => Ok((&mut turn).await),
    };
    let turn = match waited {
        Ok(turn) => turn,
        Err(_) if batches.withdraw(showtime, hold) => {
            metrics::overload_refused("showtime_queue");
            return Err(ApiError::Overloaded(
                "the request's time ran out waiting for this showtime's seats; retry in a \
                 moment"
                    .to_owned(),
            ));
        }
        // A batch took it, or it was told to lead: its answer comes.
        Err(_) => turn.await,
    };
    match turn {
        Ok(Turn::Done(answer)) => *answer,
        Ok(Turn::Lead(job)) => lead(store, batches, showtime, job).await,
        // The leader's request was dropped mid-batch: the hold may or may not be placed.
        Err(_) => Err(ApiError::unavailable(
            "the showtime's batch was interrupted; retry with the idempotency key",
        )),
    }
}

/// Leads one batch: `own` and everything queued now; answers the others, returns its own.
async fn lead(
    store: &Store,
    batches: &Batches,
    showtime: ShowtimeId,
    own: Job,
) -> Result<HeldSeats, ApiError> {
    let _leading = Leading { batches, showtime };
    let own_id = own.hold_id;
    let (own_reply, own_answer) = oneshot::channel();
    store
        .pause_point(crate::store::PausePoint::BatchBeforeTake)
        .await;
    let mut jobs = vec![(own, own_reply)];
    jobs.extend(batches.take(showtime));
    let unserved = place_batch(store, showtime, jobs).await;
    if !unserved.is_empty() {
        // The door refused the leader before the batch sent anything: the others go back to
        // the head of the queue, and the next leads them (the door decides for each).
        batches.requeue(showtime, unserved);
    }
    match own_answer.await {
        Ok(Turn::Done(answer)) => *answer,
        _ => Err(ApiError::internal(format!(
            "the batch left hold {own_id} without an answer"
        ))),
    }
}

/// Answers every job of `jobs` with `error`.
fn refuse_all(jobs: Vec<(Job, Reply)>, error: &ApiError) {
    for (_, reply) in jobs {
        let _ = reply.send(Turn::Done(Box::new(Err(error.clone()))));
    }
}

fn answer(reply: Reply, answer: Result<HeldSeats, ApiError>) {
    let _ = reply.send(Turn::Done(Box::new(answer)));
}

/// Places the holds of `jobs` (one showtime's, the leader's first), each answered on its
/// reply; returns the jobs it did not serve because the door refused the leader (whose own
/// job it answers so) before anything was sent.
async fn place_batch(
    store: &Store,
    showtime_id: ShowtimeId,
    mut jobs: Vec<(Job, Reply)>,
) -> Vec<(Job, Reply)> {
    let read = tokio::try_join!(
        store.showtimes_by_ids(std::slice::from_ref(&showtime_id)),
        store.inventory(showtime_id)
    );
    let (showtimes, inventory) = match read {
        Ok(read) => read,
        Err(refusal @ ApiError::Overloaded(_)) => {
            let (_, reply) = jobs.remove(0);
            answer(reply, Err(refusal));
            return jobs;
        }
        Err(error) => {
            refuse_all(jobs, &error);
            return Vec::new();
        }
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
    for (job, reply) in jobs {
        if showtime.sold_on(&job.channel) {
            pending.push((job, reply));
        } else {
            let error = ApiError::forbidden(format!(
                "channel {} does not sell this showtime",
                job.channel
            ));
            answer(reply, Err(error));
        }
    }
    let mut read = Some(inventory);
    for _ in 0..MAX_ATTEMPTS {
        if pending.is_empty() {
            return Vec::new();
        }
        pending = match attempt(store, &showtime, read.take(), pending).await {
            Ok(lost) => lost,
            Err((jobs, error)) => {
                refuse_all(jobs, &error);
                return Vec::new();
            }
        };
    }
    refuse_all(pending, &gave_up(Vec::new()));
    Vec::new()
}

/// A hold a batch chose for a job.
struct Chosen {
    job: Job,
    reply: Reply,
    hold: HoldDoc,
    positions: Vec<SeatPosition>,
}

/// One try of a batch on `read` (or a fresh read of the inventory): answers the jobs it
/// places or refuses, and returns those whose seats another hold took first (to try again).
async fn attempt(
    store: &Store,
    showtime: &ShowtimeDoc,
    read: Option<Option<crate::store::documents::SeatInventoryDoc>>,
    jobs: Vec<(Job, Reply)>,
) -> Result<Vec<(Job, Reply)>, (Vec<(Job, Reply)>, ApiError)> {
    let showtime_id = showtime.id;
    if showtime.starts_at <= store::now() {
        return Err((jobs, started()));
    }
    let inventory = match read {
        Some(inventory) => inventory,
        None => match store.inventory(showtime_id).await {
            Ok(inventory) => inventory,
            Err(error) => return Err((jobs, error)),
        },
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
    for (job, reply) in jobs {
        match choose(store, &prices, &mut snapshot, &job).await {
            Ok(Choice::Hold(hold, positions)) => chosen.push(Chosen {
                job,
                reply,
                hold,
                positions,
            }),
            Ok(Choice::Placed(hold)) => answer(
                reply,
                Ok(HeldSeats {
                    showtime: showtime.clone(),
                    hold,
                }),
            ),
            Err(refusal) => answer(reply, Err(refusal)),
        }
    }
    let lost = |chosen: Vec<Chosen>| {
        (chosen.into_iter())
            .map(|chosen| (chosen.job, chosen.reply))
            .collect::<Vec<_>>()
    };
    if chosen.is_empty() {
        return Ok(Vec::new());
    }
    // Seats of an expired hold are free to the next hold at once: expire it first (by the
    // database's clock), then take them.
    let positions: Vec<SeatPosition> = (chosen.iter())
        .flat_map(|chosen| chosen.positions.iter().copied())
        .collect();
    let mut expired_all = true;
    for expired in snapshot.expired_holds_on(&positions) {
        match expire_hold(store, showtime_id, &expired, Expirer::NextHold).await {
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
            for chosen in chosen {
                metrics::hold_placed();
                let held = HeldSeats {
                    showtime: showtime.clone(),
                    hold: chosen.hold,
                };
                answer(chosen.reply, Ok(held));
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
    snapshot.take(&positions);
    let now = store::now();
    let hold = HoldDoc {
        id: job.hold_id,
        channel: job.channel.clone(),
        kinds: seats.iter().map(|(_, kind)| *kind).collect(),
        seats: seats.into_iter().map(|(label, _)| label).collect(),
        ticket_types: job.ticket_types.clone(),
        amounts,
        unit_price: None,
        created_at: now,
        expires_at: now + hold_time(&job.policy)?,
        extended_by: None,
        voucher: None,
        items: Vec::new(),
        offer: None,
    };
    Ok(Choice::Hold(hold, positions))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(hold: u8) -> Job {
        Job {
            channel: "maoyan".into(),
            choice: SeatChoice::Best {
                count: 2,
                kind: SeatKind::Standard,
            },
            ticket_types: Vec::new(),
            hold_id: HoldId([hold; 12]),
            attempt: 1,
            policy: crate::config::SalesArgs::default().hold_policy(),
        }
    }

    #[test]
    fn the_first_request_leads_the_next_wait_and_the_lead_passes_to_the_oldest() {
        let batches = Batches::default();
        let showtime = ShowtimeId([1; 12]);
        assert!(matches!(
            batches.join(showtime, job(1)),
            Ok(Joined::Lead(_))
        ));
        let Ok(Joined::Wait(mut second)) = batches.join(showtime, job(2)) else {
            panic!("a batch runs: the second waits");
        };
        let Ok(Joined::Wait(mut third)) = batches.join(showtime, job(3)) else {
            panic!("and so does the third");
        };
        // Another showtime has its own queue.
        assert!(matches!(
            batches.join(ShowtimeId([2; 12]), job(4)),
            Ok(Joined::Lead(_))
        ));
        batches.hand_over(showtime);
        match second.try_recv() {
            Ok(Turn::Lead(job)) => assert_eq!(job.hold_id, HoldId([2; 12])),
            _ => panic!("the oldest leads next"),
        }
        assert!(third.try_recv().is_err(), "the third still waits");
        let taken = batches.take(showtime);
        assert_eq!(taken.len(), 1, "the new leader's batch takes the third");
        drop(taken);
        batches.hand_over(showtime);
        assert!(
            matches!(batches.join(showtime, job(5)), Ok(Joined::Lead(_))),
            "no one waits: the next request leads"
        );
    }

    #[test]
    fn a_request_still_queued_withdraws_and_one_that_gave_up_is_skipped() {
        let batches = Batches::default();
        let showtime = ShowtimeId([1; 12]);
        let _lead = batches.join(showtime, job(1));
        let gone = batches.join(showtime, job(2));
        let Ok(Joined::Wait(mut kept)) = batches.join(showtime, job(3)) else {
            panic!("waits");
        };
        assert!(batches.withdraw(showtime, HoldId([3; 12])));
        assert!(!batches.withdraw(showtime, HoldId([3; 12])), "once");
        let Ok(Joined::Wait(mut last)) = batches.join(showtime, job(4)) else {
            panic!("waits");
        };
        drop(gone);
        batches.hand_over(showtime);
        assert!(kept.try_recv().is_err(), "withdrawn: never told");
        assert!(
            matches!(last.try_recv(), Ok(Turn::Lead(_))),
            "the gone one is skipped"
        );
    }

    #[test]
    fn jobs_put_back_lead_next_in_their_order() {
        let batches = Batches::default();
        let showtime = ShowtimeId([1; 12]);
        let _lead = batches.join(showtime, job(1));
        let Ok(Joined::Wait(mut later)) = batches.join(showtime, job(4)) else {
            panic!("waits");
        };
        let (first, mut first_turn) = oneshot::channel();
        let (second, mut second_turn) = oneshot::channel();
        batches.requeue(showtime, vec![(job(2), first), (job(3), second)]);
        batches.hand_over(showtime);
        assert!(
            matches!(first_turn.try_recv(), Ok(Turn::Lead(job)) if job.hold_id == HoldId([2; 12]))
        );
        let taken: Vec<HoldId> = (batches.take(showtime).into_iter())
            .map(|(job, _)| job.hold_id)
            .collect();
        assert_eq!(
            taken,
            [HoldId([3; 12]), HoldId([4; 12])],
            "then the rest, in order"
        );
        assert!(second_turn.try_recv().is_err() && later.try_recv().is_err());
    }

    #[test]
    fn past_the_cap_a_request_is_refused_at_once() {
        let batches = Batches::default();
        let showtime = ShowtimeId([1; 12]);
        let _lead = batches.join(showtime, job(0));
        let waiting: Vec<_> = (0..MAX_QUEUED)
            .map(|i| {
                let mut id = [9; 12];
                id[..8].copy_from_slice(&(i as u64).to_le_bytes());
                let mut job = job(0);
                job.hold_id = HoldId(id);
                let Ok(joined) = batches.join(showtime, job) else {
                    panic!("room for {i}");
                };
                joined
            })
            .collect();
        let refused = batches.join(showtime, job(1));
        assert!(matches!(refused, Err(ApiError::Overloaded(_))));
        drop(waiting);
    }
}
