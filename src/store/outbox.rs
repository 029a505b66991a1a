//! The outbox: a change a channel must hear of pushes its event onto the changed document's
//! `outbox` array in the SAME update as the change (a seat inventory, or a showtime for a
//! price revision), so the event exists exactly when the change does: a write that matched
//! nothing (a lost race, a fenced attempt) leaves none, and no crash can separate them. The
//! relay (`booking::events`) then appends each entry to the channels' logs and pulls it off.
//!
//! The process that made the change relays it at once (it notes the document here); a
//! background pass relays entries older than a few seconds, which only a gateway that died
//! between its write and its relay leaves behind (index `outbox` on each collection).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Mutex;

use bson::{doc, Document};
use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use serde::Deserialize;
use tokio::sync::Notify;

use super::codec::{self, date, oids, ObjectIdExt};
use super::command_metrics::Call;
use super::documents::{EventDetailsDoc, OutboxEntryDoc};
use super::{names, Store, BACKGROUND};
use crate::channel_events::rules::EventType;
use crate::domain::ids::{EventId, OrderId, ShowtimeId};
use crate::error::ApiError;

/// The field holding a document's unrelayed events.
pub(super) const OUTBOX: &str = "outbox";

/// Which documents carry an outbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OutboxKind {
    /// A showtime's seat inventory: holds, sales, refunds, admissions, its cancellation.
    Inventory,
    /// A showtime: its price revisions (written in a transaction with the revision).
    Showtime,
}

impl OutboxKind {
    const ALL: [OutboxKind; 2] = [OutboxKind::Inventory, OutboxKind::Showtime];

    fn collection(self) -> &'static str {
        match self {
            OutboxKind::Inventory => names::SEAT_INVENTORY,
            OutboxKind::Showtime => names::SHOWTIMES,
        }
    }
}

/// A document that can carry an outbox (both kinds are keyed by the showtime's id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OutboxSource {
    pub kind: OutboxKind,
    pub showtime: ShowtimeId,
}

/// An event a change makes now, told to `channel` (or, when `None`, to the channels the relay
/// finds: the order's, or every one that sells the showtime).
pub fn new_entry(
    kind: EventType,
    channel: Option<&str>,
    details: EventDetailsDoc,
) -> OutboxEntryDoc {
    OutboxEntryDoc {
        id: codec::new_id(),
        kind,
        at: codec::now(),
        channel: channel.map(str::to_owned),
        details,
    }
}

/// Adds `entries` to `update`'s `$push` (keeping what it pushes already).
pub(super) fn push_entries(
    update: &mut Document,
    entries: &[OutboxEntryDoc],
) -> Result<(), ApiError> {
    if entries.is_empty() {
        return Ok(());
    }
    let each = bson::to_bson(entries)?;
    match update.get_document_mut("$push") {
        Ok(push) => {
            push.insert(OUTBOX, doc! { "$each": each });
        }
        Err(_) => {
            update.insert("$push", doc! { OUTBOX: { "$each": each } });
        }
    }
    Ok(())
}

/// The documents this process gave an outbox entry and has not handed to the relay yet.
#[derive(Debug, Default)]
pub struct PendingOutboxes {
    sources: Mutex<HashSet<OutboxSource>>,
    noted: Notify,
}

/// Past this many, notes are dropped: the background pass finds those entries instead.
const MOST_PENDING: usize = 10_000;

impl Store {
    /// Notes that the change just made to `source` left events for the relay.
    pub(super) fn note_outbox(&self, source: OutboxSource) {
        let mut sources = self.outbox.sources.lock().expect("outbox notes lock");
        if sources.len() < MOST_PENDING {
            sources.insert(source);
        }
        drop(sources);
        self.outbox.noted.notify_one();
    }

    /// One conditional update of `showtime`'s inventory that, when it matches, leaves
    /// `entries` in its outbox (and notes the document for the relay). True when it matched.
    pub(crate) async fn update_inventory_telling(
        &self,
        showtime: ShowtimeId,
        filter: Document,
        mut update: Document,
        entries: &[OutboxEntryDoc],
    ) -> Result<bool, ApiError> {
        let entries = if self.keeps_events() { entries } else { &[] };
        push_entries(&mut update, entries)?;
        let matched = self.update_inventory(filter, update).await?;
        if matched && !entries.is_empty() {
            self.note_outbox(OutboxSource {
                kind: OutboxKind::Inventory,
                showtime,
            });
        }
        Ok(matched)
    }

    /// Waits until this process noted documents with events, and takes them.
    pub async fn noted_outboxes(&self) -> Vec<OutboxSource> {
        loop {
            let taken: Vec<_> = {
                let mut sources = self.outbox.sources.lock().expect("outbox notes lock");
                sources.drain().collect()
            };
            if !taken.is_empty() {
                return taken;
            }
            self.outbox.noted.notified().await;
        }
    }

    /// The outbox entries of `sources`, in each document's order (one `find` per collection).
    #[tracing::instrument(skip(self))]
    pub async fn outboxes(
        &self,
        sources: &[OutboxSource],
    ) -> Result<Vec<(OutboxSource, Vec<OutboxEntryDoc>)>, ApiError> {
        let mut found = Vec::new();
        for kind in OutboxKind::ALL {
            let ids: Vec<ShowtimeId> = (sources.iter())
                .filter(|source| source.kind == kind)
                .map(|source| source.showtime)
                .collect();
            if !ids.is_empty() {
                let filter = doc! { "_id": { "$in": oids(&ids) } };
                found.extend(self.find_outboxes(kind, filter, ids.len()).await?);
            }
        }
        Ok(found)
    }

    /// Documents with an entry made before `before` still in their outbox (index `outbox`),
    /// at most `limit` of each collection: what a gateway that died before relaying left.
    #[tracing::instrument(skip(self))]
    pub async fn stale_outboxes(
        &self,
        before: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<(OutboxSource, Vec<OutboxEntryDoc>)>, ApiError> {
        let mut found = Vec::new();
        for kind in OutboxKind::ALL {
            let filter = doc! { "outbox.at": { "$lt": date(before) } };
            found.extend(self.find_outboxes(kind, filter, limit).await?);
        }
        Ok(found)
    }

    async fn find_outboxes(
        &self,
        kind: OutboxKind,
        filter: Document,
        limit: usize,
    ) -> Result<Vec<(OutboxSource, Vec<OutboxEntryDoc>)>, ApiError> {
        #[derive(Deserialize)]
        struct Outbox {
            #[serde(rename = "_id", with = "codec::id")]
            id: ShowtimeId,
            #[serde(default)]
            outbox: Vec<OutboxEntryDoc>,
        }
        let collection = kind.collection();
        let found: Vec<Outbox> = self
            .bounded(Call::new(collection, "find"), async {
                self.collection::<Outbox>(collection)
                    .find(filter)
                    .projection(doc! { OUTBOX: 1 })
                    .limit(limit as i64)
                    .comment(BACKGROUND)
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        Ok(found
            .into_iter()
            .filter(|found| !found.outbox.is_empty())
            .map(|found| {
                let source = OutboxSource {
                    kind,
                    showtime: found.id,
                };
                (source, found.outbox)
            })
            .collect())
    }

    /// Pulls relayed entries `relayed` off their documents' outboxes (one update per
    /// collection: entry ids are unique, so each pull touches only its own document's).
    #[tracing::instrument(skip(self, relayed))]
    pub async fn clear_outboxes(
        &self,
        relayed: &[(OutboxSource, Vec<EventId>)],
    ) -> Result<(), ApiError> {
        for kind in OutboxKind::ALL {
            let collection = kind.collection();
            let (mut documents, mut entries) = (Vec::new(), Vec::new());
            for (source, ids) in relayed {
                if source.kind == kind {
                    documents.push(source.showtime.oid());
                    entries.extend(ids.iter().map(|id| id.oid()));
                }
            }
            if entries.is_empty() {
                continue;
            }
            self.bounded(
                Call::new(collection, "update"),
                self.collection::<Document>(collection)
                    .update_many(
                        doc! { "_id": { "$in": documents } },
                        doc! { "$pull": { OUTBOX: { "id": { "$in": entries } } } },
                    )
                    .comment(BACKGROUND),
            )
            .await?;
        }
        Ok(())
    }

    /// The channel of each of orders `ids` (one projected `find`): who an admission is told to.
    #[tracing::instrument(skip(self))]
    pub async fn channels_of_orders(
        &self,
        ids: &[OrderId],
    ) -> Result<HashMap<OrderId, String>, ApiError> {
        #[derive(Deserialize)]
        struct Channel {
            #[serde(rename = "_id", with = "codec::id")]
            id: OrderId,
            channel: String,
        }
        let found: Vec<Channel> = self
            .bounded(Call::new(names::ORDERS, "find"), async {
                self.collection::<Channel>(names::ORDERS)
                    .find(doc! { "_id": { "$in": oids(ids) } })
                    .projection(doc! { "channel": 1 })
                    .comment(BACKGROUND)
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        Ok(found
            .into_iter()
            .map(|found| (found.id, found.channel))
            .collect())
    }

    /// The channels that sell each of showtimes `ids` (have a price for it; one projected
    /// `find`): who a showtime's cancellation is told to.
    #[tracing::instrument(skip(self))]
    pub async fn channels_selling(
        &self,
        ids: &[ShowtimeId],
    ) -> Result<HashMap<ShowtimeId, BTreeSet<String>>, ApiError> {
        #[derive(Deserialize)]
        struct Price {
            channel: String,
        }
        #[derive(Deserialize)]
        struct Prices {
            #[serde(rename = "_id", with = "codec::id")]
            id: ShowtimeId,
            #[serde(default)]
            prices: Vec<Price>,
        }
        let found: Vec<Prices> = self
            .bounded(Call::new(names::SHOWTIMES, "find"), async {
                self.collection::<Prices>(names::SHOWTIMES)
                    .find(doc! { "_id": { "$in": oids(ids) } })
                    .projection(doc! { "prices.channel": 1 })
                    .comment(BACKGROUND)
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        Ok(found
            .into_iter()
            .map(|found| {
                let channels = found.prices.into_iter().map(|price| price.channel);
                (found.id, channels.collect())
            })
            .collect())
    }
}
