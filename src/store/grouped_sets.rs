//! `$set` updates of single documents of one collection, sent together: the updates of a
//! collection that come while one of them is running are the next one (`group_commit`'s relay
//! of leaders), one unordered `update` command with a statement each, each told whether its
//! filter matched.
//!
//! Every keyed request writes its answer to its idempotency key's record when it is done, one
//! update each: on a hot showtime, the records of one batch of holds or confirmations came
//! one after another after the batch's single write (issue 48). Only requests that have been
//! admitted come here (a record is written at the end of a request), so no leader waits at the
//! door for a place its followers hold (the funnel that grouped claims made, e61ecff).
//!
//! The reply of an `update` command counts the statements that matched, not which. When all
//! did (the usual case), each is told so; otherwise each is sent again on its own to learn
//! its answer. A `$set` applied twice leaves the document as once, so sending one again
//! changes nothing: that is why only `$set` updates are grouped.

use bson::{doc, Bson, Document};
use mongodb::options::WriteConcern;

use super::command_metrics::Call;
use super::{PausePoint, Store};
use crate::error::ApiError;
use crate::group_commit::{read_failed, refuse_all, Entry, Queues};

/// One update: the filter of its document, and the fields it sets.
#[derive(Debug)]
pub(super) struct SetJob {
    filter: Document,
    set: Document,
}

/// The queues of this process's grouped updates, one per collection.
pub(super) type SetQueues = Queues<&'static str, SetJob, bool>;

type Queued = Entry<SetJob, bool>;

impl Store {
    /// Sets `set` on the document of `collection` that `filter` matches, with the other such
    /// updates of it that come meanwhile, in one command: whether the filter matched.
    pub(crate) async fn set_grouped(
        &self,
        collection: &'static str,
        filter: Document,
        set: Document,
    ) -> Result<bool, ApiError> {
        self.sets
            .run(
                collection,
                SetJob { filter, set },
                || self.pause_point(PausePoint::SetBatchBeforeTake),
                || self.note_set_queued(),
                |entries| self.set_batch(collection, entries),
            )
            .await
    }

    /// Sends the updates of `entries` in one unordered command and answers each.
    async fn set_batch(&self, collection: &'static str, entries: Vec<Queued>) -> Vec<Queued> {
        let statements: Vec<Document> = (entries.iter())
            .map(|entry| doc! { "q": &entry.job.filter, "u": { "$set": &entry.job.set } })
            .collect();
        let mut command = doc! { "update": collection, "updates": statements, "ordered": false };
        // A command sent as it is carries no write concern of its own: the database's.
        if let Some(concern) = self.db().write_concern() {
            command.insert("writeConcern", write_concern(concern));
        }
        let sent = self
            .bounded(
                Call::new(collection, "update"),
                self.db().run_command(command),
            )
            .await;
        let reply = match sent {
            Ok(reply) => reply,
            // Nothing was sent (the door refused the leader), or no answer came.
            Err(error) => return read_failed(entries, error),
        };
        if let Ok(concern) = reply.get_document("writeConcernError") {
            let error = ApiError::internal(format!("a grouped update's write concern: {concern}"));
            refuse_all(entries, &error);
            return Vec::new();
        }
        let refused = reply
            .get_array("writeErrors")
            .map_or(0, |errors| errors.len());
        // A count the reply does not give as a number counts as no match: each is sent alone.
        let matched = match reply.get("n") {
            Some(Bson::Int32(n)) => usize::try_from(*n).unwrap_or(0),
            Some(Bson::Int64(n)) => usize::try_from(*n).unwrap_or(0),
            _ => 0,
        };
        if refused == 0 && matched == entries.len() {
            for entry in entries {
                entry.answer(Ok(true));
            }
            return Vec::new();
        }
        // Some statement matched nothing (its record was taken over) or failed: each is
        // sent again alone, which sets nothing new on a document it set already.
        let target = self.collection::<Document>(collection);
        for entry in entries {
            let (job, answerer) = entry.split();
            let one = target.update_one(job.filter, doc! { "$set": job.set });
            let answer = self
                .bounded(Call::new(collection, "update"), one)
                .await
                .map(|result| result.matched_count == 1);
            answerer.answer(answer);
        }
        Vec::new()
    }
}

/// `concern` as a command carries it.
fn write_concern(concern: &WriteConcern) -> Document {
    let mut written = Document::new();
    if let Some(w) = &concern.w {
        written.insert("w", bson::to_bson(w).unwrap_or(Bson::Null));
    }
    if let Some(journal) = concern.journal {
        written.insert("j", journal);
    }
    if let Some(wait) = concern.w_timeout {
        written.insert(
            "wtimeout",
            i64::try_from(wait.as_millis()).unwrap_or(i64::MAX),
        );
    }
    written
}
