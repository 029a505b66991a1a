//! The event relay: turns the outbox entries changes leave on their documents into events of
//! the channels' logs (`store::outbox`, `store::events`).
//!
//! *Never lost.* An entry is written in the same update as its change, and leaves its
//! document only after its events are in the log. The process that made the change relays it
//! at once; a background pass relays entries older than [`STALE_AFTER`], which only a gateway
//! that died (or stalled) between its write and its relay leaves behind.
//!
//! *Never twice, never out of order.* An event's id is its entry's and its channel's, unique
//! in the log, so an entry relayed by two gateways (or again after a crash) is appended once.
//! A channel's event is appended as sequence `n + 1` only after this relay saw `n` in the log
//! (it read it, or appended it itself), and `{channel, sequence}` is unique: every reader
//! sees a gap-free prefix of the log, whichever gateways append. A document's entries are
//! appended in their order, so the events of one hold or order keep the order of its changes.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::domain::ids::{OrderId, ShowtimeId};
use crate::error::ApiError;
use crate::store::documents::{EventDoc, OutboxEntryDoc, SCHEMA_VERSION};
use crate::store::{self, Appended, DelayPoint, OutboxSource, PausePoint, Store};

/// How old an unrelayed entry is before the background pass takes it from the gateway that
/// made it.
pub const STALE_AFTER: Duration = Duration::from_secs(5);

/// Documents one background pass reads at most, per collection and batch.
const STALE_BATCH: usize = 100;

/// How many sequence numbers an append may find taken (another gateway appending to the same
/// channel) before it gives up until the next pass.
const MOST_TAKEN: usize = 16;

/// Appends outbox entries to the channels' logs.
pub struct EventRelay {
    store: Store,
    /// The last sequence number seen of each channel's log.
    heads: Mutex<HashMap<String, i64>>,
    /// One relay of this object at a time (the background pass has its own; two relays
    /// appending at once only cost retries: the unique indexes decide).
    turn: tokio::sync::Mutex<()>,
}

impl EventRelay {
    pub fn new(store: Store) -> Arc<Self> {
        Arc::new(EventRelay {
            store,
            heads: Mutex::default(),
            turn: tokio::sync::Mutex::new(()),
        })
    }

    /// Relays the entries this process's changes leave, as they are made, for as long as the
    /// process runs. A failure leaves them for the background pass.
    pub async fn run(self: Arc<Self>) {
        loop {
            let sources = self.store.noted_outboxes().await;
            self.store.pause_point(PausePoint::RelayBeforeRead).await;
            self.store.delay_point(DelayPoint::RelayBeforeRead).await;
            let relayed = async {
                let found = self.store.outboxes(&sources).await?;
                self.relay(found).await
            };
            if let Err(error) = relayed.await {
                tracing::warn!(%error, "relaying events failed: the background pass retries");
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
            appended += self.relay(found).await?;
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
    ) -> Result<usize, ApiError> {
        if found.is_empty() {
            return Ok(0);
        }
        let _turn = self.turn.lock().await;
        // The document with the oldest change first; each document's entries in its order.
        found.sort_by_key(|(_, entries)| entries.first().map(|entry| (entry.at, entry.id)));
        let told = self.who_is_told(&found).await?;
        let mut appended = 0;
        let mut relayed = Vec::with_capacity(found.len());
        let mut grown = BTreeSet::new();
        for (source, entries) in &found {
            for entry in entries {
                for channel in told.of(entry) {
                    if self.append(&channel, entry).await? == Appended::Added {
                        appended += 1;
                        grown.insert(channel);
                    }
                }
            }
            relayed.push((*source, entries.iter().map(|entry| entry.id).collect()));
        }
        self.store.pause_point(PausePoint::RelayBeforeClear).await;
        self.store.clear_outboxes(&relayed).await?;
        crate::telemetry::metrics::events_appended(appended);
        if !grown.is_empty() {
            // Their webhook endpoints have something to send.
            let channels: Vec<String> = grown.into_iter().collect();
            self.store.mark_endpoints_due(&channels).await?;
        }
        Ok(appended)
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

    /// Appends `entry` to `channel`'s log as the sequence number after the last one seen.
    async fn append(&self, channel: &str, entry: &OutboxEntryDoc) -> Result<Appended, ApiError> {
        for _ in 0..MOST_TAKEN {
            let seen = self.heads.lock().expect("heads lock").get(channel).copied();
            let last = match seen {
                Some(last) => last,
                None => self.store.last_event_sequence(channel).await?,
            };
            let event = EventDoc {
                id: EventDoc::id_of(entry.id, channel),
                schema_version: SCHEMA_VERSION,
                channel: channel.to_owned(),
                sequence: last + 1,
                kind: entry.kind,
                at: entry.at,
                // From the time it is appended: events later in the log never expire sooner.
                expires_at: self.store.event_retention().expiry_of(store::now()),
                details: entry.details.clone(),
            };
            let appended = self.store.append_event(&event).await?;
            let mut heads = self.heads.lock().expect("heads lock");
            match appended {
                Appended::Added => {
                    heads.insert(channel.to_owned(), last + 1);
                    return Ok(appended);
                }
                Appended::There => return Ok(appended),
                Appended::SequenceTaken => {
                    heads.remove(channel);
                }
            }
        }
        Err(ApiError::internal(format!(
            "channel {channel}'s next sequence number was taken {MOST_TAKEN} times in a row"
        )))
    }
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
