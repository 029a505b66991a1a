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
//! together; each grows by its part of the work ([`pool_share`]) of what one would (`growth`),
//! so that together they grow as one gateway would, and settle where it would. (Each growing
//! as one would, two gateways kept 7.5 to 11.1 requests in flight together where one kept 6.7
//! to 7.6, and each database operation cost up to 17% more: issue 48, 150 impatient clients,
//! 3 pairs; growing by half each, 7.4 to 8.9 where one kept 7.1 to 11.6, 4 pairs.) A command
//! that timed out halves the limit at once (a database that stops answering says nothing
//! through latency until its commands time out).
//!
//! Samples are grouped into windows of [`WINDOW_TIME`] (with at least [`MIN_SAMPLES`]
//! commands), so the limit moves at a pace that does not depend on how many commands a second
//! the gateway sends.
//!
//! What `long` is. An average of what the gateway sees drifts up under a crowd that lasts:
//! after half a minute of queueing, queueing is the average, the gradient is 1 again and the
//! limit grows to the ceiling (measured, issue 48: at 600 clients the limit sat at its ceiling
//! of 32, the database's commands took twice as long as at 10 clients and it spent 15% more
//! CPU per seat change; with the ceiling set to 6 by hand, none of that). So `long` is what
//! the database takes when little queues, measured as TCP's BBR measures its round trip
//! (ProbeRTT): every [`PROBE_EVERY`] of the wall clock, for [`PROBE_SLOT`], the limit is at
//! most [`PROBE_LIMIT`], and a window in which no more were in flight is a probe; `long` is
//! the lowest of the last [`PROBES_KEPT`] probes. The slots are on the wall clock so that every
//! gateway on the database probes at once, and none measures another's queue as its own.
//! Until the first probe, `long` is the average of the windows, spanning about half a minute
//! (a database that slows down is seen as queueing for that long; once it is faster again
//! the average comes down quickly). A window in which the gateway used less than half
//! its limit says nothing about the database at the limit: the limit does not grow then
//! (otherwise a quiet evening would raise it to the ceiling and the first crowd would meet it).

use std::time::{Duration, Instant};

/// How much slower than with little queued the database may answer before the limit shrinks.
/// Measured with `booking_throughput` (64 clients, 64 showtimes), against its driver-only
/// pairs a second in the same run (the machine's speed varied): with 2 the gateway made 0.50
/// and 0.58 of the driver's pairs, with 3 0.64, with 4 0.62, with the average of before (its
/// limit at the ceiling, 32) 0.68. In `examples/overload` the limit at each step's end was 2
/// to 10 with 2, 4 to 28 with 3, and 20 to 32 with the average from 150 clients up.
pub const TOLERANCE: f64 = 3.0;
/// The share of a window's new limit taken into the limit.
const SMOOTHING: f64 = 0.2;
/// Windows the long-term latency averages over (an exponential average): 30 s of windows.
const LONG_WINDOWS: f64 = 600.0;
/// How often, on the wall clock, the limit measures the database with little queueing...
pub const PROBE_EVERY: Duration = Duration::from_secs(5);
/// ...for this long at most...
pub const PROBE_SLOT: Duration = Duration::from_millis(250);
/// ...with this many requests at most in flight on the database (a twentieth of the time at
/// two requests: the database stays nearly as busy, and little queues in it). The gateways
/// probe at once, so each takes its part, one request at least (`set_gateways`): two gateways
/// probing with two each measured the database with four in flight, and settled at two to
/// three times the requests in flight of one gateway (issue 48, 150 impatient clients: 15 and
/// 22 against 8), each command paying for the queue.
///
/// The ceiling (the requests' pool, `--db-max-pool-size`) is shared too, by each gateway's
/// share ([`pool_share`]), so N gateways never keep more commands in flight together
/// than one gateway may. Issue 48, 150 impatient clients on two gateways, pool 16, 4 pairs
/// each against one gateway: with each at the whole pool, 9 to 15 requests were in flight and
/// they sold 0.60 to 0.98 of one gateway's seat changes (mean 0.83); with each at 8, 8.5 to
/// 10 and 0.91 to 1.04 (mean 0.98).
pub const PROBE_LIMIT: usize = 2;
/// How many probes `long` is the lowest of: the last 15 s, so a database that became slower
/// for good (a bigger document, a busier neighbour) is the new normal within that.
const PROBES_KEPT: usize = 3;
/// A window closes after this long...
pub const WINDOW_TIME: Duration = Duration::from_millis(50);
/// ...once it has at least this many commands.
pub const MIN_SAMPLES: u32 = 8;

/// The requests each gateway may count on besides those it was seen to want: a gateway
/// whose load grows is not held to nothing until its next heartbeat, and gateways that want
/// nothing split the pool evenly.
pub const HEADROOM: f64 = 1.0;

/// The share of the ceiling (its part of the pool) a gateway takes when it wanted `own`
/// requests at once (in flight or waiting at its door, on average since its last heartbeat)
/// and the other live gateways last said they wanted `others` (None: a gateway that does not
/// say, an older build). Writes go to a showtime's owner, so one gateway may have all the
/// work while another has none: an even split would hold the first to half while the other
/// half idles (issue 48, 40 impatient clients: the owner of both hot showtimes sent 80–84% of
/// the commands and queued 18–30 requests at its door while the database was 17% idle).
/// Each wish counts with [`HEADROOM`] more; when any gateway's wish is unknown, the split is
/// even, as every gateway then computes the same.
pub fn pool_share(own: f64, others: &[Option<f64>]) -> f64 {
    let gateways = (others.len() + 1) as f64;
    let known: Option<Vec<f64>> = others.iter().copied().collect();
    let Some(others) = known else {
        return 1.0 / gateways;
    };
    let wish = |wanted: f64| {
        if wanted.is_finite() {
            wanted.max(0.0) + HEADROOM
        } else {
            HEADROOM
        }
    };
    wish(own) / (wish(own) + others.into_iter().map(wish).sum::<f64>())
}

/// The limit and what it has learnt of the database's latency.
#[derive(Debug, Clone)]
pub struct AdaptiveLimit {
    limit: f64,
    min: f64,
    /// This gateway's part of the ceiling ([`pool_share`]): the most it lets in.
    max: f64,
    /// This gateway's part of the work of all the live gateways ([`pool_share`]; 1 alone):
    /// it grows by that part of one gateway's growth, and probes with that part of the probe.
    part: f64,
    /// The long-term average latency, in microseconds (0 until the first window).
    long_micros: f64,
    /// The latest probes' latencies, in microseconds, oldest first.
    probes: std::collections::VecDeque<f64>,
    /// This gateway's part of [`PROBE_LIMIT`].
    probe_limit: usize,
    /// The ceiling of all gateways together; `max` is this gateway's part of it.
    ceiling: f64,
    window: Window,
}

/// Whether `wall` (the time since the Unix epoch) falls in a probe slot.
pub fn in_probe_slot(wall: Duration) -> bool {
    wall.as_millis() % PROBE_EVERY.as_millis() < PROBE_SLOT.as_millis()
}

#[derive(Debug, Clone)]
struct Window {
    opened: Instant,
    samples: u32,
    total_micros: f64,
    /// The most requests in flight seen while the window was open.
    busiest: usize,
    /// Whether every sample came in a probe slot.
    probing: bool,
}

impl Window {
    fn new(now: Instant, probing: bool) -> Self {
        Window {
            opened: now,
            samples: 0,
            total_micros: 0.0,
            busiest: 0,
            probing,
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
            part: 1.0,
            long_micros: 0.0,
            probes: std::collections::VecDeque::with_capacity(PROBES_KEPT + 1),
            probe_limit: PROBE_LIMIT,
            ceiling: max,
            window: Window::new(now, false),
        }
    }

    /// `gateways` live gateways share the database (this one among them), this one with
    /// `share` of their work ([`pool_share`]): in a probe slot it lets that part of
    /// [`PROBE_LIMIT`] in, one at least; its limit grows by that part of one gateway's growth,
    /// and at most to that part of the ceiling, the limit's floor at least. A share that is
    /// not a number counts as an even one for the growth and the probe, and as none for the
    /// ceiling.
    pub fn set_gateways(&mut self, gateways: usize, share: f64) {
        let known = share.is_finite().then(|| share.clamp(0.0, 1.0));
        let even = 1.0 / gateways.max(1) as f64;
        self.part = known.unwrap_or(even).max(f64::EPSILON);
        self.probe_limit = ((PROBE_LIMIT as f64 * self.part).round() as usize).max(1);
        self.max = (self.ceiling * known.unwrap_or(0.0))
            .round()
            .clamp(self.min, self.ceiling);
        self.limit = self.limit.min(self.max);
    }

    /// The most requests this gateway lets in: its part of the ceiling.
    pub fn ceiling(&self) -> usize {
        self.max as usize
    }

    /// How many requests this gateway lets in during a probe slot at most.
    pub fn probe_limit(&self) -> usize {
        self.probe_limit
    }

    /// How many requests may use the database at once: the limit, or in a probe slot at most
    /// this gateway's part of [`PROBE_LIMIT`].
    pub fn get(&self, probing: bool) -> usize {
        let limit = self.limit as usize;
        if probing {
            limit.min(self.probe_limit)
        } else {
            limit
        }
    }

    /// The latency the limit compares windows with: the lowest recent probe, or before any,
    /// the long-term average (zero before the first window).
    pub fn long_latency(&self) -> Duration {
        Duration::from_micros(self.long() as u64)
    }

    fn long(&self) -> f64 {
        (self.probes.iter().copied())
            .reduce(f64::min)
            .unwrap_or(self.long_micros)
    }

    /// One command answered in `latency` while `in_flight` requests were admitted, in a probe
    /// slot or not; moves the limit, or records a probe, when it closes a window.
    pub fn sample(&mut self, latency: Duration, in_flight: usize, now: Instant, probing: bool) {
        let window = &mut self.window;
        window.samples += 1;
        window.total_micros += latency.as_secs_f64() * 1e6;
        window.busiest = window.busiest.max(in_flight);
        window.probing &= probing;
        let age = now.saturating_duration_since(window.opened);
        if age < WINDOW_TIME || window.samples < MIN_SAMPLES {
            return;
        }
        let short = (window.total_micros / f64::from(window.samples)).max(1.0);
        let closed = std::mem::replace(&mut self.window, Window::new(now, probing));
        if closed.probing && closed.busiest <= self.probe_limit {
            if self.probes.len() == PROBES_KEPT {
                self.probes.pop_front();
            }
            self.probes.push_back(short);
        } else if !closed.probing {
            self.close_window(short, closed.busiest);
        }
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
        let gradient = (TOLERANCE * self.long() / short).clamp(0.5, 1.0);
        let app_limited = (busiest as f64) * 2.0 < self.limit;
        if app_limited && gradient >= 1.0 {
            return;
        }
        let growth = if gradient >= 1.0 {
            growth(self.limit, self.part)
        } else {
            0.0
        };
        let target = gradient * self.limit + growth;
        self.limit =
            ((1.0 - SMOOTHING) * self.limit + SMOOTHING * target).clamp(self.min, self.max);
    }
}

/// How much a limit of `limit` grows in a window while the database keeps pace, when its
/// gateway has `part` of the live gateways' work: that part of one gateway's growth, the
/// square root of what one gateway would have at the same load (`limit ÷ part`), at least
/// one. So N gateways together grow as one would, however the work is split: each growing as
/// one, two raised the requests in flight twice as fast and the latency they all shrink by
/// came later, past more queueing; each growing by 1 ÷ N, a gateway that had all the work
/// (the owner of both hot showtimes) grew at half one's pace, and after each shrink left the
/// database idle for 7% of a step (issue 48, 150 impatient clients).
fn growth(limit: f64, part: f64) -> f64 {
    let part = part.clamp(f64::EPSILON, 1.0);
    (limit / part).sqrt().max(1.0) * part
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
            limit.sample(Duration::from_millis(latency_ms), in_flight, *now, false);
        }
    }

    /// Feeds one full window of commands taking `latency` with `in_flight` admitted, in a
    /// probe slot; the latency the limit then compares with.
    fn in_slot(
        limit: &mut AdaptiveLimit,
        now: &mut Instant,
        latency_ms: u64,
        in_flight: usize,
    ) -> Duration {
        for _ in 0..MIN_SAMPLES {
            *now += WINDOW_TIME / MIN_SAMPLES;
            limit.sample(Duration::from_millis(latency_ms), in_flight, *now, true);
        }
        limit.long_latency()
    }

    #[test]
    fn a_database_that_keeps_pace_lets_the_limit_grow_to_the_ceiling() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(4, 2, 32, now);
        feed(&mut limit, &mut now, 2, 32, 200);
        assert_eq!(limit.get(false), 32);
    }

    #[test]
    fn latency_rising_past_the_tolerance_shrinks_the_limit_to_its_floor_and_back() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(16, 2, 32, now);
        feed(&mut limit, &mut now, 2, 16, 20);
        let before = limit.get(false);
        feed(&mut limit, &mut now, 20, 16, 5);
        assert!(limit.get(false) < before, "{} < {before}", limit.get(false));
        feed(&mut limit, &mut now, 200, 16, 40);
        assert_eq!(
            limit.get(false),
            2,
            "sustained tenfold latency reaches the floor"
        );
        // The database recovers: the long average comes down and the limit grows again.
        feed(&mut limit, &mut now, 2, 32, 400);
        assert_eq!(limit.get(false), 32);
    }

    #[test]
    fn latency_within_the_tolerance_does_not_shrink_it() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(8, 2, 64, now);
        feed(&mut limit, &mut now, 4, 8, 10);
        let before = limit.get(false);
        feed(&mut limit, &mut now, 7, 64, 3);
        assert!(limit.get(false) >= before);
    }

    #[test]
    fn a_gateway_using_less_than_half_its_limit_does_not_raise_it() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(10, 2, 64, now);
        feed(&mut limit, &mut now, 2, 3, 100);
        assert_eq!(limit.get(false), 10);
    }

    #[test]
    fn a_timeout_halves_the_limit_but_not_below_the_floor() {
        let now = Instant::now();
        let mut limit = AdaptiveLimit::new(20, 3, 32, now);
        limit.timed_out();
        assert_eq!(limit.get(false), 10);
        for _ in 0..10 {
            limit.timed_out();
        }
        assert_eq!(limit.get(false), 3);
    }

    /// A quiet evening at 1 ms, then 60 s of windows at 4 ms with the gateway at its limit,
    /// and, if `probes`, every 5 s a probe window at 1 ms (what the database takes with
    /// little queued); the limit at the end.
    fn after_a_crowd_that_lasts(probes: bool) -> usize {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(16, 2, 32, now);
        feed(&mut limit, &mut now, 1, 16, 20);
        for _ in 0..12 {
            if probes {
                in_slot(&mut limit, &mut now, 1, PROBE_LIMIT);
                in_slot(&mut limit, &mut now, 1, PROBE_LIMIT);
                // The window open when the slot ends has samples of both: not a probe.
                now += WINDOW_TIME;
                limit.sample(Duration::from_millis(4), 32, now, false);
            }
            let busy = limit.get(false);
            feed(&mut limit, &mut now, 4, busy, 100);
        }
        limit.get(false)
    }

    #[test]
    fn a_crowd_that_lasts_does_not_become_the_databases_normal() {
        assert_eq!(
            after_a_crowd_that_lasts(true),
            2,
            "four times the probed latency keeps the limit at its floor"
        );
        assert!(
            after_a_crowd_that_lasts(false) > 16,
            "an average alone takes the queueing for the normal and grows the limit again"
        );
    }

    #[test]
    fn a_probe_counts_only_when_few_requests_were_in_flight() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(16, 2, 32, now);
        feed(&mut limit, &mut now, 8, 16, 1);
        let mut window =
            |in_flight: usize, limit: &mut AdaptiveLimit| in_slot(limit, &mut now, 2, in_flight);
        // The window open when the slot starts, then one while more than the probe's limit
        // are still in flight: neither is a probe, `long` is still the average.
        window(PROBE_LIMIT + 1, &mut limit);
        assert!(window(PROBE_LIMIT + 1, &mut limit) > Duration::from_millis(4));
        assert_eq!(window(PROBE_LIMIT, &mut limit), Duration::from_millis(2));
    }

    #[test]
    fn long_is_the_lowest_of_the_last_probes() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(16, 2, 32, now);
        let mut probe = |latency_ms: u64, limit: &mut AdaptiveLimit| {
            in_slot(limit, &mut now, latency_ms, 1).as_millis()
        };
        assert_eq!(probe(3, &mut limit), 3);
        assert_eq!(probe(1, &mut limit), 1);
        assert_eq!(probe(4, &mut limit), 1);
        assert_eq!(probe(5, &mut limit), 1);
        assert_eq!(
            probe(6, &mut limit),
            4,
            "the 1 ms probe is {PROBES_KEPT} probes old"
        );
    }

    #[test]
    fn in_a_probe_slot_the_limit_is_at_most_the_probe_limit() {
        let limit = AdaptiveLimit::new(16, 2, 32, Instant::now());
        assert_eq!((limit.get(false), limit.get(true)), (16, PROBE_LIMIT));
        let small = AdaptiveLimit::new(1, 1, 1, Instant::now());
        assert_eq!(small.get(true), 1);
    }

    #[test]
    fn gateways_probing_together_each_take_their_part_of_the_probe() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(16, 2, 32, now);
        feed(&mut limit, &mut now, 8, 16, 1);
        limit.set_gateways(2, 1.0 / 2.0);
        assert_eq!((limit.get(false), limit.get(true)), (16, 1));
        let mut window =
            |in_flight: usize, limit: &mut AdaptiveLimit| in_slot(limit, &mut now, 2, in_flight);
        // With two in flight here (and as many on the other gateway), not a probe.
        window(2, &mut limit);
        assert!(window(2, &mut limit) > Duration::from_millis(4));
        assert_eq!(window(1, &mut limit), Duration::from_millis(2));
        // Many gateways: one request each at least; alone again: the whole probe.
        limit.set_gateways(5, 1.0 / 5.0);
        assert_eq!(limit.get(true), 1);
        limit.set_gateways(1, 1.0);
        assert_eq!(limit.get(true), PROBE_LIMIT);
    }

    #[test]
    fn gateways_together_keep_within_one_ceiling() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(32, 2, 32, now);
        feed(&mut limit, &mut now, 2, 32, 5);
        assert_eq!(limit.get(false), 32);
        limit.set_gateways(2, 1.0 / 2.0);
        assert_eq!((limit.ceiling(), limit.get(false)), (16, 16));
        // A database that keeps pace grows it to this gateway's part, no further.
        feed(&mut limit, &mut now, 2, 16, 200);
        assert_eq!(limit.get(false), 16);
        // Many gateways: the floor each at least.
        limit.set_gateways(40, 1.0 / 40.0);
        assert_eq!((limit.ceiling(), limit.get(false)), (2, 2));
        // Alone again: the whole ceiling, reached as the database keeps pace.
        limit.set_gateways(1, 1.0);
        assert_eq!(limit.ceiling(), 32);
        feed(&mut limit, &mut now, 2, 32, 200);
        assert_eq!(limit.get(false), 32);
    }

    #[test]
    fn a_gateway_with_the_work_takes_most_of_the_ceiling_and_gives_it_back() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(16, 2, 16, now);
        // Owner of both hot showtimes: 20 requests wanted here, none on the other gateway.
        limit.set_gateways(2, pool_share(20.0, &[Some(0.0)]));
        assert_eq!(limit.ceiling(), 15);
        feed(&mut limit, &mut now, 2, 15, 200);
        assert_eq!(limit.get(false), 15);
        // The other gateway, seen from there: its floor, not nothing.
        let mut other = AdaptiveLimit::new(16, 2, 16, now);
        other.set_gateways(2, pool_share(0.0, &[Some(20.0)]));
        assert_eq!(other.ceiling(), 2);
        // The work moves to the other gateway: the part shrinks at once.
        limit.set_gateways(2, pool_share(1.0, &[Some(20.0)]));
        assert_eq!((limit.ceiling(), limit.get(false)), (2, 2));
        // A share past the bounds, or not a number, stays within the floor and the ceiling.
        limit.set_gateways(2, 7.0);
        assert_eq!(limit.ceiling(), 16);
        limit.set_gateways(2, f64::NAN);
        assert_eq!(limit.ceiling(), 2);
    }

    #[test]
    fn two_gateways_grow_together_as_one_would() {
        let mut now = Instant::now();
        let mut one = AdaptiveLimit::new(8, 2, 32, now);
        let (mut a, mut b) = (
            AdaptiveLimit::new(4, 2, 32, now),
            AdaptiveLimit::new(4, 2, 32, now),
        );
        a.set_gateways(2, 0.5);
        b.set_gateways(2, 0.5);
        // A database that keeps pace, each gateway using its whole limit: one gateway's
        // growth, in two parts.
        for _ in 0..20 {
            let started = now;
            for limit in [&mut one, &mut a, &mut b] {
                let (mut at, in_flight) = (started, limit.get(false));
                feed(limit, &mut at, 2, in_flight, 1);
                now = at;
            }
            let (alone, both) = (one.limit, a.limit + b.limit);
            assert!(
                (alone - both).abs() < 0.01 * alone,
                "{alone} alone, {both} together"
            );
        }
        assert!(one.limit > 12.0, "grown: {}", one.limit);
        // Latency past the tolerance shrinks both by the same part: still together as one.
        for (limit, in_flight) in [(&mut one, 16), (&mut a, 8), (&mut b, 8)] {
            let mut at = now;
            feed(limit, &mut at, 20, in_flight, 3);
        }
        assert!((one.limit - a.limit - b.limit).abs() < 0.01 * one.limit);
    }

    #[test]
    fn a_gateway_with_all_the_work_grows_and_probes_as_one_gateway_would() {
        let mut now = Instant::now();
        let mut one = AdaptiveLimit::new(4, 2, 32, now);
        let mut owner = AdaptiveLimit::new(4, 2, 32, now);
        // The owner of both hot showtimes: 20 requests wanted here, none on the other.
        let share = pool_share(20.0, &[Some(0.0)]);
        owner.set_gateways(2, share);
        assert_eq!(owner.probe_limit(), PROBE_LIMIT);
        for _ in 0..20 {
            let started = now;
            for limit in [&mut one, &mut owner] {
                let (mut at, in_flight) = (started, limit.get(false));
                feed(limit, &mut at, 2, in_flight, 1);
                now = at;
            }
        }
        // Within 3% of one gateway's limit (its part of the work is 21 ÷ 23); growing by half
        // of one's growth, as with an even part, it would be 25% short.
        assert!(one.limit > 12.0, "grown: {}", one.limit);
        assert!(
            owner.limit > 0.97 * one.limit,
            "{} owner, {} alone",
            owner.limit,
            one.limit
        );
        let mut even = AdaptiveLimit::new(4, 2, 32, Instant::now());
        even.set_gateways(2, 0.5);
        let mut at = Instant::now();
        for _ in 0..20 {
            let in_flight = even.get(false);
            feed(&mut even, &mut at, 2, in_flight, 1);
        }
        assert!(even.limit < 0.8 * one.limit, "{} even", even.limit);
        // The other gateway, with none of the work: one request in a probe, little growth.
        let mut idle = AdaptiveLimit::new(2, 2, 32, now);
        idle.set_gateways(2, pool_share(0.0, &[Some(20.0)]));
        assert_eq!(idle.probe_limit(), 1);
        // Not a number: an even part for the probe and the growth.
        idle.set_gateways(4, f64::NAN);
        assert_eq!(idle.probe_limit(), 1);
    }

    #[test]
    fn the_ceiling_is_shared_by_what_each_gateway_wants_with_headroom() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        // Nobody wants anything, or everybody the same: an even split.
        assert!(close(pool_share(0.0, &[Some(0.0)]), 0.5));
        assert!(close(pool_share(6.0, &[Some(6.0), Some(6.0)]), 1.0 / 3.0));
        // Alone: the whole ceiling.
        assert!(close(pool_share(3.0, &[]), 1.0));
        // Uneven: by the wishes, each with the headroom.
        assert!(close(pool_share(9.0, &[Some(1.0)]), 10.0 / 12.0));
        assert!(close(pool_share(1.0, &[Some(9.0)]), 2.0 / 12.0));
        // One gateway that does not say: every gateway splits evenly.
        assert!(close(pool_share(9.0, &[Some(1.0), None]), 1.0 / 3.0));
        // Nonsense from another gateway counts as wanting nothing.
        assert!(close(pool_share(1.0, &[Some(-5.0)]), 2.0 / 3.0));
        assert!(close(pool_share(1.0, &[Some(f64::INFINITY)]), 2.0 / 3.0));
    }

    #[test]
    fn probe_slots_are_the_same_on_every_gateway_s_wall_clock() {
        let at = |millis: u64| in_probe_slot(Duration::from_millis(millis));
        assert!(at(1_800_000_000_000));
        assert!(at(1_800_000_000_249));
        assert!(!at(1_800_000_000_250));
        assert!(!at(1_800_000_004_999));
        assert!(at(1_800_000_005_000));
    }

    #[test]
    fn a_slow_trickle_of_commands_still_closes_windows() {
        let mut now = Instant::now();
        let mut limit = AdaptiveLimit::new(8, 1, 16, now);
        for _ in 0..MIN_SAMPLES - 1 {
            now += WINDOW_TIME;
            limit.sample(Duration::from_millis(3), 8, now, false);
        }
        assert_eq!(
            limit.long_latency(),
            Duration::ZERO,
            "too few to say anything"
        );
        now += WINDOW_TIME;
        limit.sample(Duration::from_millis(3), 8, now, false);
        assert_eq!(limit.long_latency(), Duration::from_millis(3));
    }
}
