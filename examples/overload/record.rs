//! What the clients saw, attempt by attempt, and the figures made of it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How one HTTP attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// 200 with the mutation's data.
    Success,
    /// 200 with a business error (seats taken, hold expired, …): the client moves on.
    Business,
    /// 503: the gateway could not (or would not) serve it now.
    Unavailable,
    /// 504: the gateway stopped it past its request timeout.
    GatewayTimeout,
    /// 429: over a rate limit.
    RateLimited,
    /// No answer within the client's 5 s.
    ClientTimeout,
    /// The connection failed or broke.
    ConnectionError,
    /// Any other answer (401, 500, a body that is not GraphQL): counted, not retried.
    Other,
}

impl Outcome {
    /// The answers the client retries (after `Retry-After`, or 100–500 ms) with the same
    /// idempotency key.
    pub fn retried(self) -> bool {
        matches!(
            self,
            Outcome::Unavailable
                | Outcome::GatewayTimeout
                | Outcome::RateLimited
                | Outcome::ClientTimeout
                | Outcome::ConnectionError
        )
    }

    /// The gateway's fast "not now" answers, whose latency is reported apart.
    fn refusal(self) -> bool {
        matches!(
            self,
            Outcome::Unavailable | Outcome::GatewayTimeout | Outcome::RateLimited
        )
    }

    /// Whatever the gateway answered (success, refusal, error): all but a client timeout
    /// and a failed connection.
    fn answered(self) -> bool {
        !matches!(self, Outcome::ClientTimeout | Outcome::ConnectionError)
    }
}

/// One finished attempt: when it ended (from the load's start), how long it took, how.
#[derive(Debug, Clone, Copy)]
pub struct Attempt {
    pub at: Duration,
    pub latency: Duration,
    pub outcome: Outcome,
}

/// Everything the clients of one load report, as it happens (a client aborted mid-request
/// leaves what it had finished).
#[derive(Clone)]
pub struct Recorder {
    start: Instant,
    inner: Arc<Mutex<Log>>,
}

#[derive(Default)]
struct Log {
    attempts: Vec<Attempt>,
    /// When each seat change was first answered: one per logical request, however many
    /// times its idempotency key was sent.
    changes: Vec<Duration>,
    /// Replays whose answer was not the first answer's (an idempotency bug, never expected).
    mismatches: usize,
}

impl Recorder {
    pub fn new(start: Instant) -> Recorder {
        Recorder {
            start,
            inner: Arc::default(),
        }
    }

    pub fn start(&self) -> Instant {
        self.start
    }

    pub fn attempt(&self, sent: Instant, outcome: Outcome) {
        let now = Instant::now();
        let attempt = Attempt {
            at: now - self.start,
            latency: now - sent,
            outcome,
        };
        self.inner.lock().unwrap().attempts.push(attempt);
    }

    pub fn change(&self, at: Instant) {
        self.inner.lock().unwrap().changes.push(at - self.start);
    }

    pub fn mismatch(&self) {
        self.inner.lock().unwrap().mismatches += 1;
    }

    /// The seat changes so far, for the figures per change of what was spent until now.
    pub fn changes(&self) -> usize {
        self.inner.lock().unwrap().changes.len()
    }

    /// The figures of what ended within `from..to` (from the load's start).
    pub fn figures(&self, from: Duration, to: Duration) -> Figures {
        let log = self.inner.lock().unwrap();
        let within = |at: &Duration| *at >= from && *at < to;
        let attempts: Vec<Attempt> = (log.attempts.iter())
            .filter(|a| within(&a.at))
            .copied()
            .collect();
        let changes: Vec<Duration> = log
            .changes
            .iter()
            .filter(|at| within(at))
            .copied()
            .collect();
        Figures {
            seconds: (to - from).as_secs_f64(),
            first_change: changes.iter().min().map(|at| *at - from),
            changes: changes.len(),
            mismatches: log.mismatches,
            attempts,
        }
    }

    /// Per second of `from..to`: seat changes, and the p99 latency of every attempt that ended
    /// in it (None when none did).
    pub fn seconds(&self, from: Duration, to: Duration) -> Vec<(usize, Option<Duration>)> {
        let whole = (to - from).as_secs() as usize;
        (0..whole)
            .map(|s| {
                let start = from + Duration::from_secs(s as u64);
                let window = self.figures(start, start + Duration::from_secs(1));
                let mut latencies: Vec<Duration> =
                    window.attempts.iter().map(|a| a.latency).collect();
                (window.changes, percentile(&mut latencies, 0.99))
            })
            .collect()
    }
}

/// A stretch of a load, summed up.
#[derive(Clone)]
pub struct Figures {
    seconds: f64,
    pub attempts: Vec<Attempt>,
    pub changes: usize,
    pub first_change: Option<Duration>,
    pub mismatches: usize,
}

impl Figures {
    pub fn goodput(&self) -> f64 {
        self.changes as f64 / self.seconds
    }

    pub fn attempts_per_second(&self) -> f64 {
        self.attempts.len() as f64 / self.seconds
    }

    /// The share of attempts that ended so, in percent.
    pub fn share(&self, outcome: Outcome) -> f64 {
        let count = self.count(outcome);
        100.0 * count as f64 / self.attempts.len().max(1) as f64
    }

    pub fn count(&self, outcome: Outcome) -> usize {
        (self.attempts.iter())
            .filter(|a| a.outcome == outcome)
            .count()
    }

    /// p50 and p99 latency of the successes.
    pub fn success_latency(&self) -> (Option<Duration>, Option<Duration>) {
        self.latencies(|outcome| outcome == Outcome::Success)
    }

    /// p50 and p99 latency of the refusals (503, 504, 429).
    pub fn refusal_latency(&self) -> (Option<Duration>, Option<Duration>) {
        self.latencies(Outcome::refusal)
    }

    /// p50 and p99 latency of every attempt the gateway answered, however.
    pub fn answered_latency(&self) -> (Option<Duration>, Option<Duration>) {
        self.latencies(Outcome::answered)
    }

    fn latencies(&self, which: impl Fn(Outcome) -> bool) -> (Option<Duration>, Option<Duration>) {
        let mut latencies: Vec<Duration> = (self.attempts.iter())
            .filter(|a| which(a.outcome))
            .map(|a| a.latency)
            .collect();
        (
            percentile(&mut latencies, 0.50),
            percentile(&mut latencies, 0.99),
        )
    }
}

/// The `q` quantile (nearest rank) of `values`, which it sorts.
fn percentile(values: &mut [Duration], q: f64) -> Option<Duration> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
    Some(values[rank - 1])
}
