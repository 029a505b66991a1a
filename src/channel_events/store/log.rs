//! `events`: every channel's log. Index `channel_sequence` (unique, `{channel, sequence}`)
//! is seed 004's composite key that sorts by time: a channel's events in the order they were
//! appended, and a cursor is a position in it. Index `expiry` (TTL) deletes an event at its
//! `expiresAt`.

use bson::doc;
use futures::TryStreamExt;
use serde::Deserialize;

use super::documents::EventDoc;
use crate::channel_events::rules::EventType;
use crate::error::ApiError;
use crate::store::command_metrics::Call;
use crate::store::{names, Store, BACKGROUND};

/// An event read from the end of a log: its id, channel and sequence number.
#[derive(Debug, Deserialize)]
pub struct LogTailEvent {
    #[serde(rename = "_id")]
    pub id: String,
    pub channel: String,
    pub sequence: i64,
}

impl Store {
    /// Which of the events `ids` are in the logs (by `_id`): one read.
    #[tracing::instrument(skip_all, fields(events = ids.len()))]
    pub(in crate::channel_events) async fn events_in_log(
        &self,
        ids: &[String],
    ) -> Result<std::collections::HashSet<String>, ApiError> {
        #[derive(Deserialize)]
        struct Id {
            #[serde(rename = "_id")]
            id: String,
        }
        // An id ends with its channel (`EventDoc::id_of`): named too, the collection's shard
        // key (docs/sharding.md), so that the read goes to those channels' shards only.
        let channels: std::collections::BTreeSet<&str> = (ids.iter())
            .filter_map(|id| id.rsplit_once(':').map(|(_, channel)| channel))
            .collect();
        let found: Vec<Id> = self
            .bounded(Call::new(names::EVENTS, "find"), async {
                self.collection::<Id>(names::EVENTS)
                    .find(doc! { "channel": { "$in": channels.iter().collect::<Vec<_>>() }, "_id": { "$in": ids } })
                    .projection(doc! { "_id": 1 })
                    .comment(BACKGROUND)
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        Ok(found.into_iter().map(|found| found.id).collect())
    }

    /// The events of each channel of `heads` after its sequence number there (at most
    /// `limit`, in no particular order): one read, on index `channel_sequence` per channel.
    #[tracing::instrument(skip_all, fields(channels = heads.len()))]
    pub(in crate::channel_events) async fn log_tails(
        &self,
        heads: &[(String, i64)],
        limit: usize,
    ) -> Result<Vec<LogTailEvent>, ApiError> {
        let mut clauses: Vec<bson::Document> = (heads.iter())
            .map(|(channel, head)| doc! { "channel": channel, "sequence": { "$gt": head } })
            .collect();
        // One channel's: the range itself (an `$or` of one is planned the same, read less easily).
        let filter = match clauses.len() {
            1 => clauses.remove(0),
            _ => doc! { "$or": clauses },
        };
        self.bounded(Call::new(names::EVENTS, "find"), async {
            self.collection::<LogTailEvent>(names::EVENTS)
                .find(filter)
                .projection(doc! { "_id": 1, "channel": 1, "sequence": 1 })
                .limit(limit as i64)
                .comment(BACKGROUND)
                .await?
                .try_collect()
                .await
        })
        .await
    }

    /// The sequence number of `channel`'s last event, given that event `from` is in its log
    /// (0: nothing known; the result is 0 when the log is empty). The read starts at `from`:
    /// a bounded range of `channel_sequence`. Without a lower bound the test server reads a
    /// channel's whole log to find its end (17 ms of its CPU at 5,000 events, against 0.2 ms
    /// for a range from a known event). The relay reads it once per channel it appends to,
    /// and after a lost sequence number reads the range after the last it saw ([`Store::log_tails`]).
    #[tracing::instrument(skip(self))]
    pub(in crate::channel_events) async fn last_event_sequence(
        &self,
        channel: &str,
        from: i64,
    ) -> Result<i64, ApiError> {
        #[derive(Deserialize)]
        struct Sequence {
            sequence: i64,
        }
        let last = self
            .bounded(
                Call::new(names::EVENTS, "find"),
                self.collection::<Sequence>(names::EVENTS)
                    .find_one(doc! { "channel": channel, "sequence": { "$gte": from } })
                    .sort(doc! { "channel": -1, "sequence": -1 })
                    .projection(doc! { "_id": 0, "sequence": 1 })
                    .comment(BACKGROUND),
            )
            .await?;
        // Event `from` may have expired since: the log still ended at it or later.
        Ok(last.map_or(from, |last| last.sequence.max(from)))
    }

    /// Appends `events`, one channel's with consecutive sequence numbers after one the
    /// caller has seen in the log, in one ordered insert; returns how many of them, from the
    /// first, are in the log now. The insert stops at the first event a unique index refuses
    /// (in the log already, or its sequence number taken): the caller reads the log to tell
    /// those cases apart.
    #[tracing::instrument(skip_all, fields(events = events.len()))]
    pub(in crate::channel_events) async fn append_events(
        &self,
        events: &[EventDoc],
    ) -> Result<usize, ApiError> {
        use mongodb::error::{ErrorKind, InsertManyError};
        let inserted = self
            .bounded_raw(
                Call::new(names::EVENTS, "insert"),
                (self.collection::<EventDoc>(names::EVENTS))
                    .insert_many(events)
                    .ordered(true)
                    .comment(BACKGROUND),
            )
            .await?;
        let error = match inserted {
            Ok(_) => return Ok(events.len()),
            Err(error) => error,
        };
        match &*error.kind {
            ErrorKind::InsertMany(InsertManyError {
                write_errors: Some(refused),
                write_concern_error: None,
                ..
            }) if refused.iter().all(|refused| refused.code == 11000) => Ok(refused
                .iter()
                .map(|refused| refused.index)
                .min()
                .unwrap_or(0)),
            _ => Err(error.into()),
        }
    }

    /// Up to `limit` events of `channel` after sequence number `after`, of `types` when
    /// given, in the log's order (index `channel_sequence`).
    #[tracing::instrument(skip(self))]
    pub(in crate::channel_events) async fn events_after(
        &self,
        channel: &str,
        after: i64,
        types: Option<&[EventType]>,
        limit: usize,
    ) -> Result<Vec<EventDoc>, ApiError> {
        let mut filter = doc! { "channel": channel, "sequence": { "$gt": after } };
        if let Some(types) = types {
            filter.insert("type", doc! { "$in": bson::to_bson(types)? });
        }
        self.bounded(Call::new(names::EVENTS, "find"), async {
            self.collection::<EventDoc>(names::EVENTS)
                .find(filter)
                .sort(doc! { "channel": 1, "sequence": 1 })
                .limit(limit as i64)
                .batch_size(limit as u32)
                .await?
                .try_collect()
                .await
        })
        .await
    }

    /// Event `id` of `channel`'s log, if the log still holds it.
    #[tracing::instrument(skip(self))]
    pub(in crate::channel_events) async fn event_by_id(
        &self,
        channel: &str,
        id: &str,
    ) -> Result<Option<EventDoc>, ApiError> {
        self.bounded(
            Call::new(names::EVENTS, "find"),
            self.collection::<EventDoc>(names::EVENTS)
                .find_one(doc! { "_id": id, "channel": channel })
                .comment(BACKGROUND),
        )
        .await
    }
}
