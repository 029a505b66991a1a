//! Groups of clients started at once and stopped together.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use crate::client::Client;
use crate::record::Recorder;
use crate::seed::{Catalogue, CHANNELS};

/// Clients that run until their group is stopped.
pub struct Group {
    stop: Arc<AtomicBool>,
    tasks: Vec<JoinHandle<()>>,
}

impl Group {
    /// Starts clients `indices` at once. Client `i` uses channel `i % 8` and gateway
    /// `(i / 8) % gateways`, so every gateway sees every key and the keys are spread evenly.
    pub fn start(
        indices: std::ops::Range<usize>,
        urls: &[String],
        catalogue: &Arc<Catalogue>,
        recorder: &Recorder,
    ) -> Group {
        let stop = Arc::new(AtomicBool::new(false));
        let tasks = indices
            .map(|i| {
                let client = Client::new(
                    i,
                    urls[(i / CHANNELS) % urls.len()].clone(),
                    &catalogue.keys[i % CHANNELS],
                    Arc::clone(catalogue),
                    recorder.clone(),
                    Arc::clone(&stop),
                );
                tokio::spawn(client.run())
            })
            .collect();
        Group { stop, tasks }
    }

    /// Lets the clients finish the attempt they are in (at most their 5 s timeout), then
    /// aborts what is left.
    pub async fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        let grace = tokio::time::sleep(Duration::from_secs(6));
        tokio::pin!(grace);
        for mut task in self.tasks {
            tokio::select! {
                _ = &mut task => {}
                _ = &mut grace => task.abort(),
            }
        }
    }

    /// Drops the clients at once, requests in flight included, as buyers who go away.
    pub fn abort(self) {
        self.stop.store(true, Ordering::Relaxed);
        for task in self.tasks {
            task.abort();
        }
    }
}
