//! Rate limits as token buckets: a caller may run `per_second` operations a second on average,
//! in bursts of at most `burst`. Time is passed in, so the arithmetic is tested without a
//! clock.
//!
//! A limit holds across gateway processes by sharing: with `n` live gateways each one's bucket
//! fills at `per_second / n` up to `burst / n` (at least one token), so the channel's total stays
//! within its limit (plus at most `n - burst` when the burst is smaller than `n`).

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// How fast one caller may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Operations a second, on average (at least 1).
    pub per_second: u32,
    /// Operations at once after a quiet spell (at least 1).
    pub burst: u32,
}

/// Less than any real shortfall of tokens (a nanosecond at a billion a second).
const ROUNDING: f64 = 1e-9;

/// How many gateway processes share every limit now (at least 1); the heartbeat of the
/// `gateways` collection sets it, every bucket of the process reads it.
#[derive(Debug)]
pub struct Share(AtomicU32);

impl Default for Share {
    fn default() -> Self {
        Share(AtomicU32::new(1))
    }
}

impl Share {
    /// The number of live gateways.
    pub fn get(&self) -> u32 {
        self.0.load(Ordering::Relaxed).max(1)
    }

    /// Sets the number of live gateways (0 counts as 1).
    pub fn set(&self, gateways: u32) {
        self.0.store(gateways.max(1), Ordering::Relaxed);
    }
}

/// A caller's bucket: `tokens` fill at `per_second / share` up to `burst / share` (at least
/// one); an operation takes one.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    limit: RateLimit,
    share: u32,
    tokens: f64,
    updated: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn full(limit: RateLimit, now: Instant) -> Self {
        TokenBucket::full_shared(limit, 1, now)
    }

    /// A full bucket of this process's part of a limit shared by `share` gateways.
    pub fn full_shared(limit: RateLimit, share: u32, now: Instant) -> Self {
        let mut bucket = TokenBucket {
            limit,
            share: share.max(1),
            tokens: 0.0,
            updated: now,
        };
        bucket.tokens = bucket.burst();
        bucket
    }

    /// The limit the bucket fills by.
    pub fn limit(&self) -> RateLimit {
        self.limit
    }

    /// How many gateways share the limit.
    pub fn share(&self) -> u32 {
        self.share
    }

    /// Shares the limit among `share` gateways from `now` on: the tokens earned so far are
    /// kept, up to the new burst.
    pub fn reshare(&mut self, share: u32, now: Instant) {
        self.refill(now);
        self.share = share.max(1);
        self.tokens = self.tokens.min(self.burst());
    }

    /// This process's burst: its part of the limit's, at least one token.
    fn burst(&self) -> f64 {
        (f64::from(self.limit.burst.max(1)) / f64::from(self.share)).max(1.0)
    }

    /// This process's rate: its part of the limit's.
    fn rate(&self) -> f64 {
        f64::from(self.limit.per_second.max(1)) / f64::from(self.share)
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.rate()).min(self.burst());
        self.updated = self.updated.max(now);
    }

    /// Takes `cost` tokens (at most a burst's worth), or says how long until they are there;
    /// a refused take takes nothing.
    pub fn take(&mut self, cost: u32, now: Instant) -> Result<(), Duration> {
        self.refill(now);
        let cost = f64::from(cost).min(self.burst());
        // Tokens are sums of floating-point fractions: a token short by rounding alone is there.
        if self.tokens + ROUNDING >= cost {
            self.tokens = (self.tokens - cost).max(0.0);
            Ok(())
        } else {
            Err(Duration::from_secs_f64((cost - self.tokens) / self.rate()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: RateLimit = RateLimit {
        per_second: 2,
        burst: 3,
    };

    #[test]
    fn a_full_bucket_allows_a_burst_then_refuses() {
        let start = Instant::now();
        let mut bucket = TokenBucket::full(LIMIT, start);
        for _ in 0..3 {
            assert_eq!(bucket.take(1, start), Ok(()));
        }
        let wait = bucket.take(1, start).unwrap_err();
        assert_eq!(wait, Duration::from_millis(500));
    }

    #[test]
    fn tokens_come_back_at_the_rate_and_never_beyond_the_burst() {
        let start = Instant::now();
        let mut bucket = TokenBucket::full(LIMIT, start);
        bucket.take(3, start).unwrap();
        let half_second = start + Duration::from_millis(500);
        assert_eq!(bucket.take(1, half_second), Ok(()));
        assert!(bucket.take(1, half_second).is_err());
        // An hour of quiet refills to the burst, not to 7,200.
        let later = half_second + Duration::from_secs(3600);
        assert_eq!(bucket.take(3, later), Ok(()));
        assert!(bucket.take(1, later).is_err());
    }

    #[test]
    fn a_refused_take_takes_nothing_and_a_batch_costs_its_operations() {
        let start = Instant::now();
        let mut bucket = TokenBucket::full(LIMIT, start);
        assert_eq!(bucket.take(2, start), Ok(()));
        assert_eq!(bucket.take(2, start), Err(Duration::from_millis(500)));
        assert_eq!(
            bucket.take(1, start),
            Ok(()),
            "the refused take left its token"
        );
        // A batch larger than the burst costs the whole burst, so it can pass when full.
        let later = start + Duration::from_secs(10);
        assert_eq!(bucket.take(50, later), Ok(()));
    }

    #[test]
    fn a_limit_shared_by_gateways_gives_each_its_part_and_at_least_one_token() {
        let limit = RateLimit {
            per_second: 10,
            burst: 4,
        };
        let start = Instant::now();
        let mut bucket = TokenBucket::full_shared(limit, 2, start);
        assert_eq!(bucket.take(2, start), Ok(()));
        // Half the rate: 5 a second, a token every 200 ms.
        assert_eq!(bucket.take(1, start), Err(Duration::from_millis(200)));
        let second = start + Duration::from_secs(1);
        assert_eq!(bucket.take(2, second), Ok(()), "refilled to the half burst");
        assert!(
            bucket.take(1, second).is_err(),
            "never beyond the half burst"
        );
        // Eight gateways: half a token of burst still lets one operation through.
        let mut thin = TokenBucket::full_shared(limit, 8, start);
        assert_eq!(thin.take(1, start), Ok(()));
        assert_eq!(thin.take(1, start), Err(Duration::from_millis(800)));
        // Back to one gateway: the earned tokens stay, the full burst fills again.
        bucket.reshare(1, second);
        assert!(bucket.take(1, second).is_err());
        let later = second + Duration::from_secs(10);
        assert_eq!(bucket.take(4, later), Ok(()));
    }
}
