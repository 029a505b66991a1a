//! `POST /graphql`: refuses what is not JSON or is too large, reads and parses the body, then
//! (`run`, shared with GET) identifies the caller, applies the batch and rate limits, resolves
//! persisted queries and executes within the request timeout. Every refusal is a GraphQL error
//! with a code, given before any resolver runs.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use async_graphql::{BatchRequest, BatchResponse, Response as GqlResponse};

use axum::body::to_bytes;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::auth::authenticate;
use super::rate_limit::client_address;
use super::AppState;
use crate::error::ErrorCode;
use crate::graphql::{errors::error_with_code, prepare};

pub async fn graphql(State(state): State<AppState>, request: Request) -> Response {
    let limits = state.limits;
    let (parts, body) = request.into_parts();
    let headers = parts.headers;
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    // Refusals that need neither the body nor the database come first.
    if !is_json(&headers) {
        return rejected(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the request as `Content-Type: application/json`".into(),
            ErrorCode::BadUserInput,
        );
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|length| length.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limits.max_body_bytes as u64) {
        return too_large(limits.max_body_bytes);
    }
    let bytes = match to_bytes(body, limits.max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(_) => return too_large(limits.max_body_bytes),
    };
    let batch: BatchRequest = match serde_json::from_slice(&bytes) {
        Ok(batch) => batch,
        Err(error) => {
            // Said in the request's terms: serde's own message names our Rust types.
            let message = if error.is_syntax() || error.is_eof() {
                format!(
                    "the body is not valid JSON (line {}, column {})",
                    error.line(),
                    error.column()
                )
            } else {
                "the body must be a GraphQL request: an object with a `query` string (and \
                 optional `variables` object and `operationName`), or a list of them"
                    .to_owned()
            };
            return rejected(StatusCode::BAD_REQUEST, message, ErrorCode::BadUserInput);
        }
    };
    run(&state, &headers, peer, batch, Via::Post).await
}

/// How a request came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Via {
    Post,
    /// A GET: queries only, and an anonymous answer may be cached.
    Get,
}

/// Runs parsed operations: identifies the caller, applies the batch and rate limits, executes
/// within the request timeout, and answers (503 when the database was away; on GET, the
/// answer's `Cache-Control`).
pub(super) async fn run(
    state: &AppState,
    headers: &HeaderMap,
    peer: Option<IpAddr>,
    batch: BatchRequest,
    via: Via,
) -> Response {
    let limits = state.limits;
    let caller = match authenticate(&state.store, &state.known_keys, headers).await {
        Ok(caller) => caller,
        Err(error) if error.effect_unknown() => {
            tracing::error!(%error, "authenticating a request");
            let mut response = rejected(
                StatusCode::SERVICE_UNAVAILABLE,
                error.client_message(),
                ErrorCode::Unavailable,
            );
            retry_after(&mut response, RETRY_UNAVAILABLE_SECONDS);
            return response;
        }
        Err(error) => {
            let mut response = rejected(
                StatusCode::UNAUTHORIZED,
                error.client_message(),
                error.code(),
            );
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return response;
        }
    };
    let mut batch = match batch {
        BatchRequest::Batch(requests) if requests.len() > limits.max_batch => {
            let message = format!(
                "a batch may hold at most {} operations, got {}",
                limits.max_batch,
                requests.len()
            );
            return rejected(StatusCode::BAD_REQUEST, message, ErrorCode::BadUserInput);
        }
        BatchRequest::Batch(requests) if requests.is_empty() => {
            return rejected(
                StatusCode::BAD_REQUEST,
                "a batch must hold an operation".into(),
                ErrorCode::BadUserInput,
            );
        }
        other => other,
    };
    let cost = match &batch {
        BatchRequest::Single(_) => 1,
        BatchRequest::Batch(requests) => requests.len() as u32,
    };
    if let Some(channel) = &caller.channel {
        if let Err(wait) = state.rate_limiter.check(channel, caller.rate_limit, cost) {
            return rate_limited(&format!("channel {channel}"), wait);
        }
    } else if let Some(client) = client_address(headers, state.client_ip_header.as_ref(), peer) {
        if let Err(wait) = state.anonymous_limiter.check(&client, None, cost) {
            return rate_limited(&format!("client {client}"), wait);
        }
    }
    let refusal = match &mut batch {
        BatchRequest::Single(request) => state.persisted_queries.resolve(request).err(),
        BatchRequest::Batch(requests) => requests
            .iter_mut()
            .find_map(|request| state.persisted_queries.resolve(request).err()),
    };
    if let Some(refusal) = refusal {
        // Apollo clients answer a not-found hash by sending the query: a 200 with the code.
        let status = match refusal.code {
            ErrorCode::PersistedQueryNotFound => StatusCode::OK,
            _ => StatusCode::BAD_REQUEST,
        };
        return rejected(status, refusal.message, refusal.code);
    }
    let prepared = match batch {
        BatchRequest::Single(request) => {
            BatchRequest::Single(prepare(request, &state.store, state.settings(), &caller))
        }
        BatchRequest::Batch(requests) => BatchRequest::Batch(
            requests
                .into_iter()
                .map(|request| prepare(request, &state.store, state.settings(), &caller))
                .collect(),
        ),
    };
    let timeout = Duration::from_millis(limits.request_timeout_ms);
    let Ok(responses) = tokio::time::timeout(timeout, state.schema.execute_batch(prepared)).await
    else {
        tracing::warn!(
            timeout_ms = limits.request_timeout_ms,
            "a request timed out"
        );
        let message = format!(
            "the request did not finish within {} ms and was stopped; a write may or may not \
             have happened: retry it with its idempotency key",
            limits.request_timeout_ms
        );
        return rejected(
            StatusCode::GATEWAY_TIMEOUT,
            message,
            ErrorCode::RequestTimeout,
        );
    };
    let unavailable = match &responses {
        BatchResponse::Single(response) => is_unavailable(response),
        BatchResponse::Batch(responses) => responses.iter().any(is_unavailable),
    };
    if unavailable {
        let mut response = (StatusCode::SERVICE_UNAVAILABLE, Json(responses)).into_response();
        retry_after(&mut response, RETRY_UNAVAILABLE_SECONDS);
        return response;
    }
    let cache_control = match (&responses, via, &caller.channel) {
        // An anonymous read of the catalogue may be cached for as long as every type it
        // touched allows (seat maps and sales figures allow none).
        (BatchResponse::Single(response), Via::Get, None) if response.errors.is_empty() => {
            response.cache_control.value()
        }
        // A channel's answers are its own.
        (_, Via::Get, Some(_)) => Some("private, no-store".to_owned()),
        _ => None,
    };
    let mut response = Json(responses).into_response();
    if let Some(value) = cache_control.and_then(|v| HeaderValue::from_str(&v).ok()) {
        response.headers_mut().insert(header::CACHE_CONTROL, value);
        response
            .headers_mut()
            .insert(header::VARY, HeaderValue::from_static("authorization"));
    }
    response
}

/// Whether the body is declared as JSON: `application/json`, or
/// `application/graphql-response+json`, with any parameters (`charset=utf-8`). Anything else
/// (a form, `text/plain`, nothing) is refused: a browser may send those cross-origin without a
/// preflight, so running them would let any web page post mutations.
fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = value.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case("application/json")
        || essence.eq_ignore_ascii_case("application/graphql-response+json")
}

/// 413 for a body over the limit: refused from its `Content-Length` before it is read, or
/// once reading it passes the limit.
fn too_large(max_body_bytes: usize) -> Response {
    let message = format!("the request body is larger than {max_body_bytes} bytes");
    let mut response = rejected(
        StatusCode::PAYLOAD_TOO_LARGE,
        message,
        ErrorCode::BadUserInput,
    );
    // The rest of the body is not read: the connection cannot be reused.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// How soon a client may retry a request the database was unavailable for.
const RETRY_UNAVAILABLE_SECONDS: u64 = 1;

/// Whether an error of the response says the database was unavailable: the whole answer is
/// then a 503 with `Retry-After`, so that clients and proxies retry it.
fn is_unavailable(response: &GqlResponse) -> bool {
    response.errors.iter().any(|error| {
        error.extensions.as_ref().and_then(|e| e.get("code"))
            == Some(&async_graphql::Value::from(ErrorCode::Unavailable.as_str()))
    })
}

fn retry_after(response: &mut Response, seconds: u64) {
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
}

/// 429 RATE_LIMITED, saying when to come back: `Retry-After` in whole seconds, and
/// `extensions.retryAfterMs`.
fn rate_limited(who: &str, wait: Duration) -> Response {
    let millis = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
    let message = format!("{who} is over its rate limit; retry in {millis} ms");
    let mut error = error_with_code(message, ErrorCode::RateLimited);
    error
        .extensions
        .get_or_insert_with(Default::default)
        .set("retryAfterMs", millis);
    let response = GqlResponse::from_errors(vec![error]);
    let mut response = (
        StatusCode::TOO_MANY_REQUESTS,
        Json(BatchResponse::Single(response)),
    )
        .into_response();
    retry_after(&mut response, millis.div_ceil(1000));
    response
}

/// A request refused before execution: a GraphQL error response with a code.
pub(super) fn rejected(status: StatusCode, message: String, code: ErrorCode) -> Response {
    let response = GqlResponse::from_errors(vec![error_with_code(message, code)]);
    (status, Json(BatchResponse::Single(response))).into_response()
}
