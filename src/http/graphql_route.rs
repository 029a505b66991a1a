//! `POST /graphql`: reads the body within the size limit, parses one operation or a batch
//! within the batch limit, and runs it. Limit and parse failures are answered as GraphQL errors
//! with a code, before any resolver runs.

use async_graphql::{BatchRequest, BatchResponse, Response as GqlResponse};
use axum::body::{to_bytes, Body};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::AppState;
use crate::error::ErrorCode;
use crate::graphql::{errors::error_with_code, prepare};

pub async fn graphql(State(state): State<AppState>, body: Body) -> Response {
    let limits = state.limits;
    let bytes = match to_bytes(body, limits.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(_) => {
            let message = format!(
                "the request body is larger than {} bytes",
                limits.max_body_bytes
            );
            return rejected(StatusCode::PAYLOAD_TOO_LARGE, message);
        }
    };
    let batch: BatchRequest = match serde_json::from_slice(&bytes) {
        Ok(batch) => batch,
        Err(error) => {
            let message = format!("the body is not a GraphQL request in JSON: {error}");
            return rejected(StatusCode::BAD_REQUEST, message);
        }
    };
    let batch = match batch {
        BatchRequest::Batch(requests) if requests.len() > limits.max_batch => {
            let message = format!(
                "a batch may hold at most {} operations, got {}",
                limits.max_batch,
                requests.len()
            );
            return rejected(StatusCode::BAD_REQUEST, message);
        }
        BatchRequest::Batch(requests) if requests.is_empty() => {
            return rejected(
                StatusCode::BAD_REQUEST,
                "a batch must hold an operation".into(),
            );
        }
        other => other,
    };
    let prepared = match batch {
        BatchRequest::Single(request) => {
            BatchRequest::Single(prepare(request, &state.store, limits.pages()))
        }
        BatchRequest::Batch(requests) => BatchRequest::Batch(
            requests
                .into_iter()
                .map(|request| prepare(request, &state.store, limits.pages()))
                .collect(),
        ),
    };
    Json(state.schema.execute_batch(prepared).await).into_response()
}

/// A request refused before execution: a GraphQL error response with BAD_USER_INPUT.
fn rejected(status: StatusCode, message: String) -> Response {
    let response =
        GqlResponse::from_errors(vec![error_with_code(message, ErrorCode::BadUserInput)]);
    (status, Json(BatchResponse::Single(response))).into_response()
}
