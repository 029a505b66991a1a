//! The figures of every MongoDB call the store makes (`boxoffice_mongodb_commands_total`,
//! `boxoffice_mongodb_command_duration_seconds`), taken in `Store::bounded` around the
//! driver's future. The calling store function names the collection and the command
//! ([`Call`]), so nothing is read off the command and the driver needs no command monitor:
//! with one installed, the driver turns every reply into a `Document` for its event, which
//! cost 0.4 to 1.1 ms of CPU on a page of 100 showtimes (2.3–2.4 ms a request without it).
//! The time is the caller's: a `find` includes its `getMore`s, and waiting for a connection.
//! The tests' command log (`monitor_commands`, test builds) keeps the driver's monitor.

use std::sync::Arc;
use std::time::Duration;

use mongodb::event::command::CommandEvent;
use mongodb::event::EventHandler;

use super::{CommandLog, DatabaseOptions, Lane};
use crate::telemetry::metrics;

/// One store call, for its figures: the collection (`none` for a database command) and the
/// command it sends.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call {
    collection: &'static str,
    command: &'static str,
}

impl Call {
    pub(crate) const fn new(collection: &'static str, command: &'static str) -> Self {
        Call {
            collection,
            command,
        }
    }

    /// Counts and times the call.
    pub(super) fn record(self, succeeded: bool, took: Duration) {
        metrics::mongodb_command(self.collection, self.command, succeeded, took);
    }
}

/// The driver's command monitor for the tests' command log (`monitor_commands`); none
/// otherwise, so the driver decodes no reply for an event.
pub(super) fn handler(
    log: &Arc<CommandLog>,
    settings: &DatabaseOptions,
    lane: Lane,
) -> Option<EventHandler<CommandEvent>> {
    if !settings.monitor_commands {
        return None;
    }
    let log = Arc::clone(log);
    Some(EventHandler::callback(move |event| {
        log.record(&event, lane)
    }))
}
