//! The event relay: turns the outbox entries changes leave on their documents into events of
//! the channels' logs (`store::outbox`, `store::events`).
//!
//! *Never lost.* An entry is written in the same update as its change, and leaves its
//! document only after its events are in the log. The process that made the change relays it
//! at once, from the entries it noted (no read); a background pass relays entries older than
//! [`STALE_AFTER`], which only a gateway that died (or stalled, or failed to append) between
//! its write and its relay leaves behind.
//!
//! *Never twice, never out of order.* An event's id is its entry's and its channel's, unique
//! in the log, so an entry relayed by two gateways (or again after a crash) is appended once.
//! A channel's event is appended as sequence `n + 1` only after this relay saw `n` in the log
//! (it read it, or appended it itself), and `{channel, sequence}` is unique: every reader
//! sees a gap-free prefix of the log, whichever gateways append. A document's entries are
//! appended in its order, whichever gateways made them: a seat change's note holds the
//! entries before its own on the document (`store::outbox`), and the live relay appends none
//! of its own before those are in the logs. With one appender per log (`handoff`), it sends
//! them all, in the document's order, to the log's appender, which remembers for a while what
//! it appended (`theirs_in_log`) and skips what comes again (from its own relay, or from
//! another gateway that saw the same document): no read, no wait, and no race for sequence
//! numbers. Without, it first reads the tails of the logs it appends to (one read, only when
//! there are such entries), which shows what the other gateway appended and where the logs
//! end; entries of the other gateway not there yet and made less than [`OWNER_GRACE`] ago are
//! left to it, and the document's entries from there wait for the next round; older ones it
//! appends itself. So a channel's events of one showtime keep the order of its changes.
//!
//! *Cheap on the booking path.* Pulling entries off a document is an update of the whole
//! document: the live relay pulls what it appended off in one update per [`CLEAR_AFTER`], or
//! per [`CLEAR_AT`](super::uncleared::CLEAR_AT) entries on one document if sooner (a busy
//! showtime's inventory is not rewritten once more for every change, nor left to grow). It
//! relays at most once per [`LIVE_EVERY`]: under load one insert per channel carries many
//! changes' events, and the handler of grown logs (`growth`; webhooks marks endpoints due) is
//! told once.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::growth::LogsGrew;
use super::handoff::Appenders;
use super::in_time_order::in_time_order;
use super::theirs_in_log::TheirsInLog;
use super::uncleared::Uncleared;
use crate::channel_events::store::documents::EventDoc;
use crate::domain::ids::{EventId, OrderId, ShowtimeId};
use crate::error::ApiError;
use crate::keyed_locks::KeyedLocks;
use crate::store::documents::OutboxEntryDoc;
use crate::store::NotedOutboxes;
use crate::store::{self, DelayPoint, OutboxSource, PausePoint, Store};

/// How old an unrelayed entry is before the background pass takes it from the gateway that
/// made it.
pub const STALE_AFTER: Duration = Duration::from_secs(5);

/// How long the live relay leaves entries it appended on their documents before it pulls
/// them off (all of them in one update per collection).
pub const CLEAR_AFTER: Duration = Duration::from_millis(100);

/// How often the live relay relays at most: changes made within this time of its last relay
/// wait for its next, and go together (one read of the log, one insert per channel, one
/// telling of the grown logs for all of them). The first change after a quiet spell goes at once.
/// N gateways sharing the logs out each relay at most once per N times this: each round
/// inserts into every log it has events for, its own or handed to the log's appender, so N
/// relays at this pace each inserted N times as often into each log as one relay (issue 48,
/// impatient clients: 0.71 to 0.81 inserts per seat change with two gateways, 0.54 to 0.62
/// with one; paced, two gateways made 0.48 to 0.62).
pub const LIVE_EVERY: Duration = Duration::from_millis(20);

/// The slowest pace of the live relay, in [`LIVE_EVERY`]s, however many gateways share the logs.
const MOST_PACE: u32 = 8;

/// How long the live relay leaves another gateway's change to it before appending its events
/// itself (when a change of this gateway follows it on a document; see `theirs_in_log`).
pub const OWNER_GRACE: Duration = Duration::from_millis(500);

/// How many events the live relay reads at most when it catches up with the logs it appends
/// to (more were appended meanwhile: its appends then find out, one by one).
pub(super) const TAIL_MOST: usize = 1_000;

/// Documents one background pass reads at most, per collection and batch.
const STALE_BATCH: usize = 100;

/// Appends outbox entries to the channels' logs.
pub struct EventRelay {
    pub(super) store: Store,
    /// The last sequence number seen of each channel's log.
    pub(super) heads: Mutex<HashMap<String, i64>>,
    /// One relay of this object at a time (the background pass has its own; two relays
    /// appending at once only cost retries: the unique indexes decide).
    turn: tokio::sync::Mutex<()>,
    /// Entries appended and still on their documents (the live relay's; a pass clears at once).
    uncleared: Mutex<Uncleared>,
    /// Told of the channels whose logs grew (webhooks, as the process is assembled).
    pub(super) grew: Arc<dyn LogsGrew>,
    /// Other gateways' events known to be in the logs (seen on the change feed, or read).
    pub(super) theirs: Mutex<TheirsInLog>,
    /// Documents the live relay set aside for its next round, and which of their entries are
    /// this process's.
    aside: Mutex<NotedOutboxes>,
    /// Who appends other channels' events (`handoff`; None: this relay appends every one).
    pub(super) appenders: std::sync::RwLock<Option<Arc<dyn Appenders>>>,
    /// One append to a channel's log at a time in this process (its live rounds, its passes
    /// and what other gateways hand it), so they do not race each other for sequence numbers.
    pub(super) log_locks: KeyedLocks<String>,
}

/// Who runs a relay: the live relay of this process's changes (knowing which entries they
/// left; the others were on the documents before them), or a background pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Relayer<'a> {
    Live(&'a HashSet<EventId>),
    Pass,
}

impl EventRelay {
    /// A relay sending its commands through `store`'s background lane (no request waits for it,
    /// and it must not take the connections requests need), telling `grew` of the logs it
    /// appends to.
    pub fn new(store: Store, grew: Arc<dyn LogsGrew>) -> Arc<Self> {
        Arc::new(EventRelay {
            store: store.background(),
            heads: Mutex::default(),
            turn: tokio::sync::Mutex::new(()),
            uncleared: Mutex::default(),
            grew,
            theirs: Mutex::default(),
            aside: Mutex::default(),
            appenders: std::sync::RwLock::default(),
            log_locks: KeyedLocks::default(),
        })
    }

    /// Relays the entries this process's changes leave, as they are made, for as long as the
    /// process runs. A failure leaves them for the background pass.
    pub async fn run(self: Arc<Self>) {
        let mut last: Option<Instant> = None;
        loop {
            let chore = self.next_chore();
            let aside = !self.aside.lock().expect("aside lock").is_empty();
            tokio::select! {
                () = self.store.outboxes_noted() => {}
                // Documents set aside go in the next round, with or without new changes.
                () = std::future::ready(()), if aside => {}
                () = tokio::time::sleep_until(chore.unwrap_or_else(far_future)), if chore.is_some() => {
                    self.chores().await;
                    continue;
                }
            };
            if let Some(last) = last {
                tokio::time::sleep_until(last + self.pace()).await;
            }
            let aside = std::mem::take(&mut *self.aside.lock().expect("aside lock"));
            let noted = aside.then(self.store.noted_outboxes());
            last = Some(Instant::now());
            self.store.pause_point(PausePoint::RelayBeforeAppend).await;
            self.store.delay_point(DelayPoint::RelayBeforeAppend).await;
            // As noted: the entries are on their documents, in their order, and this process
            // wrote those of `noted.own`.
            if let Err(error) = self.relay(noted.documents, Relayer::Live(&noted.own)).await {
                tracing::warn!(%error, "relaying events failed: the background pass retries");
            }
        }
    }

    /// How long the live relay leaves between its rounds: [`LIVE_EVERY`] times the gateways
    /// that share the logs out.
    fn pace(&self) -> Duration {
        let sharing = (self.appenders.read().expect("appenders lock").as_ref())
            .map_or(1, |appenders| appenders.sharing());
        pace(sharing)
    }

    /// When the live relay next has something to do besides relaying: pull entries off, or
    /// call the handler of grown logs for what it kept aside.
    fn next_chore(&self) -> Option<Instant> {
        let clear = self.uncleared.lock().expect("uncleared lock").clear_due();
        let told = self.grew.next_chore();
        clear.into_iter().chain(told).min()
    }

    async fn chores(&self) {
        let now = Instant::now();
        let clear = self.uncleared.lock().expect("uncleared lock").clear_due();
        if clear.is_some_and(|clear| clear <= now) {
            let relayed = self.uncleared.lock().expect("uncleared lock").take(now);
            self.store.pause_point(PausePoint::RelayBeforeClear).await;
            if let Err(error) = self.store.clear_outboxes(&relayed).await {
                // Pulled off with the next pull (a pass that reads them meanwhile finds them
                // appended already).
                tracing::warn!(%error, "pulling relayed events off failed");
                self.uncleared
                    .lock()
                    .expect("uncleared lock")
                    .put_back(relayed);
            }
        }
        if self.grew.next_chore().is_some_and(|due| due <= now) {
            if let Err(error) = self.grew.live(BTreeSet::new()).await {
                tracing::warn!(%error, "telling of grown logs failed");
            }
        }
    }

    /// Relays what gateways left unrelayed for longer than [`STALE_AFTER`]; how many events
    /// it appended.
    #[tracing::instrument(skip(self))]
    pub async fn relay_stale(&self) -> Result<usize, ApiError> {
        let mut appended = 0;
        loop {
            let before = store::now() - STALE_AFTER;
            let found = self.store.stale_outboxes(before, STALE_BATCH).await?;
            let full = found.len() >= STALE_BATCH;
            appended += self.relay(found, Relayer::Pass).await?;
            if !full {
                return Ok(appended);
            }
        }
    }

    /// Appends the entries of `found` (documents and their outboxes) and pulls them off;
    /// how many events it appended.
    async fn relay(
        &self,
        mut found: Vec<(OutboxSource, Vec<OutboxEntryDoc>)>,
        relayer: Relayer<'_>,
    ) -> Result<usize, ApiError> {
        let _turn = self.turn.lock().await;
        (self.uncleared.lock().expect("uncleared lock")).drop_appended(&mut found);
        if found.is_empty() {
            return Ok(0);
        }
        let told = self.who_is_told(&found).await?;
        // With one appender per log (`handoff`), another gateway's entries on a document go
        // with this relay's own, in the document's order, to the log's appender, which
        // remembers what it appended and skips it when it comes again: no read, no wait.
        // Without, two relays append to every log: this one reads and waits (`theirs_in_log`).
        let handing = (self.appenders.read().expect("appenders lock").as_ref())
            .is_some_and(|appenders| appenders.one_per_log());
        if let (Relayer::Live(own), false) = (relayer, handing) {
            let theirs = (found.iter())
                .any(|(_, entries)| entries.iter().any(|entry| !own.contains(&entry.id)));
            if theirs {
                let channels: BTreeSet<String> = (found.iter())
                    .flat_map(|(_, entries)| entries)
                    .flat_map(|entry| told.of(entry))
                    .collect();
                self.catch_up(channels).await?;
            }
            self.set_aside_or_check(&mut found, own, &told).await?;
            if found.is_empty() {
                return Ok(0);
            }
        }
        let mut appended = 0;
        let mut relayed = Vec::with_capacity(found.len());
        let mut grown = BTreeSet::new();
        // Each channel's events in the entries' order (the logs are independent), but those
        // of other gateways' changes known to be there.
        let mut logs: BTreeMap<String, Vec<&OutboxEntryDoc>> = BTreeMap::new();
        {
            let known = self.theirs.lock().expect("theirs lock");
            let in_log = |entry: &OutboxEntryDoc, channel: &str| match relayer {
                Relayer::Live(_) => known.contains(&EventDoc::id_of(entry.id, channel)),
                Relayer::Pass => false,
            };
            for entry in in_time_order(&found) {
                for channel in told.of(entry) {
                    if !in_log(entry, &channel) {
                        logs.entry(channel).or_default().push(entry);
                    }
                }
            }
            for (source, entries) in &found {
                relayed.push((*source, entries.iter().map(|entry| entry.id).collect()));
            }
        }
        if let Relayer::Live(_) = relayer {
            self.hand_off(&mut logs).await;
        }
        let oldest = logs.values().flatten().map(|entry| entry.at).min();
        for (channel, entries) in logs {
            let added = self.append_all(&channel, &entries).await?;
            if added > 0 {
                appended += added;
                grown.insert(channel);
            }
        }
        crate::telemetry::metrics::events_appended(appended);
        if let (true, Some(oldest)) = (appended > 0, oldest) {
            crate::telemetry::metrics::event_relay_lag(chrono::Utc::now() - oldest);
        }
        // Pulled off (now, or with the live relay's next pull), then the handler told which
        // logs grew.
        match relayer {
            Relayer::Pass => {
                self.store.pause_point(PausePoint::RelayBeforeClear).await;
                self.store.clear_outboxes(&relayed).await?;
                if !grown.is_empty() {
                    self.grew.pass(grown.into_iter().collect()).await?;
                }
            }
            Relayer::Live(_) => {
                self.uncleared.lock().expect("uncleared lock").add(relayed);
                self.grew.live(grown).await?;
            }
        }
        Ok(appended)
    }

    /// Sets aside for the next round the documents with another gateway's entries made less
    /// than [`OWNER_GRACE`] ago and not known to be in the logs (`theirs_in_log`), and reads
    /// the logs for the older unknown ones of the rest (one read, only when there are some).
    async fn set_aside_or_check(
        &self,
        found: &mut Vec<(OutboxSource, Vec<OutboxEntryDoc>)>,
        own: &HashSet<EventId>,
        told: &Told,
    ) -> Result<(), ApiError> {
        let young_since = store::now() - OWNER_GRACE;
        let (aside, unknown) = (self.theirs.lock().expect("theirs lock")).set_aside(
            found,
            own,
            |entry| told.of(entry),
            young_since,
        );
        if !aside.is_empty() {
            let own = (aside.iter())
                .flat_map(|(_, entries)| entries)
                .map(|entry| entry.id)
                .filter(|id| own.contains(id))
                .collect();
            let aside = NotedOutboxes {
                documents: aside,
                own,
            };
            let mut kept = self.aside.lock().expect("aside lock");
            *kept = std::mem::take(&mut *kept).then(aside);
        }
        if !unknown.is_empty() {
            let there = self.store.events_in_log(&unknown).await?;
            (self.theirs.lock().expect("theirs lock")).add(there, Instant::now());
        }
        Ok(())
    }

    /// Reads what was appended to `channels`' logs after the last events this relay saw
    /// (one read; channels it has seen none of are read when appended to): another gateway's
    /// events are then known to be there, and this relay's next sequence numbers are free.
    async fn catch_up(&self, channels: BTreeSet<String>) -> Result<(), ApiError> {
        let heads: Vec<(String, i64)> = {
            let heads = self.heads.lock().expect("heads lock");
            (channels.into_iter())
                .filter_map(|channel| heads.get(&channel).map(|head| (channel, *head)))
                .collect()
        };
        if heads.is_empty() {
            return Ok(());
        }
        let tail = self.store.log_tails(&heads, TAIL_MOST).await?;
        for event in &tail {
            self.saw(&event.channel, event.sequence);
        }
        let seen = tail.into_iter().map(|event| event.id);
        (self.theirs.lock().expect("theirs lock")).add(seen, Instant::now());
        Ok(())
    }

    /// Reads who the entries that name no channel are told to: an order's channel, or every
    /// channel that sells a showtime.
    async fn who_is_told(
        &self,
        found: &[(OutboxSource, Vec<OutboxEntryDoc>)],
    ) -> Result<Told, ApiError> {
        let unnamed = || {
            (found.iter())
                .flat_map(|(_, entries)| entries)
                .filter(|entry| entry.channel.is_none())
        };
        let orders: BTreeSet<OrderId> = unnamed().filter_map(|entry| entry.details.order).collect();
        let showtimes: BTreeSet<ShowtimeId> = unnamed()
            .filter(|entry| entry.details.order.is_none())
            .filter_map(|entry| entry.details.showtime)
            .collect();
        let mut told = Told::default();
        if !orders.is_empty() {
            let ids: Vec<_> = orders.into_iter().collect();
            told.orders = self.store.channels_of_orders(&ids).await?;
        }
        if !showtimes.is_empty() {
            let ids: Vec<_> = showtimes.into_iter().collect();
            told.showtimes = self.store.channels_selling(&ids).await?;
        }
        Ok(told)
    }
}

/// The live relay's pace when `sharing` gateways share the logs out.
fn pace(sharing: usize) -> Duration {
    LIVE_EVERY
        * u32::try_from(sharing)
            .unwrap_or(u32::MAX)
            .clamp(1, MOST_PACE)
}

/// An instant no chore is ever due at.
fn far_future() -> Instant {
    Instant::now() + Duration::from_secs(86_400)
}

/// The channels the entries that name none are told to.
#[derive(Default)]
struct Told {
    orders: HashMap<OrderId, String>,
    showtimes: HashMap<ShowtimeId, BTreeSet<String>>,
}

impl Told {
    fn of(&self, entry: &OutboxEntryDoc) -> Vec<String> {
        if let Some(channel) = &entry.channel {
            return vec![channel.clone()];
        }
        match (entry.details.order, entry.details.showtime) {
            // An order that is gone (never confirmed) has no one to tell.
            (Some(order), _) => self.orders.get(&order).cloned().into_iter().collect(),
            (None, Some(showtime)) => (self.showtimes.get(&showtime))
                .map(|channels| channels.iter().cloned().collect())
                .unwrap_or_default(),
            (None, None) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gateways_sharing_the_logs_relay_together_as_often_as_one() {
        assert_eq!(pace(0), LIVE_EVERY);
        assert_eq!(pace(1), LIVE_EVERY);
        assert_eq!(pace(2), LIVE_EVERY * 2);
        assert_eq!(pace(5), LIVE_EVERY * 5);
        assert_eq!(
            pace(usize::MAX),
            LIVE_EVERY * MOST_PACE,
            "never slower than this"
        );
    }
}
