//! Randomness and clock helpers shared by the generators.
//!
//! Every generator draws from its own ChaCha stream of the plan's seed, so what one generator
//! draws never shifts another's output: cinema 4,321 is the same whether it is generated alone,
//! in a chunk of 25 or after a different number of movies.

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The generator's random number generator: portable and reproducible across platforms.
pub type DemoRng = ChaCha8Rng;

/// The independent random streams of one seed.
#[derive(Debug, Clone, Copy)]
pub enum Stream {
    /// Movies, their details and reviews.
    Movies,
    /// Which cinema goes to which city, and its name.
    Roster,
    /// Everything about one cinema: its place, halls and showtimes.
    Cinema(usize),
    /// The ids of the provinces, cities and districts.
    Regions,
}

/// The random stream `stream` of `seed`.
pub fn rng(seed: u64, stream: Stream) -> DemoRng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(match stream {
        Stream::Movies => 0,
        Stream::Roster => 1,
        Stream::Cinema(index) => 2 + index as u64,
        Stream::Regions => u64::MAX,
    });
    rng
}

/// The 12 bytes of an id drawn from the stream, so ids are as reproducible as the rest of a
/// document.
pub fn object_id(rng: &mut DemoRng) -> [u8; 12] {
    rng.random()
}

/// One item of a non-empty constant list.
pub fn pick<'a, T>(rng: &mut DemoRng, items: &'a [T]) -> &'a T {
    &items[rng.random_range(0..items.len())]
}

/// The index of an item chosen with probability proportional to its weight; the first item
/// when every weight is zero.
pub fn weighted_index(rng: &mut DemoRng, weights: &[u32]) -> usize {
    let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
    if total == 0 {
        return 0;
    }
    let mut ticket = rng.random_range(0..total);
    for (index, &weight) in weights.iter().enumerate() {
        if ticket < u64::from(weight) {
            return index;
        }
        ticket -= u64::from(weight);
    }
    weights.len() - 1
}

/// `count` distinct indexes below `len`, in increasing order.
pub fn distinct_indexes(rng: &mut DemoRng, len: usize, count: usize) -> Vec<usize> {
    let mut chosen = rand::seq::index::sample(rng, len, count.min(len)).into_vec();
    chosen.sort_unstable();
    chosen
}

/// China has one time zone, eight hours ahead of UTC, and no daylight saving time.
const CHINA_UTC_OFFSET_HOURS: i64 = 8;

/// Today's date in China, where the showtimes happen.
pub fn today_in_china() -> NaiveDate {
    (Utc::now() + Duration::hours(CHINA_UTC_OFFSET_HOURS)).date_naive()
}

/// The instant `minutes` after midnight, China time, of `day`.
pub fn china_time(day: NaiveDate, minutes: i64) -> DateTime<Utc> {
    let local = day.and_time(NaiveTime::MIN) + Duration::minutes(minutes);
    local.and_utc() - Duration::hours(CHINA_UTC_OFFSET_HOURS)
}

/// Minutes after midnight, China time, of an instant (for checks).
#[cfg(test)]
pub fn china_minutes(at: DateTime<Utc>) -> i64 {
    let local = at + Duration::hours(CHINA_UTC_OFFSET_HOURS);
    i64::from(chrono::Timelike::num_seconds_from_midnight(&local.time())) / 60
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let draw = |stream| rng(7, stream).random::<u64>();
        assert_eq!(draw(Stream::Cinema(3)), draw(Stream::Cinema(3)));
        assert_ne!(draw(Stream::Cinema(3)), draw(Stream::Cinema(4)));
        assert_ne!(draw(Stream::Movies), draw(Stream::Roster));
    }

    #[test]
    fn china_time_is_eight_hours_ahead_of_utc() {
        let day = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        let ten = china_time(day, 10 * 60);
        assert_eq!(ten.to_rfc3339(), "2026-03-01T02:00:00+00:00");
        assert_eq!(china_minutes(ten), 600);
    }

    #[test]
    fn weights_of_zero_are_never_chosen() {
        let mut rng = rng(1, Stream::Movies);
        for _ in 0..100 {
            assert_eq!(weighted_index(&mut rng, &[0, 5, 0]), 1);
        }
    }
}
