//! How long a request queued at the door ([`super::door`]) would wait for its place, from
//! what the places and the line did lately (pure arithmetic on times the door reports).
//!
//! Two estimates, and the longer one counts. By the places: each frees after `held` on
//! average, `limit` of them at a time. By the line itself: how often it has been served
//! lately, which also counts what the places' estimate cannot see (purchases' ends served
//! first, a limit that shrank). Measured with the places' estimate alone (issue 48, 150 and
//! 300 polite clients on 2 showtimes): the requests it queued waited their whole second and
//! were refused then, p50 1,002 ms.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The weight of the average time a place is held: the last 64 places, roughly.
const HELD_WEIGHT: f64 = 64.0;
/// How many of the waiting line's services its pace is measured over. The line is served in
/// bursts (a batch's places come free together, then none for its length), so a short
/// average swings with each burst: as an exponential average over about 16, 64 buyers in a
/// closed loop, whose holds waited about 0.8 s in fact, were estimated past a 1 s wait often
/// enough to refuse 31% of them at once; over 64, 14% (issue 48).
const LINE_KEPT: usize = 64;
/// How many services of the line its pace needs before it is trusted. A cold gateway's first
/// few are slow (connections opened, caches empty): 64 buyers arriving at once saw a pace of
/// 28 to 80 ms over the first 3 to 12 services, three times the pace that followed, and 1% of
/// their holds were refused on it (issue 48). Until then the places' estimate decides, and a
/// request queued on it is still refused, having sent nothing, once its wait is over.
pub(super) const LINE_KNOWN: usize = 16;

/// What the door has learnt of how fast turns come.
#[derive(Debug)]
pub(super) struct WaitEstimate {
    /// How long a place is held, on average (an exponential average, in microseconds; 0
    /// until the first is given back).
    held_micros: f64,
    /// The times between two of the waiting line's last [`LINE_KEPT`] requests getting
    /// places while it was not empty (microseconds), and their sum.
    line_intervals: VecDeque<f64>,
    line_total_micros: f64,
    /// When the waiting line last had a request served, or last stopped being empty.
    line_since: Instant,
}

impl WaitEstimate {
    pub(super) fn new(now: Instant) -> Self {
        WaitEstimate {
            held_micros: 0.0,
            line_intervals: VecDeque::with_capacity(LINE_KEPT),
            line_total_micros: 0.0,
            line_since: now,
        }
    }

    /// A place was given back after being held `held`.
    pub(super) fn place_held(&mut self, held: Duration) {
        let held = held.as_secs_f64() * 1e6;
        self.held_micros = match self.held_micros {
            0.0 => held,
            average => average + (held - average) / HELD_WEIGHT,
        };
    }

    /// The waiting line stopped being empty at `now`.
    pub(super) fn line_started(&mut self, now: Instant) {
        self.line_since = now;
    }

    /// A request of the waiting line got its place at `now`.
    pub(super) fn line_served(&mut self, now: Instant) {
        let interval = now.saturating_duration_since(self.line_since).as_secs_f64() * 1e6;
        if self.line_intervals.len() == LINE_KEPT {
            self.line_total_micros -= self.line_intervals.pop_front().unwrap_or(0.0);
        }
        self.line_intervals.push_back(interval);
        self.line_total_micros = (self.line_total_micros + interval).max(0.0);
        self.line_since = now;
    }

    /// How long a request would wait at `now` with `ahead` requests before it (in both
    /// lines), `waiting` in its own line and `limit` places.
    pub(super) fn expected(
        &self,
        ahead: usize,
        waiting: usize,
        limit: usize,
        now: Instant,
    ) -> Duration {
        let by_places = self.held_micros * (ahead + 1) as f64 / limit.max(1) as f64;
        let by_line = self.line_pace(waiting, now) * (waiting + 1) as f64;
        Duration::from_micros(by_places.max(by_line) as u64)
    }

    /// The time between two services of the waiting line, in microseconds (0 until known):
    /// the average of the last ones, or longer when the line, not empty, has waited longer
    /// than that since its last (a line that stopped moving says so before its next service).
    fn line_pace(&self, waiting: usize, now: Instant) -> f64 {
        let served = self.line_intervals.len();
        if served < LINE_KNOWN {
            return 0.0;
        }
        let average = self.line_total_micros / served as f64;
        if waiting == 0 {
            return average;
        }
        let pending = now.saturating_duration_since(self.line_since).as_secs_f64() * 1e6;
        average.max((self.line_total_micros + pending) / (served + 1) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAIT: Duration = Duration::from_secs(1);

    /// 64 buyers in a closed loop behind a limit of 16: the line is served in bursts of 16
    /// every 160 ms (a batch's places come free together), 10 ms a service on average, so
    /// the 64th in line gets its place in 640 ms. As an exponential average over about 16
    /// services (before), the pace read just after a burst's gap was 15.6 ms: 1 s.
    #[test]
    fn a_line_served_in_bursts_is_paced_by_its_average_not_its_last_burst() {
        let mut now = Instant::now();
        let mut estimate = WaitEstimate::new(now);
        for _ in 0..8 {
            now += Duration::from_millis(160);
            for _ in 0..16 {
                estimate.line_served(now);
            }
        }
        // The first service after the next gap: where a short average swings highest.
        now += Duration::from_millis(160);
        estimate.line_served(now);
        let expected = estimate.expected(63, 63, 16, now);
        assert!(
            expected > Duration::from_millis(600) && expected < Duration::from_millis(700),
            "{expected:?}"
        );
        // The line stops moving: after 2 s without a service the estimate says so.
        let stalled = estimate.expected(63, 63, 16, now + Duration::from_secs(2));
        assert!(stalled > WAIT, "{stalled:?}");
    }

    /// A cold gateway's first services are slow: three at 80 ms with 44 waiting would put
    /// the last past 3 s, though the pace that follows is a third of it. Until the line has
    /// been served [`LINE_KNOWN`] times the places' estimate decides alone.
    #[test]
    fn a_pace_measured_over_a_few_services_does_not_refuse() {
        let mut now = Instant::now();
        let mut estimate = WaitEstimate::new(now);
        estimate.place_held(Duration::from_millis(30));
        for _ in 0..3 {
            now += Duration::from_millis(80);
            estimate.line_served(now);
        }
        let expected = estimate.expected(44, 44, 16, now);
        assert!(expected < WAIT, "{expected:?}");
        // Once it is known, the same pace counts.
        for _ in 3..LINE_KNOWN {
            now += Duration::from_millis(80);
            estimate.line_served(now);
        }
        let known = estimate.expected(44, 44, 16, now);
        assert!(known > WAIT, "{known:?}");
    }

    /// The first place given back is the average (a start from zero took some hundred
    /// places to reach what places are held for, and queued requests on it meanwhile).
    #[test]
    fn the_places_estimate_starts_from_the_first_place_given_back() {
        let now = Instant::now();
        let mut estimate = WaitEstimate::new(now);
        estimate.place_held(Duration::from_millis(80));
        // 15 ahead, 16 places: the 16th place to free comes after one holding, 80 ms.
        let expected = estimate.expected(15, 0, 16, now);
        assert_eq!(expected, Duration::from_millis(80));
    }
}
