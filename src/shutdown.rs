//! Stopping a gateway process gracefully. One [`Shutdown`] per process: the signal handler
//! triggers it; the HTTP server stops accepting connections, WebSocket connections close with
//! 1001 ("going away"), the background loop stops between two steps, and the requests still in
//! flight are counted so the process can say how many it dropped when the grace runs out.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::watch;

/// The process's shutdown switch and its count of requests in flight; cheap to clone.
#[derive(Debug, Clone)]
pub struct Shutdown {
    requested: Arc<watch::Sender<bool>>,
    in_flight: Arc<AtomicUsize>,
}

impl Default for Shutdown {
    fn default() -> Self {
        Shutdown {
            requested: Arc::new(watch::channel(false).0),
            in_flight: Arc::default(),
        }
    }
}

impl Shutdown {
    /// Asks everything to stop (idempotent).
    pub fn trigger(&self) {
        self.requested.send_replace(true);
    }

    /// Whether a shutdown was asked for.
    pub fn is_requested(&self) -> bool {
        *self.requested.borrow()
    }

    /// Resolves once a shutdown is asked for (at once if it was already).
    pub async fn requested(&self) {
        let mut watching = self.requested.subscribe();
        // The sender lives as long as `self`, so `wait_for` cannot fail while we wait.
        let _ = watching.wait_for(|requested| *requested).await;
    }

    /// The same as [`Shutdown::requested`], owning its handle (for `'static` futures).
    pub fn requested_owned(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let this = self.clone();
        async move { this.requested().await }
    }

    /// Counts a request in flight until the guard is dropped.
    pub fn track_request(&self) -> InFlight {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        InFlight(Arc::clone(&self.in_flight))
    }

    /// The requests in flight now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::SeqCst)
    }
}

/// A request in flight; dropping it (the request answered, or dropped) counts it out.
#[derive(Debug)]
pub struct InFlight(Arc<AtomicUsize>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Shutdown {
    /// Triggers this shutdown at the first SIGTERM or Ctrl-C (a task of its own).
    pub fn on_signal(&self) {
        let this = self.clone();
        tokio::spawn(async move {
            let signal = signalled().await;
            tracing::info!(
                signal,
                "stopping: no new connections, finishing requests in flight"
            );
            this.trigger();
        });
    }
}

/// How a graceful stop went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Drained {
    /// HTTP requests still running when the grace ran out (dropped).
    pub requests_dropped: usize,
    /// WebSocket connections still open when the grace ran out (dropped).
    pub websockets_dropped: usize,
    /// How long the stop took, from the shutdown request.
    pub took: std::time::Duration,
}

/// The end of a graceful stop, once the HTTP side is `drained`: waits for the background loop
/// (stopped between two steps) within what is left of `grace`, then closes the database
/// client. Logs what the grace dropped.
pub async fn finish(
    store: &crate::store::Store,
    background: tokio::task::JoinHandle<()>,
    drained: Drained,
    grace: std::time::Duration,
) {
    if drained.requests_dropped > 0 || drained.websockets_dropped > 0 {
        tracing::warn!(
            requests = drained.requests_dropped,
            websockets = drained.websockets_dropped,
            grace_ms = grace.as_millis() as u64,
            "the grace ran out: dropping what is still running"
        );
    }
    let left = grace.saturating_sub(drained.took);
    match tokio::time::timeout(left, background).await {
        Ok(_) => tracing::debug!("the background loop stopped"),
        Err(_) => tracing::warn!("the grace ran out: dropping the background step in progress"),
    }
    store.shutdown().await;
    tracing::debug!("the database client is closed");
    tracing::info!(
        took_ms = drained.took.as_millis() as u64,
        requests_dropped = drained.requests_dropped,
        "stopped"
    );
}

/// Resolves at the first SIGTERM or Ctrl-C (SIGINT), saying which.
pub async fn signalled() -> &'static str {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => tokio::select! {
                _ = terminate.recv() => "SIGTERM",
                _ = tokio::signal::ctrl_c() => "SIGINT",
            },
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM; Ctrl-C only");
                let _ = tokio::signal::ctrl_c().await;
                "SIGINT"
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
        "Ctrl-C"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_trigger_wakes_every_waiter_and_requests_are_counted() {
        let shutdown = Shutdown::default();
        let waiter = tokio::spawn(shutdown.requested_owned());
        let first = shutdown.track_request();
        let second = shutdown.track_request();
        assert_eq!(shutdown.in_flight(), 2);
        drop(first);
        assert_eq!(shutdown.in_flight(), 1);
        assert!(!shutdown.is_requested());
        shutdown.trigger();
        waiter.await.unwrap();
        assert!(shutdown.is_requested());
        // A late waiter returns at once.
        shutdown.requested().await;
        drop(second);
        assert_eq!(shutdown.in_flight(), 0);
    }
}
