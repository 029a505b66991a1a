//! Changing a showtime's prices, with `showtime_price_revisions` (document versioning pattern):
//! the showtime holds the current prices and their revision number, each revision document
//! one change (who, when, before, after). A change is one transaction: the showtime written
//! with the revision it read in the filter, and the revision inserted; two changes that read
//! the same revision cannot both commit. A request (its idempotency resource id) makes at most
//! one revision (unique index `request`): an attempt that wakes up after a retry took its key
//! over and made the change finds that revision instead of making a second one.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use bson::{doc, Bson};
use chrono::{DateTime, Utc};

use crate::channel_events::rules::EventType;
use crate::domain::ids::{ResourceId, ShowtimeId};
use crate::error::ApiError;
use crate::store::codec::{self, oids, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::documents::{
    ChannelPriceDoc, EventDetailsDoc, PriceRevisionDoc, TicketRuleDoc, SCHEMA_VERSION,
    SHOWTIME_SCHEMA_VERSION,
};
use crate::store::is_duplicate_key;
use crate::store::{names, Store};
use crate::store::{new_entry, push_entries, OutboxKind, OutboxSource};

/// One change of a showtime's prices, as read: applied only if the showtime is still at
/// `read_revision`, SCHEDULED and not started.
#[derive(Debug, Clone)]
pub struct PriceChange {
    pub showtime: ShowtimeId,
    pub read_revision: i64,
    /// The showtime's `freeAt` as read (upgraded when it was a version 1 document): written
    /// with the change, which stores the showtime as version 2.
    pub free_at: DateTime<Utc>,
    pub before: Vec<ChannelPriceDoc>,
    pub after: Vec<ChannelPriceDoc>,
    /// The refused ticket types as read, and from now on.
    pub rules_before: Vec<TicketRuleDoc>,
    pub rules_after: Vec<TicketRuleDoc>,
    pub operator: String,
    pub request: ResourceId,
    pub at: DateTime<Utc>,
}

/// What a price change did.
#[derive(Debug, Clone)]
pub enum PriceChanged {
    /// It made this revision.
    Changed(Box<PriceRevisionDoc>),
    /// Nothing: the showtime moved from what was read; read it again.
    Moved,
    /// Nothing: its request had made this revision already (an earlier attempt of its key).
    MadeAlready(Box<PriceRevisionDoc>),
}

/// The `_id` of a showtime's revision `n`.
fn revision_id(showtime: ShowtimeId, revision: i64) -> String {
    format!("{showtime}:{revision}")
}

impl Store {
    /// Applies `change` in one transaction: the showtime (prices, revision + 1, and the
    /// current schema version with its fields) and the revision document. Nothing is written
    /// when the showtime moved from what was read (another change, a cancellation, its start)
    /// or when the change's request made its revision already.
    #[tracing::instrument(skip_all, fields(showtime = %change.showtime, revision = change.read_revision))]
    pub async fn change_showtime_prices(
        &self,
        change: &PriceChange,
    ) -> Result<PriceChanged, ApiError> {
        let revision = change.read_revision + 1;
        // A version 1 document has no `priceRevision`: revision 0 is stored as 0 or absent.
        let read: Bson = if change.read_revision == 0 {
            doc! { "$in": [0_i64, Bson::Null] }.into()
        } else {
            change.read_revision.into()
        };
        let filter = doc! {
            "_id": change.showtime.oid(),
            "priceRevision": read,
            "status": { "$nin": ["CANCELLING", "CANCELLED"] },
            "startsAt": { "$gt": codec::date(codec::now()) },
        };
        let mut update = doc! { "$set": {
            "prices": bson::to_bson(&change.after)?,
            "ticketRules": bson::to_bson(&change.rules_after)?,
            "priceRevision": revision,
            "schemaVersion": SHOWTIME_SCHEMA_VERSION,
            "freeAt": codec::date(change.free_at),
        } };
        // Told to every channel that sold it before or sells it now, in the same update.
        let channels: BTreeSet<&str> = (change.before.iter().chain(&change.after))
            .map(|price| price.channel.as_str())
            .collect();
        let told: Vec<_> = (channels.into_iter())
            .map(|channel| {
                let details = EventDetailsDoc {
                    showtime: Some(change.showtime),
                    revision: Some(revision),
                    ..Default::default()
                };
                new_entry(EventType::PriceRevised, Some(channel), details)
            })
            .collect();
        push_entries(&mut update, &told)?;
        let entry = PriceRevisionDoc {
            id: revision_id(change.showtime, revision),
            schema_version: SCHEMA_VERSION,
            showtime_id: change.showtime,
            revision,
            at: change.at,
            operator: change.operator.clone(),
            request: change.request,
            before: change.before.clone(),
            after: change.after.clone(),
            rules_before: change.rules_before.clone(),
            rules_after: change.rules_after.clone(),
        };
        let writes = Arc::new((filter, update, entry));
        // Set when the revision's insert met a duplicate key (perhaps this request's own).
        let duplicate = Arc::new(AtomicBool::new(false));
        let committed = self
            .in_transaction(|store, session| {
                let (writes, duplicate) = (Arc::clone(&writes), Arc::clone(&duplicate));
                Box::pin(async move {
                    let (filter, update, entry) = &*writes;
                    let changed = store
                        .collection::<bson::Document>(names::SHOWTIMES)
                        .update_one(filter.clone(), update.clone())
                        .session(&mut *session)
                        .await?;
                    if changed.matched_count != 1 {
                        return Ok(false);
                    }
                    match store
                        .collection::<PriceRevisionDoc>(names::SHOWTIME_PRICE_REVISIONS)
                        .insert_one(entry)
                        .session(&mut *session)
                        .await
                    {
                        Ok(_) => Ok(true),
                        Err(error) if is_duplicate_key(&error) => {
                            duplicate.store(true, Ordering::SeqCst);
                            Ok(false)
                        }
                        Err(error) => Err(error),
                    }
                })
            })
            .await?;
        if committed {
            if !told.is_empty() {
                let source = OutboxSource {
                    kind: OutboxKind::Showtime,
                    showtime: change.showtime,
                };
                self.note_outbox(source, &told);
            }
            return Ok(PriceChanged::Changed(Box::new(writes.2.clone())));
        }
        if duplicate.load(Ordering::SeqCst) {
            if let Some(made) = self
                .price_revision_by_request(change.showtime, change.request)
                .await?
            {
                return Ok(PriceChanged::MadeAlready(Box::new(made)));
            }
        }
        Ok(PriceChanged::Moved)
    }

    /// The revision request `request` made of `showtime`, if it made one (a retry finding an
    /// earlier attempt's change).
    #[tracing::instrument(skip(self))]
    pub async fn price_revision_by_request(
        &self,
        showtime: ShowtimeId,
        request: ResourceId,
    ) -> Result<Option<PriceRevisionDoc>, ApiError> {
        self.bounded(
            Call::new(names::SHOWTIME_PRICE_REVISIONS, "find"),
            self.collection::<PriceRevisionDoc>(names::SHOWTIME_PRICE_REVISIONS)
                .find_one(doc! { "showtimeId": showtime.oid(), "request": request.oid() }),
        )
        .await
    }

    /// The price revisions of `showtimes`, each showtime's newest first, at most `per_showtime`
    /// of each, in one `find` (index `showtime_revision`). It reads every revision of those
    /// showtimes: a revision is an operator's price change, a handful per showtime.
    #[tracing::instrument(skip(self))]
    pub async fn price_revisions(
        &self,
        showtimes: &[ShowtimeId],
        per_showtime: usize,
    ) -> Result<Vec<PriceRevisionDoc>, ApiError> {
        use futures::TryStreamExt;
        let filter = doc! { "showtimeId": { "$in": oids(showtimes) } };
        let all: Vec<PriceRevisionDoc> = self
            .bounded(Call::new(names::SHOWTIME_PRICE_REVISIONS, "find"), async {
                self.collection::<PriceRevisionDoc>(names::SHOWTIME_PRICE_REVISIONS)
                    .find(filter)
                    .sort(doc! { "showtimeId": 1, "revision": -1 })
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        let mut kept: Vec<PriceRevisionDoc> = Vec::with_capacity(all.len());
        for revision in all {
            let of_same = kept
                .iter()
                .rev()
                .take_while(|r| r.showtime_id == revision.showtime_id)
                .count();
            if of_same < per_showtime {
                kept.push(revision);
            }
        }
        Ok(kept)
    }
}
