//! Serving until the process is asked to stop, then stopping gracefully: no new connections
//! (the listener is closed), the requests in flight finish within the grace, WebSocket
//! connections close with 1001 "going away" (`websocket`); whatever is still running when the
//! grace is over is dropped, and counted.

use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tokio::time::{timeout_at, Instant};

use super::{app, serve, AppState};
use crate::shutdown::{Drained, Shutdown};

/// Counts every request in flight (so a shutdown can tell how many its grace dropped).
pub(super) async fn count_in_flight(
    State(shutdown): State<Shutdown>,
    request: Request,
    next: Next,
) -> Response {
    let _in_flight = shutdown.track_request();
    next.run(request).await
}

/// Serves `state`'s gateway on `listener` until `state.shutdown` is triggered, then waits up
/// to `grace` for the requests in flight and the WebSocket connections to end.
pub async fn serve_until_shutdown(
    listener: tokio::net::TcpListener,
    state: AppState,
    grace: Duration,
) -> std::io::Result<Drained> {
    let shutdown = state.shutdown.clone();
    let connections = std::sync::Arc::clone(&state.live_connections);
    let all_connections = u32::try_from(state.limits.max_live_connections).unwrap_or(u32::MAX);
    let server = serve(listener, app(state), shutdown.requested_owned());
    tokio::pin!(server);
    // The server ends by itself only on an error, or when the shutdown found nothing to wait
    // for and both were ready at once.
    let served = tokio::select! {
        served = &mut server => Some(served),
        () = shutdown.requested() => None,
    };
    let started = Instant::now();
    let deadline = started + grace;
    let requests_dropped = match served {
        Some(served) => served.map(|()| 0)?,
        None => match timeout_at(deadline, &mut server).await {
            Ok(served) => served.map(|()| 0)?,
            Err(_) => shutdown.in_flight(),
        },
    };
    // Upgraded connections are no longer the server's: wait for their permits to come back.
    let websockets_drained = timeout_at(deadline, connections.acquire_many(all_connections)).await;
    let open_websockets = all_connections as usize - connections.available_permits();
    Ok(Drained {
        requests_dropped,
        websockets_dropped: match websockets_drained {
            Ok(_) => 0,
            Err(_) => open_websockets,
        },
        took: started.elapsed(),
    })
}
