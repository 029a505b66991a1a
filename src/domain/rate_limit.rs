//! Rate limits as token buckets: a caller may run `per_second` operations a second on average,
//! in bursts of at most `burst`. Time is passed in, so the arithmetic is tested without a
//! clock.

use std::time::{Duration, Instant};

/// How fast one caller may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Operations a second, on average (at least 1).
    pub per_second: u32,
    /// Operations at once after a quiet spell (at least 1).
    pub burst: u32,
}

/// A caller's bucket: `tokens` fill at `per_second` up to `burst`; an operation takes one.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    limit: RateLimit,
    tokens: f64,
    updated: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn full(limit: RateLimit, now: Instant) -> Self {
        TokenBucket {
            limit,
            tokens: f64::from(limit.burst.max(1)),
            updated: now,
        }
    }

    /// The limit the bucket fills by.
    pub fn limit(&self) -> RateLimit {
        self.limit
    }

    /// Takes `cost` tokens (at most a burst's worth), or says how long until they are there;
    /// a refused take takes nothing.
    pub fn take(&mut self, cost: u32, now: Instant) -> Result<(), Duration> {
        let burst = f64::from(self.limit.burst.max(1));
        let rate = f64::from(self.limit.per_second.max(1));
        let elapsed = now.saturating_duration_since(self.updated).as_secs_f64();
        self.tokens = (self.tokens + elapsed * rate).min(burst);
        self.updated = now;
        let cost = f64::from(cost).min(burst);
        if self.tokens >= cost {
            self.tokens -= cost;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((cost - self.tokens) / rate))
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
}
