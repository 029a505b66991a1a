//! Writing answers to GraphQL requests: the body in the negotiated media type, and the status
//! code the GraphQL-over-HTTP specification gives it. A request error (nothing executed) has
//! no `data` entry; refusals before execution (limits, authentication, rate) are GraphQL
//! error responses with a code.

use std::time::Duration;

use async_graphql::{BatchResponse, Response as GqlResponse, Value};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::media::Media;
use crate::error::ErrorCode;
use crate::graphql::errors::error_with_code;

/// The answer to executed operations. A request error is a 400 under
/// `application/graphql-response+json` and a 200 under `application/json`. An operation the
/// database was unavailable for is a 503 with `Retry-After`, so that clients and proxies retry
/// it; except that under `application/graphql-response+json` an answer with data is a 2xx, as
/// the specification requires.
pub fn answer(media: Media, responses: &BatchResponse) -> Response {
    let status = match responses {
        BatchResponse::Single(response) => status_of(media, response),
        BatchResponse::Batch(responses) if responses.iter().any(is_unavailable) => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        BatchResponse::Batch(_) => StatusCode::OK,
    };
    let mut reply = write(media, status, &Wire::Many(responses));
    if status == StatusCode::SERVICE_UNAVAILABLE {
        retry_after(&mut reply, RETRY_UNAVAILABLE_SECONDS);
    }
    reply
}

fn status_of(media: Media, response: &GqlResponse) -> StatusCode {
    let graphql_response = media == Media::GraphqlResponse;
    if is_unavailable(response) && !(graphql_response && response.data != Value::Null) {
        StatusCode::SERVICE_UNAVAILABLE
    } else if graphql_response && is_request_error(response) {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    }
}

/// A request refused before execution: a GraphQL error response with a code. Under
/// `application/graphql-response+json` a refusal is never a 2xx (it has no data), so a 200
/// becomes a 400.
pub fn refused(media: Media, status: StatusCode, message: String, code: ErrorCode) -> Response {
    let status = match (media, status) {
        (Media::GraphqlResponse, StatusCode::OK) => StatusCode::BAD_REQUEST,
        _ => status,
    };
    crate::telemetry::metrics::graphql_refused(code.as_str());
    let response = GqlResponse::from_errors(vec![error_with_code(message, code)]);
    write(media, status, &Wire::One(&response))
}

/// 413 for a body over the limit: refused from its `Content-Length`, or once reading it
/// passes the limit (the rest read and dropped first: `http::body`).
pub fn too_large(media: Media, max_body_bytes: usize) -> Response {
    let message = format!("the request body is larger than {max_body_bytes} bytes");
    let mut reply = refused(
        media,
        StatusCode::PAYLOAD_TOO_LARGE,
        message,
        ErrorCode::BadUserInput,
    );
    // The rest of the body may not have been read: the connection cannot be reused.
    reply
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    reply
}

/// 503 UNAVAILABLE with `Retry-After`: the database could not be reached in time.
pub fn unavailable(media: Media, message: String) -> Response {
    let mut reply = refused(
        media,
        StatusCode::SERVICE_UNAVAILABLE,
        message,
        ErrorCode::Unavailable,
    );
    retry_after(&mut reply, RETRY_UNAVAILABLE_SECONDS);
    reply
}

/// The answer to a caller whose credential failed: 401 (with `WWW-Authenticate`) for a wrong
/// key, 503 UNAVAILABLE (logged) when the key could not be looked up.
pub fn authentication_failed(media: Media, error: &crate::error::ApiError) -> Response {
    if let crate::error::ApiError::Overloaded(_) = error {
        return unavailable(media, error.client_message());
    }
    if error.effect_unknown() {
        tracing::error!(%error, "authenticating a request");
        return unavailable(media, error.client_message());
    }
    let mut response = refused(
        media,
        StatusCode::UNAUTHORIZED,
        error.client_message(),
        error.code(),
    );
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// 429 RATE_LIMITED, saying when to come back: `Retry-After` in whole seconds, and
/// `extensions.retryAfterMs`.
pub fn rate_limited(media: Media, who: &str, wait: Duration) -> Response {
    let (error, millis) = rate_limited_error(who, wait);
    crate::telemetry::metrics::graphql_refused(ErrorCode::RateLimited.as_str());
    let response = GqlResponse::from_errors(vec![error]);
    let mut reply = write(media, StatusCode::TOO_MANY_REQUESTS, &Wire::One(&response));
    retry_after(&mut reply, millis.div_ceil(1000));
    reply
}

/// The RATE_LIMITED error of `who`, with `extensions.retryAfterMs`, and those milliseconds.
pub fn rate_limited_error(who: &str, wait: Duration) -> (async_graphql::ServerError, u64) {
    let millis = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
    let message = format!("{who} is over its rate limit; retry in {millis} ms");
    let mut error = error_with_code(message, ErrorCode::RateLimited);
    error
        .extensions
        .get_or_insert_with(Default::default)
        .set("retryAfterMs", millis);
    (error, millis)
}

/// How soon a client may retry a request the database was unavailable for.
const RETRY_UNAVAILABLE_SECONDS: u64 = 1;

fn retry_after(reply: &mut Response, seconds: u64) {
    reply
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
}

fn write(media: Media, status: StatusCode, body: &Wire) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => (
            status,
            [(header::CONTENT_TYPE, media.content_type())],
            bytes,
        )
            .into_response(),
        Err(error) => {
            // Only a map with non-string keys fails to serialize; answers have none.
            tracing::error!(%error, "writing an answer");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// Whether an error of the response says the database was unavailable.
fn is_unavailable(response: &GqlResponse) -> bool {
    response.errors.iter().any(|error| {
        error.extensions.as_ref().and_then(|e| e.get("code"))
            == Some(&Value::from(ErrorCode::Unavailable.as_str()))
    })
}

/// Whether the response is a request error: it failed before execution (parsing, validation,
/// variable coercion, the shape and complexity limits), so it has errors, no data, and none of
/// its errors has a path. An execution error always names the field it came from.
fn is_request_error(response: &GqlResponse) -> bool {
    response.data == Value::Null
        && !response.errors.is_empty()
        && response.errors.iter().all(|error| error.path.is_empty())
}

/// Responses as they go on the wire: as async-graphql writes them, but a request error has
/// no `data` entry at all (the GraphQL specification: "If an error was raised before execution
/// begins, the data entry should not be present").
enum Wire<'a> {
    One(&'a GqlResponse),
    Many(&'a BatchResponse),
}

impl Serialize for Wire<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Wire::One(response) => write_response(response, serializer),
            Wire::Many(BatchResponse::Single(response)) => write_response(response, serializer),
            Wire::Many(BatchResponse::Batch(responses)) => {
                let mut list = serializer.serialize_seq(Some(responses.len()))?;
                for response in responses {
                    list.serialize_element(&Wire::One(response))?;
                }
                list.end()
            }
        }
    }
}

fn write_response<S: Serializer>(response: &GqlResponse, serializer: S) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(None)?;
    if !is_request_error(response) {
        map.serialize_entry("data", &response.data)?;
    }
    if !response.errors.is_empty() {
        map.serialize_entry("errors", &response.errors)?;
    }
    if !response.extensions.is_empty() {
        map.serialize_entry("extensions", &response.extensions)?;
    }
    map.end()
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_graphql::{PathSegment, ServerError};

    fn body(reply: Response) -> (StatusCode, String, serde_json::Value) {
        let status = reply.status();
        let content_type = reply.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .to_owned();
        let bytes =
            futures::executor::block_on(axum::body::to_bytes(reply.into_body(), 1 << 20)).unwrap();
        (
            status,
            content_type,
            serde_json::from_slice(&bytes).unwrap(),
        )
    }

    fn request_error() -> GqlResponse {
        GqlResponse::from_errors(vec![ServerError::new("Unknown field \"nope\"", None)])
    }

    fn field_error_with_data() -> GqlResponse {
        let mut error = ServerError::new("no such hold", None);
        error.path = vec![PathSegment::Field("hold".into())];
        let data = Value::from_json(serde_json::json!({ "hold": null })).unwrap();
        let mut response = GqlResponse::new(data);
        response.errors = vec![error];
        response
    }

    #[test]
    fn a_request_error_has_no_data_and_is_a_400_only_under_the_new_type() {
        let single = BatchResponse::Single(request_error());
        let (status, content_type, json) = body(answer(Media::Json, &single));
        assert_eq!(
            (status, content_type.as_str()),
            (StatusCode::OK, "application/json")
        );
        assert!(json.get("data").is_none(), "{json}");
        let (status, content_type, json) = body(answer(Media::GraphqlResponse, &single));
        assert_eq!(
            (status, content_type.as_str()),
            (StatusCode::BAD_REQUEST, "application/graphql-response+json")
        );
        assert!(
            json.get("data").is_none() && json["errors"].is_array(),
            "{json}"
        );
    }

    #[test]
    fn a_field_error_keeps_its_data_and_is_a_200() {
        let single = BatchResponse::Single(field_error_with_data());
        for media in [Media::Json, Media::GraphqlResponse] {
            let (status, _, json) = body(answer(media, &single));
            assert_eq!(status, StatusCode::OK);
            assert_eq!(json["data"], serde_json::json!({ "hold": null }));
            assert_eq!(json["errors"][0]["path"], serde_json::json!(["hold"]));
        }
    }

    #[test]
    fn an_unavailable_database_is_a_503_unless_data_came_back_under_the_new_type() {
        let mut response = field_error_with_data();
        response.errors[0] = error_with_code("database away", ErrorCode::Unavailable);
        response.errors[0].path = vec![PathSegment::Field("hold".into())];
        let single = BatchResponse::Single(response);
        let reply = answer(Media::Json, &single);
        assert_eq!(reply.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(reply.headers()[header::RETRY_AFTER], "1");
        assert_eq!(
            answer(Media::GraphqlResponse, &single).status(),
            StatusCode::OK
        );
    }

    #[test]
    fn a_refusal_is_never_a_2xx_under_the_new_type() {
        let not_found = |media| {
            refused(
                media,
                StatusCode::OK,
                "send the query".into(),
                ErrorCode::PersistedQueryNotFound,
            )
        };
        assert_eq!(not_found(Media::Json).status(), StatusCode::OK);
        let (status, _, json) = body(not_found(Media::GraphqlResponse));
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(
            json["errors"][0]["extensions"]["code"],
            "PERSISTED_QUERY_NOT_FOUND"
        );
    }

    #[test]
    fn a_batch_keeps_the_data_of_its_executed_operations() {
        let batch = BatchResponse::Batch(vec![request_error(), field_error_with_data()]);
        let (status, _, json) = body(answer(Media::GraphqlResponse, &batch));
        assert_eq!(status, StatusCode::OK);
        assert!(json[0].get("data").is_none());
        assert_eq!(json[1]["data"], serde_json::json!({ "hold": null }));
    }
}
