//! Webhooks: where a channel's events are POSTed, how each POST is signed, and when a failed
//! one is tried again.
//!
//! *Secret.* Each endpoint's signing secret is derived from the server's secret and the
//! endpoint's id (HMAC), shown once when the endpoint is made and never stored: every gateway
//! of a deployment derives the same one.
//!
//! *Signature.* `Boxoffice-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
//! "<t>.<body>")>`, as Stripe's. A receiver recomputes it over the raw body and refuses a
//! timestamp older than its tolerance, so a captured request cannot be replayed later
//! ([`verify`]).
//!
//! *Targets.* An endpoint is an outbound request on our behalf: it must be `https`, and its
//! host must not be (or resolve to) a loopback, private, link-local or otherwise internal
//! address, unless the gateway allows private targets (tests and the demo).

use std::net::IpAddr;
use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::domain::ids::WebhookId;
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;

type HmacSha256 = Hmac<Sha256>;

/// The header with the signature.
pub const SIGNATURE_HEADER: &str = "Boxoffice-Signature";
/// The header with the event's id (the receiver deduplicates by it).
pub const EVENT_ID_HEADER: &str = "Boxoffice-Event-Id";
/// How old a signature's timestamp a receiver accepts by default.
pub const DEFAULT_TOLERANCE: Duration = Duration::from_secs(300);
/// The longest URL an endpoint may have.
const MAX_URL_CHARS: usize = 2048;

/// The most endpoints a channel may have: each is a task and a lease on every gateway's
/// poll, and a POST per event.
pub const MAX_ENDPOINTS_PER_CHANNEL: usize = 20;

/// The cap slots a new endpoint of a channel may take, in the order to try them, given the
/// slots its `existing` endpoints hold (`None`: made before slots, holding none).
///
/// Each endpoint holds one of [`MAX_ENDPOINTS_PER_CHANNEL`] slots, unique per channel in the
/// database, so racing creates cannot pass the cap between counting and inserting: each
/// tries only the lowest free slots, as many as the cap leaves room for. Two creates that
/// read the same endpoints try the same slots; one that read later (after another's insert)
/// tries a prefix of what the earlier one tried. So all creates together take at most the
/// room the earliest reading left.
pub fn cap_slots(existing: &[Option<u32>]) -> Vec<u32> {
    let room = MAX_ENDPOINTS_PER_CHANNEL.saturating_sub(existing.len());
    let cap = u32::try_from(MAX_ENDPOINTS_PER_CHANNEL).unwrap_or(u32::MAX);
    (0..cap)
        .filter(|slot| !existing.contains(&Some(*slot)))
        .take(room)
        .collect()
}

/// Which endpoints a gateway accepts: public `https` ones only, unless `allow_private`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WebhookTargets {
    pub allow_private: bool,
}

/// The endpoint's signing secret, `whsec_…`. Never logged (its `Debug` hides it).
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(String);

impl std::fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookSecret(…)")
    }
}

impl WebhookSecret {
    /// The secret of endpoint `endpoint` under the server's secret.
    pub fn of(server: &TicketSecret, endpoint: WebhookId) -> Self {
        let key = server.derive(b"boxoffice webhook secret v1", &endpoint.bytes());
        WebhookSecret(format!("whsec_{}", URL_SAFE_NO_PAD.encode(key)))
    }

    /// A secret as the receiver holds it.
    pub fn from_shown(text: &str) -> Self {
        WebhookSecret(text.to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn mac(&self, timestamp: i64, body: &[u8]) -> HmacSha256 {
        let mut mac = HmacSha256::new_from_slice(self.0.as_bytes()).expect("any key length");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        mac
    }

    /// The `Boxoffice-Signature` of `body` sent at `timestamp` (unix seconds).
    pub fn sign(&self, timestamp: i64, body: &[u8]) -> String {
        let signature = self.mac(timestamp, body).finalize().into_bytes();
        format!("t={timestamp},v1={}", hex(&signature))
    }
}

/// Why a signature was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the signature header is malformed")]
    Malformed,
    #[error("the signature does not match the body")]
    Mismatch,
    #[error("the signature is {age} s old, older than the tolerance")]
    TooOld { age: i64 },
}

/// Checks a received webhook: `header` is its `Boxoffice-Signature`, `body` its raw bytes,
/// `now` the receiver's time (unix seconds). A forged body or signature is `Mismatch`; a
/// genuine request replayed after `tolerance` is `TooOld`.
pub fn verify(
    secret: &WebhookSecret,
    header: &str,
    body: &[u8],
    now: i64,
    tolerance: Duration,
) -> Result<(), SignatureError> {
    let (mut timestamp, mut signatures) = (None, Vec::new());
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => timestamp = value.parse::<i64>().ok(),
            Some(("v1", value)) => signatures.push(unhex(value).ok_or(SignatureError::Malformed)?),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(SignatureError::Malformed)?;
    if signatures.is_empty() {
        return Err(SignatureError::Malformed);
    }
    // Constant-time comparison (`verify_slice`), against each signature given.
    let matches = (signatures.iter())
        .any(|signature| secret.mac(timestamp, body).verify_slice(signature).is_ok());
    if !matches {
        return Err(SignatureError::Mismatch);
    }
    let age = now - timestamp;
    if age.unsigned_abs() > tolerance.as_secs() {
        return Err(SignatureError::TooOld { age });
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Checks an endpoint's URL: `https` (or `http` when private targets are allowed), a host,
/// no credentials, and, when the host is an address, a public one unless allowed.
pub fn check_url(text: &str, allow_private: bool) -> Result<url::Url, ApiError> {
    let bad = |why: &str| ApiError::bad_input(format!("url: {why}"));
    if text.chars().count() > MAX_URL_CHARS {
        return Err(bad(&format!("at most {MAX_URL_CHARS} characters")));
    }
    let url = url::Url::parse(text).map_err(|error| bad(&format!("not a URL ({error})")))?;
    match url.scheme() {
        "https" => {}
        "http" if allow_private => {}
        "http" => return Err(bad("must be https")),
        _ => return Err(bad("must be an https URL")),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("must not carry credentials"));
    }
    let address = match url.host() {
        None => return Err(bad("has no host")),
        Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
        Some(url::Host::Domain(domain)) if domain.eq_ignore_ascii_case("localhost") => {
            Some(IpAddr::from([127, 0, 0, 1]))
        }
        Some(url::Host::Domain(_)) => None,
    };
    if let Some(address) = address {
        if !allow_private && !is_public(address) {
            return Err(bad(
                "must not point at a private, loopback or internal address",
            ));
        }
    }
    Ok(url)
}

/// Whether a request to `address` leaves the private networks: not loopback, private,
/// link-local, shared (CGNAT), unique-local, multicast, documentation or unspecified.
pub fn is_public(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(ip) => {
            let [a, b, ..] = ip.octets();
            !(ip.is_loopback()
                || ip.is_private()
                || ip.is_link_local()
                || ip.is_multicast()
                || ip.is_broadcast()
                || ip.is_unspecified()
                || ip.is_documentation()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 192 && b == 0)
                || (a == 198 && (b == 18 || b == 19))
                || a >= 240)
        }
        IpAddr::V6(ip) => {
            if let Some(v4) = ip.to_ipv4_mapped() {
                return is_public(IpAddr::V4(v4));
            }
            let first = ip.segments()[0];
            !(ip.is_loopback()
                || ip.is_unspecified()
                || ip.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || first == 0x2001 && ip.segments()[1] == 0xdb8)
        }
    }
}

/// How long to wait before attempt `attempt` (1 for the first retry) of a failed delivery:
/// 1 s doubling up to an hour, times `jitter` in 0.8..1.2 (so endpoints that failed together
/// are not tried together).
pub fn backoff(attempt: u32, jitter: f64) -> Duration {
    let base = Duration::from_secs(1).saturating_mul(1 << attempt.saturating_sub(1).min(12));
    base.min(Duration::from_secs(3600))
        .mul_f64(jitter.clamp(0.8, 1.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_slots_leave_room_for_the_cap_and_no_more() {
        assert_eq!(cap_slots(&[]).len(), MAX_ENDPOINTS_PER_CHANNEL);
        assert_eq!(cap_slots(&[Some(0), Some(2)])[..2], [1, 3]);
        assert_eq!(cap_slots(&[Some(0), Some(2)]).len(), 18);
        // Endpoints made before slots hold none, but count.
        assert_eq!(cap_slots(&[None, None, Some(0)]).len(), 17);
        assert_eq!(cap_slots(&[None, None, Some(0)])[0], 1);
        let full: Vec<Option<u32>> = (0..20).map(Some).collect();
        assert!(cap_slots(&full).is_empty());
        assert!(cap_slots(&[None; 25]).is_empty());
    }

    #[test]
    fn a_later_reading_tries_a_prefix_of_an_earlier_ones_slots() {
        let earlier = cap_slots(&[Some(1), Some(4)]);
        let later = cap_slots(&[Some(1), Some(4), Some(earlier[0])]);
        assert!(later.iter().all(|slot| earlier.contains(slot)));
        assert_eq!(later.len(), earlier.len() - 1);
    }

    fn secret() -> WebhookSecret {
        WebhookSecret::of(&TicketSecret::new([7; 32]), WebhookId([1; 12]))
    }

    #[test]
    fn a_signed_body_verifies_and_a_forged_or_replayed_one_does_not() {
        let secret = secret();
        let body = br#"{"id":"e1","type":"ORDER_CONFIRMED"}"#;
        let header = secret.sign(1_000, body);
        assert_eq!(
            verify(&secret, &header, body, 1_010, DEFAULT_TOLERANCE),
            Ok(())
        );
        // Another body, another secret, a forged signature.
        let forged = br#"{"id":"e1","type":"ORDER_CANCELLED"}"#;
        assert_eq!(
            verify(&secret, &header, forged, 1_010, DEFAULT_TOLERANCE),
            Err(SignatureError::Mismatch)
        );
        let other = WebhookSecret::of(&TicketSecret::new([7; 32]), WebhookId([2; 12]));
        assert_eq!(
            verify(&other, &header, body, 1_010, DEFAULT_TOLERANCE),
            Err(SignatureError::Mismatch)
        );
        let zeros = format!("t=1000,v1={}", "0".repeat(64));
        assert_eq!(
            verify(&secret, &zeros, body, 1_010, DEFAULT_TOLERANCE),
            Err(SignatureError::Mismatch)
        );
        // A new timestamp on an old signature does not match; the old one is too old.
        let moved = header.replace("t=1000", "t=2000");
        assert_eq!(
            verify(&secret, &moved, body, 2_000, DEFAULT_TOLERANCE),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(&secret, &header, body, 1_301, DEFAULT_TOLERANCE),
            Err(SignatureError::TooOld { age: 301 })
        );
        for malformed in ["", "t=1000", "v1=ab", "t=x,v1=ab", "t=1000,v1=zz"] {
            assert_eq!(
                verify(&secret, malformed, body, 1_000, DEFAULT_TOLERANCE),
                Err(SignatureError::Malformed),
                "{malformed}"
            );
        }
    }

    #[test]
    fn secrets_are_derived_per_endpoint_and_hidden_from_logs() {
        let shown = secret();
        assert!(shown.as_str().starts_with("whsec_"));
        assert_eq!(shown, secret());
        assert_eq!(format!("{shown:?}"), "WebhookSecret(…)");
    }

    #[test]
    fn urls_must_be_https_and_public_unless_private_targets_are_allowed() {
        assert!(check_url("https://hooks.example.com/boxoffice", false).is_ok());
        for refused in [
            "http://hooks.example.com/x",
            "ftp://hooks.example.com/x",
            "https://user:pw@hooks.example.com/x",
            "https://127.0.0.1/x",
            "https://localhost:8443/x",
            "https://10.0.0.8/x",
            "https://169.254.169.254/latest/meta-data",
            "https://[::1]/x",
            "https://[fd00::1]/x",
            "https://[::ffff:192.168.1.1]/x",
            "not a url",
        ] {
            let error = check_url(refused, false).unwrap_err();
            assert_eq!(
                error.code(),
                crate::error::ErrorCode::BadUserInput,
                "{refused}"
            );
        }
        assert!(check_url("http://127.0.0.1:9000/hook", true).is_ok());
        assert!(is_public("8.8.8.8".parse().unwrap()));
        assert!(!is_public("100.64.0.1".parse().unwrap()));
    }

    #[test]
    fn retries_back_off_exponentially_within_an_hour() {
        assert_eq!(backoff(1, 1.0), Duration::from_secs(1));
        assert_eq!(backoff(4, 1.0), Duration::from_secs(8));
        assert_eq!(backoff(30, 1.0), Duration::from_secs(3600));
        assert_eq!(backoff(2, 5.0), Duration::from_millis(2400));
    }
}
