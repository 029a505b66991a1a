//! Records the commands a client sends (the driver's command monitoring), so tests can assert
//! how many MongoDB round trips a request costs, how many bytes it reads, and (re-running a
//! command as `explain`, see `Store::plan_of`) how many documents each examines. Off until
//! [`CommandLog::start`] is called, so a production gateway keeps nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use mongodb::bson::Document;
use mongodb::event::command::CommandEvent;

/// The commands sent while recording, in order.
#[derive(Debug, Default)]
pub struct CommandLog {
    recording: AtomicBool,
    /// Whether background tasks' commands (`comment: "background"`) are recorded too.
    background: AtomicBool,
    sent: Mutex<Vec<SentCommand>>,
}

/// One command sent to the server.
#[derive(Debug, Clone, PartialEq)]
pub struct SentCommand {
    /// `find`, `aggregate`, `getMore`, ...
    pub name: String,
    /// The collection it addressed, when the command names one.
    pub collection: Option<String>,
    /// Its `writeConcern`, as sent (e.g. `{ "w": "majority", "j": true }`).
    pub write_concern: Option<String>,
    /// Its `readConcern`, as sent (e.g. `{ "level": "majority" }`).
    pub read_concern: Option<String>,
    /// Whether a background task sent it (`comment: "background"`; recorded only after
    /// [`CommandLog::start_with_background`]).
    pub background: bool,
    /// The size of the server's reply, in bytes of BSON, once it succeeded.
    pub reply_bytes: Option<usize>,
    /// The connections it went out on: the requests' or the background work's.
    pub lane: super::Lane,
    /// The command itself, for `Store::plan_of`.
    pub(super) command: Document,
    request_id: i32,
}

/// What a command without a filter chooses by: everything.
static EMPTY: std::sync::LazyLock<Document> = std::sync::LazyLock::new(Document::new);

impl SentCommand {
    /// How many documents an `insert` carried (0 for any other command).
    pub fn inserted(&self) -> usize {
        (self.command.get_array("documents")).map_or(0, |documents| documents.len())
    }

    /// The filter a `find` sent (`None` for any other command).
    pub fn filter(&self) -> Option<&Document> {
        self.command.get_document("filter").ok()
    }

    /// Every filter the command chooses documents by: a `find`'s, a `findAndModify`'s,
    /// `count`'s or `distinct`'s `query`, each statement's `q` of an `update` or `delete`, an
    /// `aggregate`'s leading `$match` (an empty filter when it leads with another stage).
    /// None for a command that chooses no documents (`insert`, `getMore`, a commit).
    pub fn filters(&self) -> Option<Vec<&Document>> {
        let statements = |field: &str| {
            let statements = self.command.get_array(field).ok()?;
            (statements.iter())
                .map(|statement| statement.as_document()?.get_document("q").ok())
                .collect::<Option<Vec<_>>>()
        };
        match self.name.as_str() {
            "find" => Some(vec![self.command.get_document("filter").unwrap_or(&*EMPTY)]),
            "findAndModify" | "count" | "distinct" => {
                Some(vec![self.command.get_document("query").unwrap_or(&*EMPTY)])
            }
            "update" => statements("updates"),
            "delete" => statements("deletes"),
            "aggregate" => {
                let pipeline = self.command.get_array("pipeline").ok()?;
                let first = pipeline.first().and_then(|stage| stage.as_document());
                let matched = first.and_then(|stage| stage.get_document("$match").ok());
                Some(vec![matched.unwrap_or(&*EMPTY)])
            }
            _ => None,
        }
    }

    /// The transaction the command ran in (its session's id, hex, and transaction number),
    /// when it ran in one (`autocommit: false`).
    pub fn transaction(&self) -> Option<(String, i64)> {
        if self.command.get_bool("autocommit") != Ok(false) {
            return None;
        }
        let session = self.command.get_document("lsid").ok()?.get("id")?;
        let session = match session {
            bson::Bson::Binary(binary) => binary.bytes.iter().map(|b| format!("{b:02x}")).collect(),
            other => other.to_string(),
        };
        Some((session, self.command.get_i64("txnNumber").ok()?))
    }

    /// The documents an `insert` carried (none for any other command).
    pub fn inserted_documents(&self) -> Vec<&Document> {
        (self.command.get_array("documents").into_iter())
            .flatten()
            .filter_map(|document| document.as_document())
            .collect()
    }
}

impl CommandLog {
    pub(super) fn record(&self, event: &CommandEvent, lane: super::Lane) {
        if !self.recording.load(Ordering::Relaxed) {
            return;
        }
        match event {
            CommandEvent::Started(started)
                if started.command.get_str("comment") == Ok(super::BACKGROUND)
                    && !self.background.load(Ordering::Relaxed) => {}
            CommandEvent::Started(started) => {
                let collection = started
                    .command
                    .get_str(&started.command_name)
                    .ok()
                    .map(str::to_owned);
                let concern = |name: &str| {
                    started
                        .command
                        .get_document(name)
                        .ok()
                        .map(|concern| concern.to_string())
                };
                let command = SentCommand {
                    name: started.command_name.clone(),
                    collection,
                    write_concern: concern("writeConcern"),
                    read_concern: concern("readConcern"),
                    background: started.command.get_str("comment") == Ok(super::BACKGROUND),
                    reply_bytes: None,
                    lane,
                    command: started.command.clone(),
                    request_id: started.request_id,
                };
                self.sent.lock().expect("command log lock").push(command);
            }
            CommandEvent::Succeeded(succeeded) => {
                let mut sent = self.sent.lock().expect("command log lock");
                if let Some(command) = sent
                    .iter_mut()
                    .rev()
                    .find(|command| command.request_id == succeeded.request_id)
                {
                    let mut bytes = Vec::new();
                    command.reply_bytes = succeeded
                        .reply
                        .to_writer(&mut bytes)
                        .ok()
                        .map(|()| bytes.len());
                }
            }
            _ => {}
        }
    }

    /// Forgets what was recorded and records from now on.
    pub fn start(&self) {
        self.sent.lock().expect("command log lock").clear();
        self.background.store(false, Ordering::Relaxed);
        self.recording.store(true, Ordering::Relaxed);
    }

    /// [`CommandLog::start`], recording background tasks' commands too (the relay's).
    pub fn start_with_background(&self) {
        self.start();
        self.background.store(true, Ordering::Relaxed);
    }

    /// Everything recorded since [`CommandLog::start`] or the last `take`, and forgets it.
    pub fn take(&self) -> Vec<SentCommand> {
        std::mem::take(&mut *self.sent.lock().expect("command log lock"))
    }
}
