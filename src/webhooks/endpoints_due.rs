//! The handler of grown logs that webhooks registers with the event relay
//! (`channel_events::growth`): a channel's log grew, so its endpoints are due. The live relay's
//! growth marks only the channels that have endpoints (`endpoint_channels`: a booking of a
//! channel without any costs no command for them); a background pass's marks every channel.

use std::collections::BTreeSet;
use std::sync::Mutex;

use tokio::time::Instant;

use super::endpoint_channels::EndpointChannels;
use crate::channel_events::growth::LogsGrew;
use crate::error::ApiError;
use crate::store::Store;

/// Marks the endpoints of grown logs due.
pub struct EndpointsDue {
    store: Store,
    /// Which channels have endpoints, as last read.
    endpoints: Mutex<EndpointChannels>,
}

impl EndpointsDue {
    /// Marking through `store`'s background lane (the relay's: no request waits for it).
    pub fn new(store: Store) -> Self {
        EndpointsDue {
            store: store.background(),
            endpoints: Mutex::default(),
        }
    }

    /// Marks the endpoints of `channels` due; when that fails, keeps the channels aside for
    /// the next reading, a second later, which marks them then.
    async fn mark_or_keep_aside(&self, channels: Vec<String>) -> Result<(), ApiError> {
        let marked = self.store.mark_endpoints_due(&channels).await;
        if marked.is_err() {
            (self.endpoints.lock().expect("endpoints lock")).keep_aside(channels);
        }
        marked
    }
}

#[async_trait::async_trait]
impl LogsGrew for EndpointsDue {
    /// Marks due the endpoints of the channels of `grown` that have one, and of those that
    /// grew while they seemed to have none and have one now (reading which channels have
    /// endpoints when the last reading is [`ENDPOINTS_READ_EVERY`] old). A failed reading
    /// marks every channel of `grown`.
    ///
    /// [`ENDPOINTS_READ_EVERY`]: super::ENDPOINTS_READ_EVERY
    async fn live(&self, grown: BTreeSet<String>) -> Result<(), ApiError> {
        let stale = (self.endpoints.lock().expect("endpoints lock")).stale(Instant::now());
        let mut late = Vec::new();
        if stale {
            let read = self.store.channels_with_webhooks().await;
            let read = {
                let mut endpoints = self.endpoints.lock().expect("endpoints lock");
                match read {
                    Ok(channels) => Ok(endpoints.read(channels, Instant::now())),
                    Err(error) => {
                        endpoints.failed(Instant::now());
                        Err(error)
                    }
                }
            };
            match read {
                Ok(channels) => late = channels,
                Err(error) if grown.is_empty() => return Err(error),
                Err(error) => {
                    tracing::warn!(%error, "reading which channels have webhook endpoints failed");
                    return self.mark_or_keep_aside(grown.into_iter().collect()).await;
                }
            }
        }
        let mut due = (self.endpoints.lock().expect("endpoints lock")).sort(grown);
        due.extend(late);
        if due.is_empty() {
            return Ok(());
        }
        due.sort();
        due.dedup();
        self.mark_or_keep_aside(due).await
    }

    async fn pass(&self, grown: Vec<String>) -> Result<(), ApiError> {
        self.store.mark_endpoints_due(&grown).await
    }

    fn next_chore(&self) -> Option<Instant> {
        self.endpoints.lock().expect("endpoints lock").read_due()
    }
}
