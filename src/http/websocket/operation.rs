//! One operation of a WebSocket connection: its responses, guarded so that a query or mutation
//! answers within the request timeout and a panic in it is answered INTERNAL, never a dropped
//! connection.

use std::time::Duration;

use futures::stream::BoxStream;
use futures::StreamExt;

use super::Outgoing;
use crate::error::ErrorCode;
use crate::graphql::errors::error_with_code;

/// Where an operation's responses are.
enum Phase<S> {
    /// Nothing sent yet: the first response must come within the timeout, if there is one.
    First(S),
    Rest(S),
    Done,
}

/// An operation's responses, then `Complete`: the first within `timeout`, if given (else
/// REQUEST_TIMEOUT, and the end), and a panic answered INTERNAL (and the end), never a
/// dropped connection.
pub(super) fn guarded(
    responses: BoxStream<'static, async_graphql::Response>,
    timeout: Option<Duration>,
) -> BoxStream<'static, Outgoing> {
    let responses = std::panic::AssertUnwindSafe(responses).catch_unwind();
    futures::stream::unfold(Phase::First(responses), move |phase| async move {
        let (next, rest) = match phase {
            Phase::First(mut responses) => {
                let first = match timeout {
                    Some(timeout) => tokio::time::timeout(timeout, responses.next()).await,
                    None => Ok(responses.next().await),
                };
                match first {
                    Ok(next) => (next, responses),
                    Err(_) => {
                        let message = format!(
                            "the operation did not start within {} ms",
                            timeout.unwrap_or_default().as_millis()
                        );
                        return Some((failure(message, ErrorCode::RequestTimeout), Phase::Done));
                    }
                }
            }
            Phase::Rest(mut responses) => (responses.next().await, responses),
            Phase::Done => return None,
        };
        match next? {
            Ok(response) => Some((Some(response), Phase::Rest(rest))),
            Err(panic) => {
                let detail = panic
                    .downcast_ref::<&str>()
                    .copied()
                    .unwrap_or("a panic without a message");
                tracing::error!(detail, "an operation over WebSocket panicked");
                Some((
                    failure("internal error".into(), ErrorCode::Internal),
                    Phase::Done,
                ))
            }
        }
    })
    .chain(futures::stream::once(async { None }))
    .boxed()
}

pub(super) fn failure(message: String, code: ErrorCode) -> Outgoing {
    Some(async_graphql::Response::from_errors(vec![error_with_code(
        message, code,
    )]))
}
