//! The keys' policy: how long a key is remembered, how long an attempt's lease lasts and how
//! long a request waits for another attempt with its key.

use std::time::Duration;

/// How long a key is remembered (at least the promised 24 hours).
pub const KEEP_SECONDS: u64 = 48 * 3600;

/// How the keys of a gateway behave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyPolicy {
    /// How long an attempt's lease lasts after its last heartbeat.
    pub lease: Duration,
    /// How long a request waits for a live attempt with its key before answering UNAVAILABLE
    /// (retry later); shorter than the request timeout.
    pub max_wait: Duration,
}

impl Default for KeyPolicy {
    fn default() -> Self {
        KeyPolicy {
            lease: Duration::from_secs(3),
            max_wait: Duration::from_secs(8),
        }
    }
}
