//! Health: `GET /health/live` (the process answers: always 200), `GET /health/ready` (200 only
//! when the database answers a ping within the database timeout and every index the store
//! creates at start-up is there; 503 naming what is missing otherwise), and `GET /health`
//! (the database answers a ping), kept for existing probes.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};

use super::AppState;

/// `GET /health`: 200 when the database answers a ping, 503 otherwise.
pub async fn health(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    match state.store.ping().await {
        Ok(()) => (StatusCode::OK, Json(json!({ "status": "ok" }))),
        Err(error) => {
            tracing::warn!(%error, "health check failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Json(json!({ "status": "unavailable" })),
            )
        }
    }
}

/// `GET /health/live`: the process is up and serving. Nothing else is checked: a restart
/// would not bring the database back.
pub async fn live() -> (StatusCode, Json<Value>) {
    (StatusCode::OK, Json(json!({ "status": "ok" })))
}

/// `GET /health/ready`: whether this gateway can serve, that is, the database answers within
/// the database timeout and has every index the gateway relies on.
pub async fn ready(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    let readiness = state.store.readiness().await;
    if readiness.is_ready() {
        return (StatusCode::OK, Json(json!({ "status": "ok" })));
    }
    tracing::warn!(
        database = readiness.database_error.as_deref().unwrap_or("ok"),
        missing_indexes = ?readiness.missing_indexes,
        "not ready"
    );
    let body = json!({
        "status": "unavailable",
        "database": readiness.database_error.as_deref().unwrap_or("ok"),
        "missingIndexes": readiness.missing_indexes,
    });
    (StatusCode::SERVICE_UNAVAILABLE, Json(body))
}
