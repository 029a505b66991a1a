//! Appending to one channel's log: its events numbered on from the last this relay saw, as
//! many as the log takes in one insert, one read after a lost race. Apart from `relay`, which
//! decides what goes to which log (and `handoff`, which appends what other gateways hand):
//! both append here, one append to a log at a time in this process.

use std::collections::HashSet;

use tokio::time::Instant;

use super::relay::{EventRelay, TAIL_MOST};
use crate::channel_events::store::documents::EventDoc;
use crate::error::ApiError;
use crate::store;
use crate::store::documents::{OutboxEntryDoc, SCHEMA_VERSION};

/// How many sequence numbers an append may find taken (another gateway appending to the same
/// channel) before it gives up until the next pass.
const MOST_TAKEN: usize = 16;

impl EventRelay {
    /// Appends `entries` to `channel`'s log in their order, as many as the log takes in one
    /// insert. When it refuses one (another gateway's relay took the next sequence number, or
    /// the event is in the log already), one read of the log after the last event seen shows
    /// which, and the rest goes in the next insert: a lost race costs one read and one insert,
    /// however many entries follow. Entries known to be there are not sent, and those it
    /// appended or found there are known from then on (`in_log`). How many it added.
    pub(super) async fn append_all(
        &self,
        channel: &str,
        entries: &[&OutboxEntryDoc],
    ) -> Result<usize, ApiError> {
        let lock = self.log_locks.get(&channel.to_owned());
        let _appending = lock.lock().await;
        // What this process knows to be there already (appended by its own relay, or handed
        // by another gateway that saw the same document) is not sent again.
        let mut rest: Vec<&OutboxEntryDoc> = {
            let known = self.theirs.lock().expect("theirs lock");
            (entries.iter().copied())
                .filter(|entry| !known.contains(&EventDoc::id_of(entry.id, channel)))
                .collect()
        };
        let mut added = 0;
        for _ in 0..MOST_TAKEN {
            if rest.is_empty() {
                self.in_log(channel, entries);
                return Ok(added);
            }
            let last = self.last_seen(channel).await?;
            let events: Vec<EventDoc> = (rest.iter().zip(last + 1..))
                .map(|(entry, sequence)| self.event(channel, entry, sequence))
                .collect();
            let took = self.store.append_events(&events).await?;
            let head = last + took as i64;
            self.saw(channel, head);
            added += took;
            rest.drain(..took);
            if rest.is_empty() {
                self.in_log(channel, entries);
                return Ok(added);
            }
            // Refused at `rest[0]`: what came after `head` shows why.
            let heads = [(channel.to_owned(), head)];
            let tail = self.store.log_tails(&heads, TAIL_MOST).await?;
            match tail.iter().map(|event| event.sequence).max() {
                // Nothing after it: the refused event itself is in the log (appended
                // earlier, by a pass or by another gateway).
                None => {
                    rest.remove(0);
                }
                Some(end) => {
                    self.saw(channel, end);
                    let there: HashSet<&str> = tail.iter().map(|event| event.id.as_str()).collect();
                    rest.retain(|entry| {
                        !there.contains(EventDoc::id_of(entry.id, channel).as_str())
                    });
                    let seen = tail.iter().map(|event| event.id.clone());
                    (self.theirs.lock().expect("theirs lock")).add(seen, Instant::now());
                }
            }
        }
        Err(ApiError::internal(format!(
            "channel {channel}'s next sequence number was taken {MOST_TAKEN} times in a row"
        )))
    }

    /// Remembers that `entries`' events of `channel` are in its log (`append_all` put them
    /// there, or found them there): they come again with later changes to their documents,
    /// and from the other gateways' relays, until they are pulled off.
    fn in_log(&self, channel: &str, entries: &[&OutboxEntryDoc]) {
        let events = (entries.iter()).map(|entry| EventDoc::id_of(entry.id, channel));
        (self.theirs.lock().expect("theirs lock")).add(events, Instant::now());
    }

    /// Remembers that `channel`'s log goes up to `sequence` at least.
    pub(super) fn saw(&self, channel: &str, sequence: i64) {
        let mut heads = self.heads.lock().expect("heads lock");
        let head = heads.entry(channel.to_owned()).or_insert(sequence);
        *head = (*head).max(sequence);
    }

    /// The last sequence number of `channel`'s log this relay saw; read when it saw none.
    async fn last_seen(&self, channel: &str) -> Result<i64, ApiError> {
        let seen = self.heads.lock().expect("heads lock").get(channel).copied();
        match seen {
            Some(last) => Ok(last),
            None => self.store.last_event_sequence(channel, 0).await,
        }
    }

    /// `entry` as event `sequence` of `channel`'s log.
    fn event(&self, channel: &str, entry: &OutboxEntryDoc, sequence: i64) -> EventDoc {
        EventDoc {
            id: EventDoc::id_of(entry.id, channel),
            schema_version: SCHEMA_VERSION,
            channel: channel.to_owned(),
            sequence,
            kind: entry.kind,
            at: entry.at,
            // From the time it is appended: events later in the log never expire sooner.
            expires_at: self.store.event_retention().expiry_of(store::now()),
            details: entry.details.clone(),
        }
    }
}
