//! Reading a request body within the limit, and refusing one over it so that the client
//! reads the refusal. A server that answers 413 and closes while the client is still sending
//! makes the client's next write fail: clients that do not wait for `100 Continue` (browsers,
//! Node's `fetch`, Python's `urllib`) then report a broken pipe or a reset connection, never
//! the 413. So the rest of a refused body is read and dropped first, up to [`DRAIN_BYTES`]
//! and [`DRAIN_TIME`], and only while it keeps coming ([`DRAIN_IDLE`]: a client that stalls
//! is answered, not waited for), as nginx's lingering close does after its answer. A client that
//! sent `Expect: 100-continue` is answered at once: it has sent nothing yet, and reading the
//! body would tell it to.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap};
use futures::StreamExt;

/// The most a refused body is read for.
pub const DRAIN_BYTES: usize = 64 * 1024 * 1024;
/// The longest a refused body is read for.
pub const DRAIN_TIME: Duration = Duration::from_secs(10);
/// How long a refused body may pause before it is no longer waited for.
pub const DRAIN_IDLE: Duration = Duration::from_secs(1);

/// What reading a body found.
pub enum Read {
    /// The body, within the limit.
    Whole(Bytes),
    /// The body is over the limit; what came of it was dropped.
    TooLarge,
    /// The client stopped sending half way.
    Broken,
}

/// Reads `body` if it is at most `limit` bytes (judged from its `Content-Length` first, when
/// it has one).
pub async fn read(body: Body, headers: &HeaderMap, limit: usize) -> Read {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|length| length.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        if !expects_continue(headers) {
            drain(body).await;
        }
        return Read::TooLarge;
    }
    let mut chunks = body.into_data_stream();
    let mut kept = Vec::new();
    while let Some(chunk) = chunks.next().await {
        let Ok(chunk) = chunk else {
            return Read::Broken;
        };
        if kept.len() + chunk.len() > limit {
            drain_stream(chunks, kept.len() + chunk.len()).await;
            return Read::TooLarge;
        }
        kept.extend_from_slice(&chunk);
    }
    Read::Whole(kept.into())
}

fn expects_continue(headers: &HeaderMap) -> bool {
    headers
        .get(header::EXPECT)
        .is_some_and(|expect| expect.as_bytes().eq_ignore_ascii_case(b"100-continue"))
}

async fn drain(body: Body) {
    drain_stream(body.into_data_stream(), 0).await
}

/// Reads and drops what `chunks` still has, `read` bytes having been read already, within
/// the drain's bounds.
async fn drain_stream(mut chunks: axum::body::BodyDataStream, mut read: usize) {
    let drained = async {
        while read < DRAIN_BYTES {
            match tokio::time::timeout(DRAIN_IDLE, chunks.next()).await {
                Ok(Some(Ok(chunk))) => read += chunk.len(),
                _ => return,
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_TIME, drained).await;
}
