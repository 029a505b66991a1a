//! Each channel's log has one appender among the live gateways: a relay hands the events of
//! another's channels to it instead of appending them itself. Two relays appending to one
//! log race for its next sequence numbers, and each lost race is a refused insert, a read of
//! the log's end and another insert (with two gateways, 0.25 refused inserts per seat change
//! on 64 showtimes). The hand-off is only ever a matter of speed: appending stays correct
//! from any gateway, and a relay whose hand-off fails appends the events itself.
//!
//! The gateways' side (who appends which channel, and how events reach it) is made where the
//! process is assembled (`http::relay_handoff`); this feature names none of it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::EventRelay;
use crate::error::ApiError;
use crate::store::documents::OutboxEntryDoc;

/// Channels' entries handed to their appender: each channel's in the order they go in its log.
pub type Handed = Vec<(String, Vec<OutboxEntryDoc>)>;

/// Who appends which channel's events, and the way to them.
#[async_trait::async_trait]
pub trait Appenders: Send + Sync {
    /// The gateway that appends `channel`'s events when it is another one (None: this one).
    fn elsewhere(&self, channel: &str) -> Option<String>;

    /// Whether this gateway is one of the live gateways that share the logs out, one appender
    /// each (false: it knows no others, and appends every log it has events for, perhaps
    /// beside other gateways that do the same).
    fn one_per_log(&self) -> bool;

    /// How many gateways share the logs out, this one among them (1 when it appends every log
    /// it has events for).
    fn sharing(&self) -> usize;

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

impl EventRelay {
    /// From now on hands the events of channels another gateway appends to it (`handoff`).
    pub fn hand_to(&self, appenders: Arc<dyn Appenders>) {
        *self.appenders.write().expect("appenders lock") = Some(appenders);
    }

    /// Appends what another gateway's live relay handed over (`handoff`): each channel's
    /// entries in their order, after the events of it this process appended; how many events
    /// it added. The handler of grown logs is told, and the entries are known to be in the
    /// logs from then on (this relay's own rounds no longer wait for them).
    pub async fn append_handed(&self, logs: &Handed) -> Result<usize, ApiError> {
        let mut added = 0;
        let mut grown = BTreeSet::new();
        for (channel, entries) in logs {
            let entries: Vec<&OutboxEntryDoc> = entries.iter().collect();
            let appended = self.append_all(channel, &entries).await?;
            if appended > 0 {
                added += appended;
                grown.insert(channel.clone());
            }
        }
        crate::telemetry::metrics::events_appended(added);
        self.grew.live(grown).await?;
        Ok(added)
    }

    /// Hands the logs of `logs` another gateway appends to it, and takes them out of `logs`;
    /// those whose hand-off failed stay, for this relay to append.
    pub(super) async fn hand_off(&self, logs: &mut BTreeMap<String, Vec<&OutboxEntryDoc>>) {
        let appenders = self.appenders.read().expect("appenders lock").clone();
        let Some(appenders) = appenders else {
            return;
        };
        let mut by_gateway: BTreeMap<String, Handed> = BTreeMap::new();
        for (channel, entries) in logs.iter() {
            if let Some(gateway) = appenders.elsewhere(channel) {
                let entries = entries.iter().map(|entry| (*entry).clone()).collect();
                by_gateway
                    .entry(gateway)
                    .or_default()
                    .push((channel.clone(), entries));
            }
        }
        for (gateway, handed) in by_gateway {
            match appenders.hand(&gateway, &handed).await {
                Ok(()) => {
                    crate::telemetry::metrics::events_handed("handed");
                    for (channel, _) in &handed {
                        logs.remove(channel);
                    }
                }
                Err(error) => {
                    crate::telemetry::metrics::events_handed("appended_here");
                    tracing::warn!(%gateway, %error,
                        "handing events to the gateway that appends them failed: appending them here");
                }
            }
        }
    }
}
