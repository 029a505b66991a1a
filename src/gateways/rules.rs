//! When a gateway stops being counted, and when its record goes.

use std::time::Duration;

/// A gateway not heard of for this many heartbeats is not counted any more.
pub const LIVE_WITHIN_HEARTBEATS: u32 = 3;

/// How long after its last heartbeat the TTL index removes a process's record (the count
/// stops counting it far earlier, after [`LIVE_WITHIN_HEARTBEATS`]).
pub const RECORD_TTL: Duration = Duration::from_secs(300);
