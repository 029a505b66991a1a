//! `GET /graphql`: a browser (preferring HTML) gets the playground; anything else is a GraphQL
//! request in the query string (`query`, `variables`, `operationName`), run like a POST but
//! only if it is a query: a mutation over GET is 405, since GET must change nothing. An
//! anonymous answer carries `Cache-Control`, so a CDN may cache catalogue reads.

use std::net::SocketAddr;

use async_graphql::parser::types::{DocumentOperations, ExecutableDocument, OperationType};
use async_graphql::BatchRequest;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use super::graphql_route::{not_acceptable, run, Via};
use super::media::{self, Media};
use super::reply::refused;
use super::{playground, AppState};
use crate::error::ErrorCode;

pub async fn graphql_get(State(state): State<AppState>, request: Request) -> Response {
    let arrived = std::time::Instant::now();
    let (parts, _) = request.into_parts();
    if super::websocket::is_upgrade(&parts.headers) {
        return super::websocket::upgrade(state, parts).await;
    }
    let offers = [Media::GraphqlResponse, Media::Json, Media::Html];
    let media = match media::negotiate(&parts.headers, &offers) {
        Some(Media::Html) => return playground::page().await.into_response(),
        Some(media) => media,
        None => return not_acceptable(),
    };
    let _admitted = match state.admission.try_admit() {
        Ok(admitted) => admitted,
        Err(refusal) => return super::reply::unavailable(media, refusal.client_message()),
    };
    let deadline = arrived + std::time::Duration::from_millis(state.limits.request_timeout_ms);
    // Boxed, as in `graphql_route::graphql`.
    crate::overload::deadline::within(deadline, Box::pin(get(state, parts, media))).await
}

async fn get(state: AppState, parts: axum::http::request::Parts, media: Media) -> Response {
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    let query_string = parts.uri.query().unwrap_or_default();
    // The query string carries what a POST's body would: held to the same limit before it is
    // decoded.
    if query_string.len() > state.limits.max_body_bytes {
        return refused(
            media,
            StatusCode::URI_TOO_LONG,
            format!(
                "the query string is {} bytes; at most {} (send larger requests with POST)",
                query_string.len(),
                state.limits.max_body_bytes
            ),
            ErrorCode::BadUserInput,
        );
    }
    let mut request =
        match async_graphql::http::parse_query_string(query_string) {
            Ok(request) => request,
            Err(_) => return refused(
                media,
                StatusCode::BAD_REQUEST,
                "a GET request names its operation in the query string: `query`, and optionally \
                 `variables` (JSON) and `operationName`"
                    .into(),
                ErrorCode::BadUserInput,
            ),
        };
    // Parsed here only when within the text limits (a query over them is refused before
    // parsing by `run`, and so never executes, mutation or not). The document stays in the
    // request: it is not parsed again.
    let operation_name = request.operation_name.clone();
    let parse_bounded = state.limits.query().text_within(&request.query);
    if parse_bounded
        && request
            .parsed_query()
            .is_ok_and(|document| is_mutation(document, operation_name.as_deref()))
    {
        let mut response = refused(
            media,
            StatusCode::METHOD_NOT_ALLOWED,
            "mutations change data: send them with POST".into(),
            ErrorCode::BadUserInput,
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return response;
    }
    run(
        &state,
        &parts.headers,
        peer,
        BatchRequest::Single(request),
        Via::Get,
        media,
        // Queries only: nothing to send on, and a GET carries no body to sign.
        super::forward::Hop::Client,
    )
    .await
}

/// Whether the operation the request selects is a mutation.
fn is_mutation(document: &ExecutableDocument, operation_name: Option<&str>) -> bool {
    match &document.operations {
        DocumentOperations::Single(operation) => operation.node.ty == OperationType::Mutation,
        DocumentOperations::Multiple(operations) => operations.iter().any(|(name, operation)| {
            operation.node.ty == OperationType::Mutation
                && operation_name.is_none_or(|wanted| wanted == name.as_str())
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `query` parses and selects a mutation.
    fn mutation(query: &str, operation_name: Option<&str>) -> bool {
        async_graphql::parser::parse_query(query)
            .is_ok_and(|document| is_mutation(&document, operation_name))
    }

    #[test]
    fn finds_the_mutations_among_the_operations() {
        assert!(mutation("mutation { releaseHold(holdId: \"x\") }", None));
        assert!(!mutation("{ cinemas { edges { cursor } } }", None));
        let both = "query Q { __typename } mutation M { releaseHold(holdId: \"x\") }";
        assert!(mutation(both, Some("M")));
        assert!(!mutation(both, Some("Q")));
        assert!(mutation(both, None), "ambiguous: refused as a mutation");
        assert!(!mutation("{ not valid", None));
    }
}
