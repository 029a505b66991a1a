//! The request id: a client's `x-request-id` when it is sane (at most 64 characters of
//! `[A-Za-z0-9._-]`), else one made here. It is put on the request (where the trace layer
//! reads it into the request's root span, so every log line of the request carries it) and on
//! the response, whatever answered: a refusal, a panic, a WebSocket upgrade.

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use rand::Rng;

/// The header carrying the request id, both ways.
pub static X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest request id kept from a client.
const MAX_CHARS: usize = 64;

/// Whether a client's request id may be kept (and logged) as it is.
pub fn is_sane(id: &[u8]) -> bool {
    !id.is_empty()
        && id.len() <= MAX_CHARS
        && id
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// A new request id: 16 random bytes in hex.
fn generate() -> HeaderValue {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let bytes: [u8; 16] = rand::rng().random();
    let mut hex = [0u8; 32];
    for (pair, byte) in hex.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[usize::from(byte >> 4)];
        pair[1] = DIGITS[usize::from(byte & 0x0f)];
    }
    HeaderValue::from_bytes(&hex).expect("hex is a valid header value")
}

/// The middleware: sets the request id on the request, then on its response.
pub async fn propagate(mut request: Request, next: Next) -> Response {
    let headers = request.headers_mut();
    let mut kept = headers.get_all(&X_REQUEST_ID).iter();
    let id = match (kept.next(), kept.next()) {
        (Some(id), None) if is_sane(id.as_bytes()) => id.clone(),
        _ => generate(),
    };
    headers.insert(X_REQUEST_ID.clone(), id.clone());
    let mut response = next.run(request).await;
    response.headers_mut().insert(X_REQUEST_ID.clone(), id);
    response
}

/// The request's id, as [`propagate`] set it ("" before it ran).
pub fn of(request: &Request) -> &str {
    request
        .headers()
        .get(&X_REQUEST_ID)
        .and_then(|id| id.to_str().ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_sane_ids() {
        assert!(is_sane(b"abc-123_x.Y"));
        assert!(is_sane("a".repeat(64).as_bytes()));
        assert!(!is_sane("a".repeat(65).as_bytes()));
        assert!(!is_sane(b""));
        assert!(!is_sane(b"has space"));
        assert!(!is_sane("名字".as_bytes()));
        assert!(!is_sane(b"a\"b"));
    }

    #[test]
    fn generated_ids_are_sane_and_differ() {
        let (a, b) = (generate(), generate());
        assert!(is_sane(a.as_bytes()));
        assert_eq!(a.len(), 32);
        assert!(a.as_bytes().iter().all(u8::is_ascii_hexdigit));
        assert_ne!(a, b);
    }
}
