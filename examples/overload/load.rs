//! Groups of clients started at once and stopped together.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use crate::client::{Behaviour, Client, Route};
use crate::record::Recorder;
use crate::seed::Catalogue;

/// Clients that run until their group is stopped.
pub struct Group {
    stop: Arc<AtomicBool>,
    tasks: Vec<JoinHandle<()>>,
}

impl Group {
    /// Starts clients `indices` at once, behaving so. With the `channels` the behaviour uses
    /// (8 or 4), client `i` uses channel `i % channels` and gateway `(i / channels) %
    /// gateways`, so every gateway sees every key and the keys are spread evenly; the next
    /// gateway is its other one.
    pub fn start(
        indices: std::ops::Range<usize>,
        behaviour: Behaviour,
        urls: &[String],
        catalogue: &Arc<Catalogue>,
        recorder: &Recorder,
    ) -> Group {
        let stop = Arc::new(AtomicBool::new(false));
        let channels = behaviour.channels();
        let tasks = indices
            .map(|i| {
                let gateway = (i / channels) % urls.len();
                let route = Route {
                    gateway: urls[gateway].clone(),
                    other: urls[(gateway + 1) % urls.len()].clone(),
                };
                let client = Client::new(
                    i,
                    behaviour,
                    route,
                    &catalogue.keys[i % channels],
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
