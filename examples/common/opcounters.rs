//! The commands the database server has run, from `serverStatus.opcounters`: what a benchmark
//! divides by its successful seat changes to show how many commands each cost.
//!
//! The counters are the server's, not a database's or a client's: every client's commands
//! count, the gateway's background tasks' (intended: they are part of the cost) and the
//! drivers' monitoring `hello`s (a few per client every 10 s) included, so nothing else should
//! use the server during a measurement. They count as mongod does: an insert by its documents,
//! an update or a delete by its statements, every other command once.

use bson::{doc, Bson, Document};

/// The counters, each command in exactly one of them.
const COUNTERS: [&str; 6] = ["insert", "query", "update", "delete", "getmore", "command"];

/// The server's `serverStatus` now; None when it refuses it (the benchmarks then print "-").
pub async fn server_status(client: &mongodb::Client) -> Option<Document> {
    client
        .database("admin")
        .run_command(doc! { "serverStatus": 1 })
        .await
        .ok()
}

/// The commands the server has run so far, from a reading of [`server_status`]; None when it
/// keeps no `opcounters`.
pub fn commands_in(status: &Document) -> Option<i64> {
    Some(sum(status.get_document("opcounters").ok()?))
}

/// The commands run between two readings of [`commands_in`]. Each reading is one command itself,
/// counted before it answers (SecantusDB) or after (mongod): either way the difference holds
/// exactly one of the two `serverStatus`, which is taken off, so that only what happened
/// between them counts.
pub fn between(before: i64, after: i64) -> i64 {
    (after - before - 1).max(0)
}

fn sum(counters: &Document) -> i64 {
    COUNTERS
        .iter()
        .filter_map(|name| counters.get(name))
        .filter_map(number)
        .sum()
}

/// A counter, whatever type the server sends it as: mongod and SecantusDB send Int64, older or
/// other compatible servers may send Int32 or Double.
pub fn number(value: &Bson) -> Option<i64> {
    match value {
        Bson::Int32(n) => Some(i64::from(*n)),
        Bson::Int64(n) => Some(*n),
        Bson::Double(n) if n.is_finite() => Some(*n as i64),
        _ => None,
    }
}
