//! Records the commands a client sends (the driver's command monitoring), so tests can assert
//! how many MongoDB round trips a request costs. Off until [`CommandLog::start`] is called, so a
//! production gateway keeps nothing.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use mongodb::event::command::CommandEvent;

/// The commands sent while recording, in order.
#[derive(Debug, Default)]
pub struct CommandLog {
    recording: AtomicBool,
    sent: Mutex<Vec<SentCommand>>,
}

/// One command sent to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentCommand {
    /// `find`, `aggregate`, `getMore`, ...
    pub name: String,
    /// The collection it addressed, when the command names one.
    pub collection: Option<String>,
    /// Its `writeConcern`, as sent (e.g. `{ "w": "majority", "j": true }`).
    pub write_concern: Option<String>,
    /// Its `readConcern`, as sent (e.g. `{ "level": "majority" }`).
    pub read_concern: Option<String>,
}

impl CommandLog {
    pub(super) fn record(&self, event: &CommandEvent) {
        if !self.recording.load(Ordering::Relaxed) {
            return;
        }
        if let CommandEvent::Started(started) = event {
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
            };
            self.sent.lock().expect("command log lock").push(command);
        }
    }

    /// Forgets what was recorded and records from now on.
    pub fn start(&self) {
        self.sent.lock().expect("command log lock").clear();
        self.recording.store(true, Ordering::Relaxed);
    }

    /// Everything recorded since [`CommandLog::start`] or the last `take`, and forgets it.
    pub fn take(&self) -> Vec<SentCommand> {
        std::mem::take(&mut *self.sent.lock().expect("command log lock"))
    }
}
