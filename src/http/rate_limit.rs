//! Rate limits, in this gateway process: each channel has a token bucket, filled at its own
//! limit if its record sets one, else at the configured default; each anonymous client (by
//! address) has one at the anonymous limit. A request costs one token per operation (a batch
//! costs its length).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::domain::rate_limit::{RateLimit, TokenBucket};

/// The buckets of every channel that called this process.
#[derive(Debug)]
pub struct RateLimiter {
    default: RateLimit,
    buckets: Mutex<HashMap<String, TokenBucket>>,
}

impl RateLimiter {
    pub fn new(default: RateLimit) -> Self {
        RateLimiter {
            default,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes `cost` tokens from `channel`'s bucket (limited by `own`, else the default), or
    /// says how long to wait.
    pub fn check(&self, channel: &str, own: Option<RateLimit>, cost: u32) -> Result<(), Duration> {
        let limit = own.unwrap_or(self.default);
        let now = Instant::now();
        let mut buckets = self.buckets.lock().expect("rate limiter lock");
        match buckets.get_mut(channel) {
            // A changed limit starts the channel afresh under the new one.
            Some(bucket) if bucket.limit() == limit => bucket.take(cost, now),
            _ => {
                let mut bucket = TokenBucket::full(limit, now);
                let taken = bucket.take(cost, now);
                buckets.insert(channel.to_owned(), bucket);
                taken
            }
        }
    }
}
