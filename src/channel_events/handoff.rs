//! Each channel's log has one appender among the live gateways: a relay hands the events of
//! another's channels to it instead of appending them itself. Two relays appending to one
//! log race for its next sequence numbers, and each lost race is a refused insert, a read of
//! the log's end and another insert (with two gateways, 0.25 refused inserts per seat change
//! on 64 showtimes). The hand-off is only ever a matter of speed: appending stays correct
//! from any gateway, and a relay whose hand-off fails appends the events itself.
//!
//! The gateways' side (who appends which channel, and how events reach it) is made where the
//! process is assembled (`http::relay_handoff`); this feature names none of it.

use crate::error::ApiError;
use crate::store::documents::OutboxEntryDoc;

/// Channels' entries handed to their appender: each channel's in the order they go in its log.
pub type Handed = Vec<(String, Vec<OutboxEntryDoc>)>;

/// Who appends which channel's events, and the way to them.
#[async_trait::async_trait]
pub trait Appenders: Send + Sync {
    /// The gateway that appends `channel`'s events when it is another one (None: this one).
    fn elsewhere(&self, channel: &str) -> Option<String>;

    /// Hands `logs` to gateway `to`, which appends them before it answers; an error when it
    /// may not have (the caller appends them itself: the log takes each event once).
    async fn hand(&self, to: &str, logs: &Handed) -> Result<(), ApiError>;
}

/// `logs` as the bytes a hand-off sends.
pub fn encode(logs: &Handed) -> Result<Vec<u8>, ApiError> {
    super::store::handed::encode(logs)
}

/// The logs a hand-off's bytes hold; BAD_USER_INPUT when they hold none.
pub fn decode(bytes: &[u8]) -> Result<Handed, ApiError> {
    super::store::handed::decode(bytes)
}
