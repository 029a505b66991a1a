//! Where the gateway's own time-keeping reads the time: the rate limits' token buckets take
//! `now` from a [`Clock`], so tests drive them with a [`ManualClock`] they advance instead of
//! sleeping. (Hold expiry is judged by the database's clock, never by this one.)

use std::fmt::Debug;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A source of monotonic time.
pub trait Clock: Debug + Send + Sync {
    /// The time now.
    fn now(&self) -> Instant;
}

/// The process's monotonic clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that stands still until it is advanced (for tests).
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<Instant>,
}

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock {
            now: Mutex::new(Instant::now()),
        }
    }
}

impl ManualClock {
    /// Moves the clock `by` forward.
    pub fn advance(&self, by: Duration) {
        *self.now.lock().expect("manual clock lock") += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.now.lock().expect("manual clock lock")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_clock_moves_only_when_advanced() {
        let clock = ManualClock::default();
        let start = clock.now();
        assert_eq!(clock.now(), start);
        clock.advance(Duration::from_millis(250));
        assert_eq!(clock.now() - start, Duration::from_millis(250));
    }
}
