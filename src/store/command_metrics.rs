//! The figures of every MongoDB command (`boxoffice_mongodb_commands_total`,
//! `boxoffice_mongodb_command_duration_seconds`), from the driver's command monitoring, on
//! unless `--command-metrics false`. Cheap by design: the collection is read off the started command in place (the value of
//! its first key, or `collection` for a `getMore`) and matched against the known collection
//! names, so a label is a `&'static str`; nothing of the command or its reply is copied. The
//! driver itself turns each reply into a `Document` for the event as soon as any monitor is
//! installed: that is the cost of these figures (see the README for what it measured).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mongodb::bson::Document;
use mongodb::event::command::CommandEvent;
use mongodb::event::EventHandler;

use super::{names, CommandLog, DatabaseOptions};
use crate::telemetry::metrics;

/// The driver's command monitor: these figures (`command_metrics`) and the tests' command log
/// (`monitor_commands`); none when neither is wanted (the driver then decodes no reply).
pub(super) fn handler(
    log: &Arc<CommandLog>,
    settings: &DatabaseOptions,
) -> Option<EventHandler<CommandEvent>> {
    let (count, monitor) = (settings.command_metrics, settings.monitor_commands);
    if !count && !monitor {
        return None;
    }
    let log = Arc::clone(log);
    let figures = CommandMetrics::default();
    Some(EventHandler::callback(move |event| {
        if count {
            figures.record(&event);
        }
        if monitor {
            log.record(&event);
        }
    }))
}

/// The collection of each command sent and not yet answered, by request id.
#[derive(Debug, Default)]
pub(super) struct CommandMetrics {
    in_flight: Mutex<HashMap<i32, &'static str>>,
}

impl CommandMetrics {
    /// Notes a started command, or records a finished one.
    pub(super) fn record(&self, event: &CommandEvent) {
        match event {
            CommandEvent::Started(started) => {
                let collection = collection_of(&started.command_name, &started.command);
                self.in_flight
                    .lock()
                    .expect("command metrics lock")
                    .insert(started.request_id, collection);
            }
            CommandEvent::Succeeded(succeeded) => {
                let collection = self.finished(succeeded.request_id);
                let name = &succeeded.command_name;
                metrics::mongodb_command(collection, name, true, succeeded.duration);
            }
            CommandEvent::Failed(failed) => {
                let collection = self.finished(failed.request_id);
                metrics::mongodb_command(collection, &failed.command_name, false, failed.duration);
            }
            _ => {}
        }
    }

    fn finished(&self, request_id: i32) -> &'static str {
        self.in_flight
            .lock()
            .expect("command metrics lock")
            .remove(&request_id)
            .unwrap_or("none")
    }
}

/// The collection a command addresses, as a label: one of the store's collections, `other`
/// for any other name, `none` when it names none (`ping`, a database `aggregate`, `hello`).
fn collection_of(name: &str, command: &Document) -> &'static str {
    let named = if name == "getMore" {
        command.get_str("collection").ok()
    } else {
        command.iter().next().and_then(|(_, value)| value.as_str())
    };
    match named {
        Some(named) => names::ALL
            .iter()
            .find(|collection| **collection == named)
            .copied()
            .unwrap_or("other"),
        None => "none",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mongodb::bson::doc;

    #[test]
    fn the_collection_is_the_first_value_or_the_get_mores() {
        assert_eq!(collection_of("find", &doc! { "find": "orders" }), "orders");
        let get_more = doc! { "getMore": 42_i64, "collection": "showtimes" };
        assert_eq!(collection_of("getMore", &get_more), "showtimes");
        assert_eq!(collection_of("ping", &doc! { "ping": 1 }), "none");
        assert_eq!(collection_of("insert", &doc! { "insert": "x" }), "other");
    }
}
