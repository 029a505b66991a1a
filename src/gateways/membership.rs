//! This process among the gateways on one database: every heartbeat it records that it is
//! alive and what it wants of the database (`store/records.rs`), and learns how many gateways
//! are, and its rate limits take that share (`domain::rate_limit::Share`), which take
//! showtimes' writes (`Peers`), and what the others want: its share of the requests' pool
//! (`overload::limit::pool_share`). A gateway that stops deletes its record; one that dies
//! stops being counted three heartbeats after its last.

use std::sync::Arc;
use std::time::Duration;

use crate::domain::rate_limit::Share;
use crate::overload::limit::pool_share;
use crate::store::Store;

use super::peers::Peers;
use super::rules::LIVE_WITHIN_HEARTBEATS;
use super::store::Seen;

/// This process's membership: its id, how often it beats, and the share it keeps up to date.
#[derive(Debug, Clone)]
pub struct Membership {
    share: Arc<Share>,
    peers: Arc<Peers>,
    interval: Duration,
}

impl Membership {
    /// A fresh process id (process number and 64 random bits), beating every `interval`,
    /// keeping `share`, reachable by the other gateways at `url` (None: it takes no writes of
    /// theirs, `Peers`).
    pub fn new(share: Arc<Share>, interval: Duration, url: Option<String>) -> Self {
        let id = format!("{}-{:016x}", std::process::id(), rand::random::<u64>());
        Membership {
            share,
            peers: Arc::new(Peers::new(id, url)),
            interval,
        }
    }

    /// The process id in the `gateways` collection.
    pub fn id(&self) -> &str {
        self.peers.id()
    }

    /// The gateways this process sends showtimes' writes to, kept by the heartbeat.
    pub fn peers(&self) -> Arc<Peers> {
        Arc::clone(&self.peers)
    }

    /// How many gateways were live at the last heartbeat, this one among them (1 at least).
    pub fn gateways(&self) -> usize {
        usize::try_from(self.share.get()).unwrap_or(usize::MAX)
    }

    /// How often this process beats.
    pub fn interval(&self) -> Duration {
        self.interval
    }

    /// One heartbeat: records this process alive and what it wants of the database, takes
    /// its share of the live gateways and learns which take writes. A failed heartbeat keeps
    /// what it had (logged); the next one tries again.
    pub async fn heartbeat(&self, store: &Store) {
        let window = self.interval * LIVE_WITHIN_HEARTBEATS;
        let demand = store.take_request_demand();
        match (store.gateway_heartbeat(self.id(), self.peers.url(), window, demand)).await {
            Ok(Seen {
                live,
                reachable,
                demands,
            }) => {
                self.peers.set_live(reachable);
                let before = self.share.get();
                if live != before {
                    tracing::info!(gateways = live, before, "live gateways changed");
                }
                self.share.set(live);
                // The gateways probe the database's latency at the same moments: each with
                // its part of the requests, so that together they measure it with few queued.
                // The pool they share goes by what each wants: writes go to a showtime's
                // owner, so one may have all the work.
                store.set_gateways(live, pool_share(demand, &demands));
            }
            Err(error) => tracing::warn!(%error, "the gateway heartbeat failed"),
        }
    }

    /// Deletes this process's record (it is stopping).
    pub async fn leave(&self, store: &Store) {
        if let Err(error) = store.forget_gateway(self.id()).await {
            tracing::warn!(%error, "could not delete this gateway's record");
        }
    }
}
