//! `POST /graphql`: chooses the answer's media type from `Accept` (406 when none fits), refuses
//! what is not JSON or is too large, reads and parses the body, then (`run`, shared with GET)
//! identifies the caller, applies the batch and rate limits, resolves persisted queries, sends
//! a write of another gateway's showtime to it (`forward`) and executes within the request
//! timeout. Every refusal is a GraphQL error with a code, given
//! before any resolver runs.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use async_graphql::{BatchRequest, BatchResponse};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::auth::authenticate;
use super::body;
use super::forward::{self, Hop};
use super::media::{self, Media};
use super::rate_limit::{charge, client_address};
use super::reply::{self, rate_limited, refused, too_large};
use super::AppState;
use crate::error::ErrorCode;
use crate::graphql::MAX_VARIABLE_LIST;
use crate::overload::{deadline, Class};
use crate::schema::prepare;

pub async fn graphql(State(state): State<AppState>, request: Request) -> Response {
    let arrived = Instant::now();
    let Some(media) = media::negotiate(request.headers(), &[Media::GraphqlResponse, Media::Json])
    else {
        return not_acceptable();
    };
    // Over the in-flight cap, refused before anything else is done (see `overload`).
    let _admitted = match state.admission.try_admit() {
        Ok(admitted) => admitted,
        Err(refusal) => return reply::unavailable(media, refusal.client_message()),
    };
    let deadline = arrived + Duration::from_millis(state.limits.request_timeout_ms);
    // Boxed: the request's future is large, and a debug build would hold copies of it on the
    // stack in every frame it passes through.
    deadline::within(deadline, Box::pin(post(state, request, media))).await
}

async fn post(state: AppState, request: Request, media: Media) -> Response {
    let limits = state.limits;
    let (parts, body) = request.into_parts();
    let headers = parts.headers;
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    // Refusals that need neither the body nor the database come first.
    if !is_json(&headers) {
        return refused(
            media,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the request as `Content-Type: application/json`".into(),
            ErrorCode::BadUserInput,
        );
    }
    let bytes = match body::read(body, &headers, limits.max_body_bytes).await {
        body::Read::Whole(bytes) => bytes,
        body::Read::TooLarge => return too_large(media, limits.max_body_bytes),
        body::Read::Broken => {
            return refused(
                media,
                StatusCode::BAD_REQUEST,
                "the request body ended before its end".into(),
                ErrorCode::BadUserInput,
            )
        }
    };
    if let Some(refusal) = list_too_long(media, &bytes) {
        return refusal;
    }
    let batch = match parse_batch(&bytes, limits.max_batch) {
        Ok(Parsed::Request(batch)) => *batch,
        Ok(Parsed::TooLong(operations)) => {
            return batch_too_long(media, limits.max_batch, operations)
        }
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
            return refused(
                media,
                StatusCode::BAD_REQUEST,
                message,
                ErrorCode::BadUserInput,
            );
        }
    };
    let hop = super::forward::hop(&state, &headers, &bytes);
    run(&state, &headers, peer, batch, Via::Post, media, hop).await
}

/// 400 when the body holds a list longer than any argument takes, found before the body is
/// parsed into a request (None when it holds none, or is not JSON: the parse says so).
fn list_too_long(media: Media, bytes: &[u8]) -> Option<Response> {
    let longest = super::json_lists::longest_list(bytes).ok()?;
    (longest > MAX_VARIABLE_LIST).then(|| {
        refused(
            media,
            StatusCode::BAD_REQUEST,
            format!("a list in the request has {longest} items; at most {MAX_VARIABLE_LIST}"),
            ErrorCode::BadUserInput,
        )
    })
}

fn batch_too_long(media: Media, max_batch: usize, operations: usize) -> Response {
    let message = format!("a batch may hold at most {max_batch} operations, got {operations}");
    refused(
        media,
        StatusCode::BAD_REQUEST,
        message,
        ErrorCode::BadUserInput,
    )
}

/// A body as parsed: a request or a batch within the cap, or a batch of this many operations
/// over it.
enum Parsed {
    Request(Box<BatchRequest>),
    TooLong(usize),
}

/// Parses a body into one request or a batch, stopping at the batch's cap: the operations past
/// it are skipped unread (counted, never built), so a body of thousands of `{}` costs no
/// allocation per operation.
fn parse_batch(bytes: &[u8], max_batch: usize) -> serde_json::Result<Parsed> {
    use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

    struct Batch(usize);

    impl<'de> Visitor<'de> for Batch {
        type Value = Parsed;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a GraphQL request or a list of them")
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Parsed, A::Error> {
            let request =
                serde::Deserialize::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
            Ok(Parsed::Request(Box::new(BatchRequest::Single(request))))
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parsed, A::Error> {
            let mut requests = Vec::new();
            while requests.len() < self.0 {
                match seq.next_element()? {
                    Some(request) => requests.push(request),
                    None => return Ok(Parsed::Request(Box::new(BatchRequest::Batch(requests)))),
                }
            }
            let mut operations = requests.len();
            while seq.next_element::<IgnoredAny>()?.is_some() {
                operations += 1;
            }
            Ok(if operations > self.0 {
                Parsed::TooLong(operations)
            } else {
                Parsed::Request(Box::new(BatchRequest::Batch(requests)))
            })
        }
    }

    impl<'de> DeserializeSeed<'de> for Batch {
        type Value = Parsed;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Parsed, D::Error> {
            deserializer.deserialize_any(self)
        }
    }

    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let parsed = Batch(max_batch).deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(parsed)
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
    media: Media,
    hop: Hop,
) -> Response {
    let limits = state.limits;
    let caller = match authenticate(&state.store, &state.known_keys, headers).await {
        Ok(caller) => caller,
        Err(error) => return reply::authentication_failed(media, &error),
    };
    let mut batch = match batch {
        BatchRequest::Batch(requests) if requests.len() > limits.max_batch => {
            return batch_too_long(media, limits.max_batch, requests.len());
        }
        BatchRequest::Batch(requests) if requests.is_empty() => {
            return refused(
                media,
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
    let client = client_address(headers, state.client_ip_header.as_ref(), peer);
    // A gateway that sends a write on charged its caller already.
    if hop != Hop::Peer {
        if let Err((who, wait)) = charge(state, &caller, client.as_deref(), cost) {
            return rate_limited(media, &who, wait);
        }
    }
    let refusal = match &mut batch {
        BatchRequest::Single(request) => state.persisted_queries.resolve(request).err(),
        BatchRequest::Batch(requests) => requests
            .iter_mut()
            .find_map(|request| state.persisted_queries.resolve(request).err()),
    };
    if let Some(refusal) = refusal {
        // Apollo clients answer a not-found hash by sending the query: a 200 with the code
        // (a 400 under `application/graphql-response+json`, where Apollo reads it too).
        let status = match refusal.code {
            ErrorCode::PersistedQueryNotFound => StatusCode::OK,
            _ => StatusCode::BAD_REQUEST,
        };
        return refused(media, status, refusal.message, refusal.code);
    }
    let without_query = match &batch {
        BatchRequest::Single(request) => request.query.trim().is_empty(),
        BatchRequest::Batch(requests) => requests.iter().any(|r| r.query.trim().is_empty()),
    };
    if without_query {
        return refused(
            media,
            StatusCode::BAD_REQUEST,
            "the request has no `query`: send the operation's text (or, once the gateway has \
             it, its `extensions.persistedQuery.sha256Hash`)"
                .into(),
            ErrorCode::BadUserInput,
        );
    }
    // The request's time left (its deadline counts from its arrival), or the whole timeout
    // when run outside one.
    let timeout =
        deadline::remaining().unwrap_or_else(|| Duration::from_millis(limits.request_timeout_ms));
    // A write of a showtime another gateway owns goes there (`forward`).
    if let (Hop::Client, BatchRequest::Single(request)) = (hop, &mut batch) {
        if let Some(answer) = forward::to_owner(state, headers, request, media, timeout).await {
            return answer;
        }
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
    // From here on the request's commands take it a place at the door (`overload::door`);
    // its resolvers may say it starts or finishes a purchase.
    deadline::classify(Class::Read);
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
        return refused(
            media,
            StatusCode::GATEWAY_TIMEOUT,
            message,
            ErrorCode::RequestTimeout,
        );
    };
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
    let mut response = reply::answer(media, &responses);
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

/// 406: the client accepts neither type a GraphQL answer can take. Said in JSON all the same
/// (the one body a client may still read), with the types it could ask for in `Accept`.
pub(super) fn not_acceptable() -> Response {
    let mut response = refused(
        Media::Json,
        StatusCode::NOT_ACCEPTABLE,
        format!(
            "answers are written as {}: accept one of them",
            media::ACCEPTABLE
        ),
        ErrorCode::BadUserInput,
    );
    response
        .headers_mut()
        .insert(header::ACCEPT, HeaderValue::from_static(media::ACCEPTABLE));
    response
}
