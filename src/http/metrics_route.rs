//! `GET /metrics`: the process's figures in the Prometheus text format (`telemetry::metrics`),
//! with the live hub's gauges and the background tasks' lags read at the moment of the scrape.

use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};

use super::AppState;
use crate::telemetry::metrics;

/// The media type of the Prometheus text format.
const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The exposition.
pub async fn metrics(State(state): State<AppState>) -> Response {
    let open = state
        .limits
        .max_live_connections
        .saturating_sub(state.live_connections.available_permits());
    // A shared subscription runs once in `live`; its other members count too.
    let shared = (state.fan_out.as_ref()).map_or(0, |fan_out| fan_out.members_beyond_leaders());
    let subscriptions = state.live.subscriptions() + shared;
    metrics::live(open, subscriptions);
    let admission = metrics::Admission {
        limit: state.store.admission_limit(),
        probe_limit: state.store.admission_probe_limit(),
        baseline: state.store.admission_baseline(),
    };
    metrics::requests_in_flight(state.admission.in_flight(), admission);
    let body = metrics::render();
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(PROMETHEUS_TEXT),
        )],
        body,
    )
        .into_response()
}
