//! How many requests a gateway lets use the database at once: a limit that follows the
//! database's latency (pure arithmetic; the door that applies it is [`super::door`]).
//!
//! A fixed limit is right for one deployment at most: two gateways on one database that each
//! keep 16 commands in flight give the database 32, past the point where it answers in time
//! (issue 48: 99% refusals with two gateways, 7.7% with each set to 8 by hand). So each
//! gateway measures how long the database takes to answer its commands and moves its limit
//! by the gradient between a long-term average of that latency and the latest window's
//! (Netflix's Gradient2, as in their `concurrency-limits` and the `tower-acc` crate):
//!
//! ```text
//! gradient = clamp(TOLERANCE × long / short, 0.5, 1)
//! limit    = (1 − SMOOTHING) × limit + SMOOTHING × (gradient × limit + growth(limit))
//! ```
//!
//! While the database keeps pace, `short` stays near `long`, the gradient is 1 and the limit
//! grows by a little each window, up to the ceiling (the pool size); once queueing at the
//! database makes `short` more than [`TOLERANCE`] times `long`, the limit shrinks, by up to a
//! half per window. Every gateway on the database sees the same latency, so N gateways shrink
//! together and settle near the database's best concurrency without knowing N. A command that
//! timed out halves the limit at once (a database that stops answering says nothing through
//! latency until its commands time out).
//!
//! Samples are grouped into windows of [`WINDOW_TIME`] (with at least [`MIN_SAMPLES`]
//! commands), so the limit moves at a pace that does not depend on how many commands a second
//! the gateway sends. The long-term average spans about half a minute: a database that
//! slows down is seen as queueing for that long, not taken for the new normal in a second;
//! once it is faster again the average comes down quickly. A window in which the gateway used less than half
//! its limit says nothing about the database at the limit: the limit does not grow then
//! (otherwise a quiet evening would raise it to the ceiling and the first crowd would meet it).

use std::time::{Duration, Instant};

/// How much slower than usual the database may answer before the limit shrinks.
pub const TOLERANCE: f64 = 2.0;
/// The share of a window's new limit taken into the limit.
const SMOOTHING: f64 = 0.2;
/// Windows the long-term latency averages over (an exponential average): 30 s of windows.
const LONG_WINDOWS: f64 = 600.0;
/// A window closes after this long...
pub const WINDOW_TIME: Duration = Duration::from_millis(50);
/// ...once it has at least this many commands.
pub const MIN_SAMPLES: u32 = 8;

/// The limit and what it has learnt of the database's latency.
#[derive(Debug, Clone)]
pub struct AdaptiveLimit {
    limit: f64,
    min: f64,
    max: f64,
    /// The long-term average latency, in microseconds (0 until the first window).
    long_micros: f64,
    window: Window,
}

#[derive(Debug, Clone)]
struct Window {
    opened: Instant,
    samples: u32,
    total_micros: f64,
    /// The most requests in flight seen while the window was open.
    busiest: usize,
}

impl Window {
    fn new(now: Instant) -> Self {
        Window {
            opened: now,
            samples: 0,
            total_micros: 0.0,
            busiest: 0,
        }
    }
}

impl AdaptiveLimit {
    /// A limit between `min` and `max` (at least 1), starting at `initial`.
    pub fn new(initial: usize, min: usize, max: usize, now: Instant) -> Self {
        let max = max.max(1) as f64;
        let min = (min.max(1) as f64).min(max);
        AdaptiveLimit {
            limit: (initial as f64).clamp(min, max),
            min,
            max,
            long_micros: 0.0,
            window: Window::new(now),
        }
    }

    /// The limit now: how many requests may use the database at once.
    pub fn get(&self) -> usize {
        self.limit as usize
    }

    /// The long-term latency the limit compares windows with (zero before the first window).
    pub fn long_latency(&self) -> Duration {
        Duration::from_micros(self.long_micros as u64)
    }

    /// One command answered in `latency` while `in_flight` requests were admitted; moves the
    /// limit when it closes a window.
    pub fn sample(&mut self, latency: Duration, in_flight: usize, now: Instant) {
        let window = &mut self.window;
        window.samples += 1;
        window.total_micros += latency.as_secs_f64() * 1e6;
        window.busiest = window.busiest.max(in_flight);
        let age = now.saturating_duration_since(window.opened);
        if age < WINDOW_TIME || window.samples < MIN_SAMPLES {
            return;
        }
        let short = window.total_micros / f64::from(window.samples);
        let busiest = window.busiest;
        self.window = Window::new(now);
        self.close_window(short.max(1.0), busiest);
    }

    /// A command that got no answer in time: the database is past its capacity, whatever
    /// the latency of the commands that did answer says.
    pub fn timed_out(&mut self) {
        self.limit = (self.limit / 2.0).max(self.min);
    }

    fn close_window(&mut self, short: f64, busiest: usize) {
        if self.long_micros == 0.0 {
            self.long_micros = short;
            return;
        }
        self.long_micros += (short - self.long_micros) * 2.0 / (LONG_WINDOWS + 1.0);
        // After a spell of overload the average is far above what the database does now:
        // bring it down faster than the average would, so the limit can grow again.
        if self.long_micros / short > 2.0 {
            self.long_micros *= 0.95;
        }
        let gradient = (TOLERANCE * self.long_micros / short).clamp(0.5, 1.0);
        let app_limited = (busiest as f64) * 2.0 < self.limit;
        if app_limited && gradient >= 1.0 {
            return;
        }
        let growth = if gradient >= 1.0 {
            self.limit.sqrt().max(1.0)
        } else {
            0.0
        };
        let target = gradient * self.limit + growth;
        self.limit =
            ((1.0 - SMOOTHING) * self.limit + SMOOTHING * target).clamp(self.min, self.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `windows` full windows of commands taking `latency` with `in_flight` admitted.
    fn feed(
        limit: &mut AdaptiveLimit,
        now: &mut Instant,
        latency_ms: u64,
        in_flight: usize,
        windows: u32,
    ) {
        for _ in 0..windows * MIN_SAMPLES {
            *now += WINDOW_TIME / MIN_SAMPLES;
            limit.sample(Duration::from_millis(latency_ms), in_flight, *now);
        }
    }

    #[test]
    fn a_database_that_keeps_pace_lets_the_limit_grow_to_the_ceiling() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(4, 2, 32, now);
        feed(&mut limit, &mut now, 2, 32, 200);
        assert_eq!(limit.get(), 32);
    }

    #[test]
    fn latency_rising_past_the_tolerance_shrinks_the_limit_to_its_floor_and_back() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(16, 2, 32, now);
        feed(&mut limit, &mut now, 2, 16, 20);
        let before = limit.get();
        feed(&mut limit, &mut now, 20, 16, 5);
        assert!(limit.get() < before, "{} < {before}", limit.get());
        feed(&mut limit, &mut now, 200, 16, 40);
        assert_eq!(
            limit.get(),
            2,
            "sustained tenfold latency reaches the floor"
        );
        // The database recovers: the long average comes down and the limit grows again.
        feed(&mut limit, &mut now, 2, 32, 400);
        assert_eq!(limit.get(), 32);
    }

    #[test]
    fn latency_within_the_tolerance_does_not_shrink_it() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(8, 2, 64, now);
        feed(&mut limit, &mut now, 4, 8, 10);
        let before = limit.get();
        feed(&mut limit, &mut now, 7, 64, 3);
        assert!(limit.get() >= before);
    }

    #[test]
    fn a_gateway_using_less_than_half_its_limit_does_not_raise_it() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(10, 2, 64, now);
        feed(&mut limit, &mut now, 2, 3, 100);
        assert_eq!(limit.get(), 10);
    }

    #[test]
    fn a_timeout_halves_the_limit_but_not_below_the_floor() {
        let now = Instant::now();
        let mut limit = AdaptiveLimit::new(20, 3, 32, now);
        limit.timed_out();
        assert_eq!(limit.get(), 10);
        for _ in 0..10 {
            limit.timed_out();
        }
        assert_eq!(limit.get(), 3);
    }

    #[test]
    fn a_slow_trickle_of_commands_still_closes_windows() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(8, 1, 16, now);
        for _ in 0..MIN_SAMPLES - 1 {
            now += WINDOW_TIME;
            limit.sample(Duration::from_millis(3), 8, now);
        }
        assert_eq!(
            limit.long_latency(),
            Duration::ZERO,
            "too few to say anything"
        );
        now += WINDOW_TIME;
        limit.sample(Duration::from_millis(3), 8, now);
        assert_eq!(limit.long_latency(), Duration::from_millis(3));
    }
}
