//! The time the database server says it spent running commands (`serverStatus.opLatencies`:
//! reads, writes and other commands, in microseconds as the server times them; mongod from
//! starting a command to finishing it, the network not included; `transactions` is left out,
//! its statements being counted in the others). Divided by a step's length it is how many
//! commands were inside the server at once on average, as it sees them; beside the gateways'
//! own command time it shows how much of a command's time was spent waiting outside the server
//! (for its thread to get the CPU, or on the way).

use std::time::Duration;

use bson::Document;

/// The kinds of operation the server times, each command in one of them.
const KINDS: [&str; 3] = ["reads", "writes", "commands"];

/// The server's time in commands so far, from a `serverStatus` already read (the same reading
/// as the commands counted, so that one command, not two, is added to what it measures); None
/// when it keeps no `opLatencies` (the benchmark then prints "-").
pub fn so_far(status: &Document) -> Option<Duration> {
    let latencies = status.get_document("opLatencies").ok()?;
    let micros: u64 = KINDS
        .iter()
        .filter_map(|kind| latencies.get_document(kind).ok())
        .filter_map(micros)
        .sum();
    Some(Duration::from_micros(micros))
}

/// A kind's total latency, in microseconds (a number of any type, as for the counters).
fn micros(kind: &Document) -> Option<u64> {
    u64::try_from(super::opcounters::number(kind.get("latency")?)?).ok()
}
