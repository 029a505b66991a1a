//! This process among the gateways on one database: every heartbeat it records that it is
//! alive (`store/records.rs`) and learns how many gateways are, and its rate limits take that
//! share (`domain::rate_limit::Share`). A gateway that stops deletes its record; one that dies
//! stops being counted three heartbeats after its last.

use std::sync::Arc;
use std::time::Duration;

use crate::domain::rate_limit::Share;
use crate::store::Store;

use super::rules::LIVE_WITHIN_HEARTBEATS;

/// This process's membership: its id, how often it beats, and the share it keeps up to date.
#[derive(Debug, Clone)]
pub struct Membership {
    id: String,
    share: Arc<Share>,
    interval: Duration,
}

impl Membership {
    /// A fresh process id (process number and 64 random bits), beating every `interval`,
    /// keeping `share`.
    pub fn new(share: Arc<Share>, interval: Duration) -> Self {
        let id = format!("{}-{:016x}", std::process::id(), rand::random::<u64>());
        Membership {
            id,
            share,
            interval,
        }
    }

    /// The process id in the `gateways` collection.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// How often this process beats.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// One heartbeat: records this process alive and takes its share of the live gateways. A
    /// failed heartbeat keeps the share it had (logged); the next one tries again.
    pub async fn heartbeat(&self, store: &Store) {
        let window = self.interval * LIVE_WITHIN_HEARTBEATS;
        match store.gateway_heartbeat(&self.id, window).await {
            Ok(live) => {
                let before = self.share.get();
                if live != before {
                    tracing::info!(gateways = live, before, "live gateways changed");
                }
                self.share.set(live);
            }
            Err(error) => tracing::warn!(%error, "the gateway heartbeat failed"),
        }
    }

    /// Deletes this process's record (it is stopping).
    pub async fn leave(&self, store: &Store) {
        if let Err(error) = store.forget_gateway(&self.id).await {
            tracing::warn!(%error, "could not delete this gateway's record");
        }
    }
}
