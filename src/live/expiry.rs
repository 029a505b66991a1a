//! Holds expire on time where someone watches: the gateway that serves a showtime's live
//! subscribers knows its live holds (from the map it read and from the feed) and, at each
//! hold's `expiresAt`, runs the same conditional expiry the sweeper runs. Its filter still
//! judges the hold by the database's clock: a gateway whose clock runs ahead simply tries
//! again a moment later. Unwatched showtimes are left to the sweeper.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::Notify;

use super::{watched, Inner};
use crate::domain::ids::ShowtimeId;
use crate::error::ApiError;
use crate::inventory::HoldsSeen;
use crate::store::documents::HoldDoc;
use crate::store::Store;

/// After a hold's `expiresAt`, how long before the expiry is tried (the database's `$lt` is
/// strict).
const GRACE_MS: i64 = 5;
/// How often, and how many times, an expiry the database refused is tried again.
const RETRY_MS: i64 = 100;
const ATTEMPTS: u32 = 10;
/// Expiries run at once.
const CONCURRENT: usize = 8;
/// The longest the timer sleeps without looking again (so it notices a dropped hub).
const LONGEST_SLEEP: Duration = Duration::from_secs(1);

/// Expires a hold whose time has come by the database's clock: the holds' own expiry (its
/// seats back to sale, what it carried given back), wired where the process is assembled
/// (`crate::assembly`), so live feeds name no holds code.
#[async_trait::async_trait]
pub trait ExpireOnTime: Send + Sync {
    /// False when `hold` is not expired yet by the database's clock, or is gone.
    async fn expire(
        &self,
        store: &Store,
        showtime: ShowtimeId,
        hold: &HoldDoc,
    ) -> Result<bool, ApiError>;
}

/// The live holds of watched showtimes and when each is due.
#[derive(Default)]
pub(super) struct Expiry {
    state: Mutex<State>,
    due_earlier: Notify,
}

#[derive(Default)]
struct State {
    holds: HashMap<ShowtimeId, Vec<HoldDoc>>,
    /// (when, showtime, hold id, attempt).
    queue: BTreeSet<(i64, ShowtimeId, [u8; 12], u32)>,
}

impl Expiry {
    /// Records the holds a map read or a feed change showed for `showtime`.
    pub(super) fn saw(&self, showtime: ShowtimeId, seen: HoldsSeen) {
        let mut state = self.state.lock().expect("expiry lock");
        let known = state.holds.entry(showtime).or_default();
        let (replace, holds) = match seen {
            HoldsSeen::All(holds) => (true, holds),
            HoldsSeen::Added(holds) => (false, holds),
        };
        if replace {
            known.clear();
        }
        let mut due = Vec::new();
        for hold in holds {
            let entry = (
                hold.expires_at.timestamp_millis() + GRACE_MS,
                showtime,
                hold.id.bytes(),
                0,
            );
            match known.iter_mut().find(|known| known.id == hold.id) {
                None => known.push(hold),
                // Extended: due later (the entry at the old expiry is skipped).
                Some(known) if known.expires_at != hold.expires_at => *known = hold,
                Some(_) => continue,
            }
            due.push(entry);
        }
        let earliest = state.queue.first().map(|entry| entry.0);
        let sooner = due
            .iter()
            .any(|entry| earliest.is_none_or(|at| entry.0 < at));
        state.queue.extend(due);
        drop(state);
        if sooner {
            self.due_earlier.notify_one();
        }
    }

    /// The holds due by `now` that are still known, taken off the queue.
    fn take_due(&self, now: i64, hub: &Inner) -> Vec<(ShowtimeId, HoldDoc, u32)> {
        let mut state = self.state.lock().expect("expiry lock");
        let mut due = Vec::new();
        while let Some(&(at, showtime, id, attempt)) = state.queue.first() {
            if at > now {
                break;
            }
            state.queue.pop_first();
            if watched(&hub.seat_topics, &showtime).is_none() {
                state.holds.remove(&showtime);
                continue;
            }
            // An entry due before its hold's expiry is one from before an extension.
            let hold = state
                .holds
                .get(&showtime)
                .and_then(|holds| holds.iter().find(|hold| hold.id.bytes() == id))
                .filter(|hold| at >= hold.expires_at.timestamp_millis() + GRACE_MS);
            if let Some(hold) = hold {
                due.push((showtime, hold.clone(), attempt));
            }
        }
        due
    }

    fn retry(&self, at: i64, showtime: ShowtimeId, hold: &HoldDoc, attempt: u32) {
        let mut state = self.state.lock().expect("expiry lock");
        state.queue.insert((at, showtime, hold.id.bytes(), attempt));
    }

    fn next_due(&self) -> Option<i64> {
        self.state
            .lock()
            .expect("expiry lock")
            .queue
            .first()
            .map(|entry| entry.0)
    }
}

/// Expires the known holds as they fall due, until the hub is dropped.
pub(super) async fn run(hub: Weak<Inner>, expiry: Arc<Expiry>) {
    loop {
        let now = chrono::Utc::now().timestamp_millis();
        let wait = match expiry.next_due() {
            Some(at) if at <= now => Duration::ZERO,
            Some(at) => Duration::from_millis((at - now) as u64).min(LONGEST_SLEEP),
            None => LONGEST_SLEEP,
        };
        if !wait.is_zero() {
            let _ = tokio::time::timeout(wait, expiry.due_earlier.notified()).await;
        }
        let Some(hub) = hub.upgrade() else { return };
        let now = chrono::Utc::now().timestamp_millis();
        let due = expiry.take_due(now, &hub);
        let (store, expire) = (hub.store.clone(), Arc::clone(&hub.expire));
        drop(hub);
        futures::stream::iter(due)
            .for_each_concurrent(CONCURRENT, |(showtime, hold, attempt)| {
                let (store, expiry, expire) =
                    (store.clone(), Arc::clone(&expiry), Arc::clone(&expire));
                async move {
                    let expired = expire.expire(&store, showtime, &hold).await;
                    let again = match expired {
                        Ok(true) => return,
                        Ok(false) => match store.hold_of(showtime, hold.id).await {
                            // Released, confirmed or expired by someone else.
                            Ok(None) => return,
                            // Extended (a feed need not say so in a form we read): due later.
                            Ok(Some(now)) if now.expires_at > hold.expires_at => {
                                return expiry.saw(showtime, HoldsSeen::Added(vec![now]));
                            }
                            // Not expired yet by the database's clock: a moment later.
                            _ => RETRY_MS,
                        },
                        Err(error) => {
                            tracing::warn!(%error, hold = %hold.id, "expiring a hold on time failed");
                            RETRY_MS * 5
                        }
                    };
                    if attempt + 1 < ATTEMPTS {
                        let at = chrono::Utc::now().timestamp_millis() + again;
                        expiry.retry(at, showtime, &hold, attempt + 1);
                    }
                }
            })
            .await;
    }
}
