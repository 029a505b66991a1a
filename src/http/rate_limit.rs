//! Rate limits, in this gateway process: each channel has a token bucket, filled at its own
//! limit if its record sets one, else at the configured default; each anonymous client (by
//! address) has one at the anonymous limit. A request costs one token per operation (a batch
//! costs its length). Each process takes its part of every limit: the limit divided by the
//! live gateways (`Share`, kept by the `gateways` heartbeat; see docs/deployment.md), so a
//! channel's limit holds across processes. Time comes from the state's `Clock`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderMap, HeaderName};

use crate::domain::clock::{Clock, SystemClock};
use crate::domain::rate_limit::{RateLimit, Share, TokenBucket};
use crate::telemetry::metrics::{self, Limited};

/// The buckets of every channel that called this process.
#[derive(Debug)]
pub struct RateLimiter {
    default: RateLimit,
    buckets: Mutex<HashMap<String, TokenBucket>>,
    clock: Arc<dyn Clock>,
    share: Arc<Share>,
}

impl RateLimiter {
    /// Buckets at `default`, on the system clock, for a process alone.
    pub fn new(default: RateLimit) -> Self {
        RateLimiter::shared(default, Arc::new(SystemClock), Arc::default())
    }

    /// Buckets at `default` on `clock`, each this process's part of a limit `share` divides.
    pub fn shared(default: RateLimit, clock: Arc<dyn Clock>, share: Arc<Share>) -> Self {
        RateLimiter {
            default,
            buckets: Mutex::new(HashMap::new()),
            clock,
            share,
        }
    }

    /// Takes `cost` tokens from `channel`'s bucket (limited by `own`, else the default), or
    /// says how long to wait.
    pub fn check(&self, channel: &str, own: Option<RateLimit>, cost: u32) -> Result<(), Duration> {
        let limit = own.unwrap_or(self.default);
        let now = self.clock.now();
        let share = self.share.get();
        let mut buckets = self.buckets.lock().expect("rate limiter lock");
        match buckets.get_mut(channel) {
            // A changed limit starts the channel afresh under the new one.
            Some(bucket) if bucket.limit() == limit => {
                if bucket.share() != share {
                    bucket.reshare(share, now);
                }
                bucket.take(cost, now)
            }
            _ => {
                let mut bucket = TokenBucket::full_shared(limit, share, now);
                let taken = bucket.take(cost, now);
                buckets.insert(channel.to_owned(), bucket);
                taken
            }
        }
    }
}

/// Takes `cost` tokens from the caller's bucket: its channel's (an operator has one at the
/// channels' default limit, under its key space's name), or, when anonymous, its address's
/// (`client`; none known, no limit). Else who is over the limit, and how long to wait.
pub(super) fn charge(
    state: &super::AppState,
    caller: &crate::graphql::Caller,
    client: Option<&str>,
    cost: u32,
) -> Result<(), (String, Duration)> {
    if let Some(channel) = &caller.channel {
        let checked = state.rate_limiter.check(channel, caller.rate_limit, cost);
        checked.map_err(|wait| {
            metrics::rate_limited(Limited::Channel);
            (format!("channel {channel}"), wait)
        })
    } else if let Some(operator) = &caller.operator {
        let checked =
            state
                .rate_limiter
                .check(&crate::operators::operator_keys(operator), None, cost);
        checked.map_err(|wait| {
            metrics::rate_limited(Limited::Channel);
            (format!("operator {operator}"), wait)
        })
    } else if let Some(client) = client {
        let checked = state.anonymous_limiter.check(client, None, cost);
        checked.map_err(|wait| {
            metrics::rate_limited(Limited::Anonymous);
            (format!("client {client}"), wait)
        })
    } else {
        Ok(())
    }
}

/// The address an anonymous client is limited by: the last address of the trusted proxy's
/// header when one is configured (the one that proxy added; earlier ones are the client's
/// word), else the connection's peer. None when neither is known.
pub(super) fn client_address(
    headers: &HeaderMap,
    trusted_header: Option<&HeaderName>,
    peer: Option<IpAddr>,
) -> Option<String> {
    if let Some(header) = trusted_header {
        let last = headers
            .get_all(header)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .rfind(|address| !address.is_empty());
        if let Some(address) = last {
            return Some(address.to_owned());
        }
    }
    peer.map(|peer| peer.to_string())
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn an_anonymous_client_is_its_proxy_s_last_address_or_its_peer() {
        let peer: Option<IpAddr> = Some("10.0.0.9".parse().unwrap());
        let forwarded = HeaderName::from_static("x-forwarded-for");
        let mut headers = HeaderMap::new();
        assert_eq!(client_address(&headers, None, peer).unwrap(), "10.0.0.9");
        assert_eq!(client_address(&headers, Some(&forwarded), None), None);
        // The client may write what it likes first; the proxy appends the address it saw.
        headers.append(&forwarded, HeaderValue::from_static("1.1.1.1, 203.0.113.7"));
        assert_eq!(
            client_address(&headers, Some(&forwarded), peer).unwrap(),
            "203.0.113.7"
        );
        headers.append(&forwarded, HeaderValue::from_static("198.51.100.2"));
        assert_eq!(
            client_address(&headers, Some(&forwarded), peer).unwrap(),
            "198.51.100.2"
        );
        // Without a trusted header configured, the forwarded addresses are ignored.
        assert_eq!(client_address(&headers, None, peer).unwrap(), "10.0.0.9");
    }
}
