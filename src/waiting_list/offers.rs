//! Offering freed seats to a showtime's waiting parties, in the order they joined.
//!
//! A pass over one showtime reads its line in order. Each party waiting, in turn, is offered
//! the seats that fit it (side by side when it asked so): they are held for its channel by an
//! ordinary hold, under the id the entry chose when it joined, and the hold's placement tells
//! the channel WAITING_LIST_OFFERED in the same inventory update. The first party that no
//! free seats fit ends the pass: a party behind it is never served first, so none is
//! skipped. Seats held for one party are never offered to another (the inventory's update
//! requires them AVAILABLE), and a party is never offered twice (its hold id is fixed, and a
//! hold id is placed once: a pass that finds it placed takes it as the offer). Any gateway
//! may run a pass at any time, concurrently too: a gateway that freed seats runs one at once
//! (`store::freed`) when the showtime may have a line (`lines`), and every gateway runs one
//! over every showtime with parties waiting each `PASS_EVERY`, which makes up for a gateway
//! that died between freeing seats and offering them.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::lines::KnownLines;
use super::store::documents::{EntryStateDoc, WaitingEntryDoc};
use crate::domain::ids::{ResourceId, ShowtimeId};
use crate::domain::pricing::TicketType;
use crate::error::ApiError;
use crate::holds::rules::HoldPolicy;
use crate::holds::{
    self, hold_fate, HoldEndings, HoldFate, HoldRequest, SeatChoice, ShowtimeLocks,
};
use crate::idempotency::Attempt;
use crate::orders::OrderLookups;
use crate::shutdown::Shutdown;
use crate::store::documents::{OfferDoc, OrderStatus};
use crate::store::{DelayPoint, Store};
use crate::telemetry::metrics::Expirer;

/// How often every gateway looks at every showtime with parties waiting.
pub const PASS_EVERY: Duration = Duration::from_secs(2);
/// After serving the showtimes it freed seats of, how long a gateway lets more frees gather
/// before it serves them: on a hot showtime every release, expiry and refund frees seats, and
/// each pass reads its line twice. Measured (issue 48's impatient client, 150 clients on 2
/// showtimes, one gateway): 0.70 reads of the waiting lists per successful seat change
/// without it. An offer comes at most this much later.
const FREED_GATHER: Duration = Duration::from_millis(100);
/// The most parties of one showtime one pass looks at (offered ones, then waiting ones).
const LINE: usize = 64;
/// The most showtimes one periodic pass looks at.
const SHOWTIMES: usize = 200;

/// What offers need: the hold policy they are made under, and the best-seat choosers' locks.
pub struct Offers {
    store: Store,
    endings: HoldEndings,
    locks: Arc<ShowtimeLocks>,
    policy: HoldPolicy,
    /// The showtimes this process knows to have a line.
    lines: Mutex<KnownLines>,
}

impl Offers {
    pub fn new(
        store: Store,
        endings: HoldEndings,
        locks: Arc<ShowtimeLocks>,
        policy: HoldPolicy,
    ) -> Self {
        Offers {
            store,
            endings,
            locks,
            policy,
            lines: Mutex::default(),
        }
    }

    /// Offers `showtime`'s freed seats to its waiting parties; how many offers it made.
    pub async fn serve(&self, showtime: ShowtimeId) -> Result<usize, ApiError> {
        serve_showtime(
            &self.store,
            &self.endings,
            &self.locks,
            &self.policy,
            showtime,
        )
        .await
    }

    /// Every showtime with parties waiting, served once; how many offers it made.
    pub async fn pass(&self) -> Result<usize, ApiError> {
        let started = Instant::now();
        let found = self.store.showtimes_with_parties(SHOWTIMES).await?;
        let complete = found.len() < SHOWTIMES;
        (self.lines.lock().expect("lines lock")).read(&found, complete, started);
        let mut offered = 0;
        for showtime in found {
            offered += self.serve(showtime).await?;
        }
        Ok(offered)
    }

    /// The showtimes of `freed` that may have parties waiting, after learning of the parties
    /// that joined through this process.
    fn with_lines(&self, mut freed: Vec<ShowtimeId>) -> Vec<ShowtimeId> {
        let joined = self.store.parties_joined();
        let mut lines = self.lines.lock().expect("lines lock");
        let now = Instant::now();
        for showtime in joined {
            lines.joined(showtime, now);
        }
        freed.retain(|showtime| lines.may_have_line(*showtime));
        freed
    }

    /// Serves the showtimes this process frees seats of as it frees them, and every
    /// showtime with parties waiting each `PASS_EVERY`, until `shutdown`.
    pub async fn run(self, shutdown: Shutdown) {
        let mut every = tokio::time::interval(PASS_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let mut freed_served = false;
            let outcome = tokio::select! {
                _ = shutdown.requested() => return,
                freed = self.store.freed_showtimes() => {
                    freed_served = true;
                    self.store.delay_point(DelayPoint::OfferAfterFree).await;
                    let mut offered = Ok(0);
                    for showtime in self.with_lines(freed) {
                        offered = self.serve(showtime).await;
                        if offered.is_err() {
                            break;
                        }
                    }
                    offered
                }
                _ = every.tick() => self.pass().await,
            };
            match outcome {
                Ok(0) => {}
                Ok(offered) => tracing::info!(offered, "offered freed seats to waiting parties"),
                Err(error) => tracing::warn!(%error, "offering seats to waiting parties failed"),
            }
            if freed_served {
                tokio::select! {
                    _ = shutdown.requested() => return,
                    _ = tokio::time::sleep(FREED_GATHER) => {}
                }
            }
        }
    }
}

/// One pass over `showtime`'s line: offers past their expiry settled, then waiting parties
/// offered seats in order until one does not fit. How many offers it made.
#[tracing::instrument(skip(store, endings, locks, policy))]
pub async fn serve_showtime(
    store: &Store,
    endings: &HoldEndings,
    locks: &ShowtimeLocks,
    policy: &HoldPolicy,
    showtime: ShowtimeId,
) -> Result<usize, ApiError> {
    // Only offers past their expiry are looked at (a confirmed one is settled when its entry
    // is read, or once its hold would have expired): a live offer costs a pass nothing more.
    let now = crate::store::now();
    for offered in store
        .waiting_entries(showtime, EntryStateDoc::Offered, LINE)
        .await?
        .iter()
        .filter(|entry| entry.offer_expires_at.is_none_or(|at| at <= now))
    {
        settle_offer(store, endings, offered).await?;
    }
    let mut offers = 0;
    for entry in store
        .waiting_entries(showtime, EntryStateDoc::Waiting, LINE)
        .await?
    {
        match Box::pin(offer(store, endings, locks, policy, &entry)).await? {
            Offer::Made => offers += 1,
            Offer::Closed => {}
            Offer::NoneFit => break,
        }
    }
    Ok(offers)
}

/// Holds seats that fit `entry`'s party for its channel, as its offer.
async fn offer(
    store: &Store,
    endings: &HoldEndings,
    locks: &ShowtimeLocks,
    policy: &HoldPolicy,
    entry: &WaitingEntryDoc,
) -> Result<Offer, ApiError> {
    let count = usize::try_from(entry.party_size)
        .map_err(|error| ApiError::internal_caused("a party's size", error))?;
    let kind = entry.kind;
    let request = HoldRequest {
        showtime: entry.showtime,
        choice: match entry.together {
            true => SeatChoice::Best { count, kind },
            false => SeatChoice::Scattered { count, kind },
        },
        ticket_types: vec![TicketType::adult(); count],
        carriage: None,
        offer: Some(OfferDoc {
            entry: entry.id,
            customer: entry.customer.clone(),
        }),
    };
    // The entry's own hold id: every gateway that makes this offer makes the same hold.
    let attempt = Attempt::of_resource(ResourceId(entry.hold.0));
    let held = holds::hold_seats(
        store,
        endings,
        locks,
        &entry.channel,
        &request,
        policy,
        attempt,
        None,
    )
    .await;
    let held = match held {
        Ok(held) => held,
        Err(ApiError::SeatUnavailable { .. }) => return Ok(Offer::NoneFit),
        // Started or cancelled (or no longer sold on the channel): no offer will ever come,
        // and the showtime's line is closed, so no pass looks at it again.
        Err(ApiError::BadUserInput(_)) => {
            let closed = store.close_waiting_entries(entry.showtime).await?;
            tracing::info!(showtime = %entry.showtime, closed, "closed a waiting list");
            return Ok(Offer::NoneFit);
        }
        // Its channel no longer sells the showtime: this party can never be served, the
        // next ones may.
        Err(ApiError::Forbidden(_)) => {
            let from = [EntryStateDoc::Waiting];
            let closed = EntryStateDoc::Closed;
            store
                .move_waiting_entry(entry.id, entry.hold, &from, closed, None)
                .await?;
            return Ok(Offer::Closed);
        }
        Err(error) => return Err(error),
    };
    let placed = Some((held.hold.created_at, held.hold.expires_at));
    let from = [EntryStateDoc::Waiting];
    store
        .move_waiting_entry(entry.id, entry.hold, &from, EntryStateDoc::Offered, placed)
        .await?;
    Ok(Offer::Made)
}

/// What one party's turn came to.
enum Offer {
    Made,
    /// No free seats fit it: the line stops here.
    NoneFit,
    /// It can never be served (its channel no longer sells the showtime): the line goes on.
    Closed,
}

/// Brings an OFFERED entry to where its hold is: confirmed (ACCEPTED), or gone unconfirmed
/// (LAPSED; a lapsed hold is expired first, by the database's clock). True when it moved.
pub async fn settle_offer(
    store: &Store,
    endings: &HoldEndings,
    entry: &WaitingEntryDoc,
) -> Result<bool, ApiError> {
    let to = match hold_fate(store, &OrderLookups, entry.showtime, entry.hold).await? {
        HoldFate::Live { .. } => return Ok(false),
        HoldFate::Lapsed(lapsed) => {
            if !holds::expire_hold(store, endings, entry.showtime, &lapsed, Expirer::Sweeper)
                .await?
            {
                return Ok(false);
            }
            EntryStateDoc::Lapsed
        }
        HoldFate::Ordered {
            status: OrderStatus::Pending,
            ..
        } => return Ok(false),
        HoldFate::Ordered { .. } => EntryStateDoc::Accepted,
        HoldFate::Gone => EntryStateDoc::Lapsed,
    };
    let from = [EntryStateDoc::Offered];
    store
        .move_waiting_entry(entry.id, entry.hold, &from, to, None)
        .await
}
