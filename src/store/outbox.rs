//! The outbox: a change a channel must hear of pushes its event onto the changed document's
//! `outbox` array in the SAME update as the change (a seat inventory, or a showtime for a
//! price revision), so the event exists exactly when the change does: a write that matched
//! nothing (a lost race, a fenced attempt) leaves none, and no crash can separate them. The
//! relay (`channel_events::relay`) then appends each entry to the channels' logs and pulls it off.
//!
//! The process that made the change relays it at once: it notes here the entries its update
//! left (once the update is acknowledged), and its relay appends them as noted, without
//! reading them back. A seat inventory's update returns its outbox as the update left it, so
//! the note also holds the entries other changes (of any gateway) left before this one, in
//! the document's order: the relay appends those first, so a document's entries reach the
//! logs in its order whichever process relays them (issue 48). A background pass relays
//! entries older than a few seconds, which only a gateway that died (or failed to append)
//! between its write and its relay leaves behind (index `outbox` on each collection).

use std::collections::HashSet;

use bson::{doc, Document};
use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use serde::Deserialize;

use super::codec::{self, date, oids};
use super::command_metrics::Call;
use super::documents::{EventDetailsDoc, OutboxEntryDoc};
use super::{names, Store, BACKGROUND};
use crate::channel_events::rules::EventType;
use crate::domain::ids::{EventId, ShowtimeId};
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
pub(crate) fn push_entries(
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

/// The entries this process's changes left in outboxes and has not handed to the relay yet,
/// each document's in the order its updates were acknowledged. The live relay appends them
/// from here: one read of the outboxes fewer per change (one of the five commands a hold
/// sent with its event).
pub type PendingOutboxes = super::notes::Notes<OutboxPile>;

/// Noted entries by document, and how many in all (against the notes' cap).
#[derive(Debug, Default)]
pub struct OutboxPile {
    entries: indexmap::IndexMap<OutboxSource, Vec<OutboxEntryDoc>>,
    /// Every entry noted, once.
    seen: HashSet<EventId>,
    /// The entries this process's own changes left (the others were seen before them on
    /// their documents).
    own: HashSet<EventId>,
}

/// One change's note: the document, the entries on it up to and including the change's own
/// in its order, and the ids of the change's own.
#[derive(Debug, Clone)]
pub struct OutboxNote {
    pub source: OutboxSource,
    pub entries: Vec<OutboxEntryDoc>,
    pub own: Vec<EventId>,
}

/// What the relay takes: entries by document, each document's in its order, and which of
/// them this process's changes left.
#[derive(Debug, Default)]
pub struct NotedOutboxes {
    pub documents: Vec<(OutboxSource, Vec<OutboxEntryDoc>)>,
    pub own: HashSet<EventId>,
}

impl NotedOutboxes {
    /// These entries (set aside by the relay) and then `later` ones: a document in both keeps
    /// these first, then those of `later` it does not hold (later notes of a document repeat
    /// the entries still on it before their own, in the same order).
    pub fn then(mut self, later: NotedOutboxes) -> NotedOutboxes {
        for (source, entries) in later.documents {
            match self.documents.iter_mut().find(|(held, _)| *held == source) {
                Some((_, held)) => {
                    let ids: HashSet<EventId> = held.iter().map(|entry| entry.id).collect();
                    held.extend(entries.into_iter().filter(|entry| !ids.contains(&entry.id)));
                }
                None => self.documents.push((source, entries)),
            }
        }
        self.own.extend(later.own);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }
}

impl super::notes::Pile for OutboxPile {
    type Note = OutboxNote;
    type Taken = NotedOutboxes;

    fn size(&self) -> usize {
        self.seen.len()
    }

    fn size_of(note: &OutboxNote) -> usize {
        note.entries.len()
    }

    fn add(&mut self, note: OutboxNote) {
        // A later note of a document repeats the entries an earlier one saw before its own,
        // in the same order (or fewer, once entries were pulled off): only new ones are added.
        let noted = self.entries.entry(note.source).or_default();
        for entry in note.entries {
            if self.seen.insert(entry.id) {
                noted.push(entry);
            }
        }
        self.own.extend(note.own);
    }

    fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn taken(self) -> NotedOutboxes {
        NotedOutboxes {
            documents: self.entries.into_iter().collect(),
            own: self.own,
        }
    }
}

impl Store {
    /// Notes that the change just made to `source` left `entries` in its outbox, for the
    /// relay.
    pub(crate) fn note_outbox(&self, source: OutboxSource, entries: &[OutboxEntryDoc]) {
        self.outbox.note(OutboxNote {
            source,
            entries: entries.to_vec(),
            own: entries.iter().map(|entry| entry.id).collect(),
        });
    }

    /// Notes that the change just made to `source` left `own` in its outbox, which held
    /// `outbox` once it was made (the entries other changes left before, then `own`).
    pub(crate) fn note_outbox_as_left(
        &self,
        source: OutboxSource,
        outbox: Vec<OutboxEntryDoc>,
        own: &[OutboxEntryDoc],
    ) {
        self.outbox.note(OutboxNote {
            source,
            entries: outbox,
            own: own.iter().map(|entry| entry.id).collect(),
        });
    }

    /// Waits until this process noted entries its changes left (without taking them).
    pub async fn outboxes_noted(&self) {
        self.outbox.ready().await
    }

    /// Takes the entries this process's changes left and noted, by document (none when
    /// nothing is noted).
    pub fn noted_outboxes(&self) -> NotedOutboxes {
        self.outbox.take_now()
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
            found.extend(self.outboxes_of(kind, filter, limit).await?);
        }
        Ok(found)
    }

    /// The outboxes of `kind`'s documents that `filter` finds, at most `limit`. The seat
    /// inventory's are read by its own module (the only one that names its collection).
    async fn outboxes_of(
        &self,
        kind: OutboxKind,
        filter: Document,
        limit: usize,
    ) -> Result<Vec<(OutboxSource, Vec<OutboxEntryDoc>)>, ApiError> {
        match kind {
            OutboxKind::Inventory => self.inventory_outboxes(filter, limit).await,
            OutboxKind::Showtime => {
                self.find_outboxes(names::SHOWTIMES, kind, filter, limit)
                    .await
            }
        }
    }

    /// The outboxes of the documents of `collection` (of `kind`) that `filter` finds, at most
    /// `limit`.
    pub(crate) async fn find_outboxes(
        &self,
        collection: &'static str,
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
            let (mut documents, mut entries) = (Vec::new(), Vec::new());
            for (source, ids) in relayed {
                if source.kind == kind {
                    documents.push(source.showtime);
                    entries.extend(ids.iter().copied());
                }
            }
            if entries.is_empty() {
                continue;
            }
            match kind {
                OutboxKind::Inventory => {
                    self.clear_inventory_outboxes(&documents, &entries).await?
                }
                OutboxKind::Showtime => {
                    self.pull_outbox_entries(names::SHOWTIMES, &documents, &entries)
                        .await?
                }
            }
        }
        Ok(())
    }

    /// Pulls entries `entries` off the outboxes of `documents` of `collection`, in one update
    /// (entry ids are unique, so each pull touches only its own document's).
    pub(crate) async fn pull_outbox_entries(
        &self,
        collection: &'static str,
        documents: &[ShowtimeId],
        entries: &[EventId],
    ) -> Result<(), ApiError> {
        let (documents, entries) = (oids(documents), oids(entries));
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
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::new_id;
    use crate::store::notes::MOST_PENDING;

    fn entries(n: usize) -> Vec<OutboxEntryDoc> {
        (0..n)
            .map(|_| new_entry(EventType::HoldPlaced, Some("maoyan"), Default::default()))
            .collect()
    }

    fn own(source: OutboxSource, entries: &[OutboxEntryDoc]) -> OutboxNote {
        OutboxNote {
            source,
            entries: entries.to_vec(),
            own: entries.iter().map(|e| e.id).collect(),
        }
    }

    fn ids(entries: &[OutboxEntryDoc]) -> Vec<EventId> {
        entries.iter().map(|e| e.id).collect()
    }

    /// Each document's entries come out in the order they were noted, documents in the order
    /// they were first noted; past the cap a note is dropped (the pass finds its entries).
    #[tokio::test]
    async fn noted_entries_come_out_by_document_in_order_and_past_the_cap_are_dropped() {
        let notes = PendingOutboxes::default();
        let source = |kind| OutboxSource {
            kind,
            showtime: new_id::<ShowtimeId>(),
        };
        let (a, b) = (source(OutboxKind::Inventory), source(OutboxKind::Showtime));
        let (first, second, third) = (entries(2), entries(1), entries(1));
        notes.note(own(a, &first));
        notes.note(own(b, &second));
        notes.note(own(a, &third));
        let taken = notes.take().await.documents;
        assert_eq!(taken.len(), 2);
        assert_eq!(taken[0].0, a);
        assert_eq!(ids(&taken[0].1), ids(&[first, third].concat()));
        assert_eq!((taken[1].0, ids(&taken[1].1)), (b, ids(&second)));

        notes.note(own(a, &entries(MOST_PENDING)));
        notes.note(own(b, &entries(1)));
        let taken = notes.take().await.documents;
        assert_eq!(taken.len(), 1, "the note past the cap is dropped");
        assert_eq!(taken[0].1.len(), MOST_PENDING);
        notes.note(own(b, &entries(1)));
        assert_eq!(
            notes.take().await.documents[0].0,
            b,
            "taking frees the room"
        );
    }

    /// Entries set aside come before later notes of their document, each once; other
    /// documents and the own ids of both are kept.
    #[test]
    fn entries_set_aside_come_before_later_notes_of_their_document() {
        let source = |kind| OutboxSource {
            kind,
            showtime: new_id::<ShowtimeId>(),
        };
        let (a, b) = (source(OutboxKind::Inventory), source(OutboxKind::Inventory));
        let all = entries(4);
        let held = NotedOutboxes {
            documents: vec![(a, all[..2].to_vec())],
            own: [all[1].id].into(),
        };
        // A later note of `a` repeats the second entry (still on the document), then its own.
        let later = NotedOutboxes {
            documents: vec![(a, all[1..3].to_vec()), (b, all[3..].to_vec())],
            own: [all[2].id, all[3].id].into(),
        };
        let merged = held.then(later);
        assert_eq!(merged.documents.len(), 2);
        assert_eq!(
            (merged.documents[0].0, ids(&merged.documents[0].1)),
            (a, ids(&all[..3]))
        );
        assert_eq!(
            (merged.documents[1].0, ids(&merged.documents[1].1)),
            (b, ids(&all[3..]))
        );
        assert_eq!(merged.own, [all[1].id, all[2].id, all[3].id].into());
        assert!(!merged.is_empty() && NotedOutboxes::default().is_empty());
    }

    /// Two changes of one document acknowledged in the other order than they were made: the
    /// later one's outbox holds the earlier one's entry before its own, and the entries come
    /// out in the document's order, each once, with only this process's own marked so.
    #[tokio::test]
    async fn notes_of_one_document_keep_its_order_whatever_order_they_come_in() {
        let notes = PendingOutboxes::default();
        let source = OutboxSource {
            kind: OutboxKind::Inventory,
            showtime: new_id::<ShowtimeId>(),
        };
        let all = entries(3);
        let (foreign, earlier, later) = (&all[0], &all[1], &all[2]);
        notes.note(OutboxNote {
            source,
            entries: all.clone(),
            own: vec![later.id],
        });
        notes.note(OutboxNote {
            source,
            entries: all[..2].to_vec(),
            own: vec![earlier.id],
        });
        let taken = notes.take().await;
        assert_eq!(taken.documents.len(), 1);
        assert_eq!(ids(&taken.documents[0].1), ids(&all));
        assert!(taken.own.contains(&earlier.id) && taken.own.contains(&later.id));
        assert!(!taken.own.contains(&foreign.id));
    }
}
