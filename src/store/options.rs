//! How the gateway talks to the database: timeouts, write and read concerns, the pools of
//! its two lanes.

use std::time::Duration;

/// How the gateway talks to the database: how long it waits, and how durable a write must be
/// before it counts.
#[derive(Debug, Clone)]
pub struct DatabaseOptions {
    /// How long finding a server, and each operation, may take before the request is answered
    /// UNAVAILABLE.
    pub timeout: Duration,
    /// `w` of every write: `majority`, or a number of nodes.
    pub write_concern: WriteAcknowledgment,
    /// Whether a write must be in the journal before it is acknowledged.
    pub journal: bool,
    /// The read concern of every read (`majority`, `local`, `linearizable`).
    pub read_concern: String,
    /// Whether commands are recorded for [`Store::commands`] (round-trip and byte counts in
    /// tests). Off in production: the driver's command monitor decodes every reply. On by
    /// default when built with `test-hooks`.
    pub monitor_commands: bool,
    /// Connections for requests (see `gate`), and the ceiling of the door's limit on
    /// requests using the database at once; background work has [`BACKGROUND_POOL`] of its
    /// own.
    pub max_pool_size: u32,
    /// How long a request may wait at the door for a place (see `overload::door`).
    pub admission_wait: Duration,
    /// Whether the door's limit measures the database in the wall clock's probe slots
    /// (`overload::limit`): the gateway, yes; tests, which set the limit they need, no.
    pub latency_probes: bool,
    /// Whether the requests' connections are all opened at start, so a cold gateway meeting a
    /// crowd does not open them under it (the gateway: yes; tests, with a pool per test: no).
    pub open_connections_at_start: bool,
}

/// Connections of the background lane: the periodic passes, the event relay, webhook
/// deliveries, counters. Its change feeds (the live maps', the relay's) each hold one more while
/// they wait for changes, so the driver's pool for the lane is larger by [`FEEDS`].
pub const BACKGROUND_POOL: u32 = 4;

/// Connections a lane's driver pool has beyond its gate's permits: for the change streams
/// waiting on their `getMore`, and the commands that run past the gate (a cursor's later
/// batches, a transaction's commit), so that a command let through finds a connection.
pub(super) const FEEDS: u32 = 4;

/// `w` of a write concern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteAcknowledgment {
    Majority,
    Nodes(u32),
}

impl Default for DatabaseOptions {
    /// What production wants on a replica set: writes on a majority and in the journal,
    /// majority reads, and a 2-second bound on waiting for the database.
    fn default() -> Self {
        DatabaseOptions {
            timeout: Duration::from_secs(2),
            write_concern: WriteAcknowledgment::Majority,
            journal: true,
            read_concern: "majority".to_owned(),
            monitor_commands: cfg!(feature = "test-hooks"),
            max_pool_size: 32,
            admission_wait: crate::overload::door::WAIT,
            latency_probes: false,
            open_connections_at_start: false,
        }
    }
}
