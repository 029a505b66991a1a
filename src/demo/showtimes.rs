//! Showtimes: six a day in each hall between 10:00 and 22:30 China time, one after another
//! with 15 to 30 minutes of cleaning between them, popular movies more often.

use chrono::{Days, NaiveDate, TimeDelta};
use rand::Rng;

use super::pricing::{base_price, channel_prices, price_matrix};
use super::random::{china_time, object_id, pick, weighted_index, DemoRng};
use crate::domain::ids::ShowtimeId;
use crate::store::documents::{
    CinemaRef, HallDoc, HallRef, MovieRef, ShowtimeDoc, ShowtimeStatus, SHOWTIME_SCHEMA_VERSION,
};

pub const SHOWS_PER_DAY: usize = 6;
/// The earliest and latest start, in minutes after midnight China time.
pub const FIRST_START: i64 = 10 * 60;
pub const LAST_START: i64 = 22 * 60 + 30;
pub const MIN_CLEANING: i64 = 15;
pub const MAX_CLEANING: i64 = 30;
/// Showtimes start on the five minutes.
const STEP: i64 = 5;

/// A movie as the schedule sees it.
#[derive(Debug, Clone)]
pub struct Feature {
    pub movie: MovieRef,
    /// How often it is scheduled, relative to the others.
    pub weight: u32,
    /// The languages it is shown in ("国语" dubbed or the original).
    pub languages: &'static [&'static str],
}

impl Feature {
    /// The least time from its start to the next start in the same hall.
    fn shortest_turn(&self) -> i64 {
        (i64::from(self.movie.runtime_minutes) + MIN_CLEANING + STEP - 1) / STEP * STEP
    }

    fn longest_turn(&self) -> i64 {
        (i64::from(self.movie.runtime_minutes) + MAX_CLEANING) / STEP * STEP
    }
}

/// The movies cinemas choose from.
#[derive(Debug, Clone)]
pub struct Lineup {
    features: Vec<Feature>,
    /// The shortest turn of any feature: what the later shows of a day need at least.
    shortest_turn: i64,
}

impl Lineup {
    pub fn new(features: Vec<Feature>) -> Self {
        let shortest_turn = features
            .iter()
            .map(Feature::shortest_turn)
            .min()
            .unwrap_or(0);
        Lineup {
            features,
            shortest_turn,
        }
    }

    /// The day's program of a hall: (feature index, start minute) for each show. A feature is
    /// chosen only if the shows after it can still start by [`LAST_START`] with the shortest
    /// feature; some feature always fits as long as five shortest turns fit between the first
    /// start (10:30 at the latest) and [`LAST_START`], which short family films guarantee.
    fn day_program(&self, rng: &mut DemoRng) -> Vec<(usize, i64)> {
        let mut start = FIRST_START + STEP * rng.random_range(0..=6);
        let mut program = Vec::with_capacity(SHOWS_PER_DAY);
        for show in 0..SHOWS_PER_DAY {
            let later = (SHOWS_PER_DAY - 1 - show) as i64;
            let next_deadline = LAST_START - (later - 1).max(0) * self.shortest_turn;
            let fits = |f: &Feature| later == 0 || start + f.shortest_turn() <= next_deadline;
            let weights: Vec<u32> = self
                .features
                .iter()
                .map(|f| if fits(f) { f.weight } else { 0 })
                .collect();
            let chosen = weighted_index(rng, &weights);
            program.push((chosen, start));
            if later == 0 {
                break;
            }
            let feature = &self.features[chosen];
            let longest = feature.longest_turn().min(next_deadline - start);
            let steps = ((longest - feature.shortest_turn()) / STEP).max(0);
            start += feature.shortest_turn() + STEP * rng.random_range(0..=steps);
        }
        program
    }
}

/// The showtimes of a hall for `days` days from `start_day`, in start order.
pub fn hall_showtimes(
    rng: &mut DemoRng,
    lineup: &Lineup,
    cinema: &CinemaRef,
    hall: &HallDoc,
    start_day: NaiveDate,
    days: u32,
) -> Vec<ShowtimeDoc> {
    let theater = HallRef {
        id: hall.id,
        name: hall.name.clone(),
        format: hall.format.clone(),
    };
    let kinds = hall.layout.seat_kinds();
    let mut showtimes = Vec::with_capacity(days as usize * SHOWS_PER_DAY);
    for day in (0..days).filter_map(|d| start_day.checked_add_days(Days::new(u64::from(d)))) {
        for (feature, minute) in lineup.day_program(rng) {
            let feature = &lineup.features[feature];
            let runtime = i64::from(feature.movie.runtime_minutes);
            let base = base_price(rng, &hall.format, minute);
            let ends_at = china_time(day, minute + runtime);
            let (prices, ticket_rules) = price_matrix(channel_prices(rng, base), &kinds, minute);
            showtimes.push(ShowtimeDoc {
                id: ShowtimeId(object_id(rng)),
                schema_version: SHOWTIME_SCHEMA_VERSION,
                cinema: cinema.clone(),
                movie: feature.movie.clone(),
                theater: theater.clone(),
                starts_at: china_time(day, minute),
                ends_at,
                language: (*pick(rng, feature.languages)).to_owned(),
                currency: "CNY".to_owned(),
                prices,
                ticket_rules,
                status: ShowtimeStatus::Scheduled,
                price_revision: 0,
                // The shortest gap the schedule leaves: the hall is free by the next start.
                free_at: ends_at + TimeDelta::minutes(MIN_CLEANING),
            });
        }
    }
    showtimes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::random::{rng, Stream};
    use crate::domain::ids::MovieId;

    fn lineup(runtimes: &[i32]) -> Lineup {
        let mut rng = rng(0, Stream::Movies);
        Lineup::new(
            runtimes
                .iter()
                .map(|&runtime_minutes| Feature {
                    movie: MovieRef {
                        id: MovieId(object_id(&mut rng)),
                        title: "片".into(),
                        runtime_minutes,
                    },
                    weight: 1,
                    languages: &["国语"],
                })
                .collect(),
        )
    }

    #[test]
    fn long_movies_still_leave_room_for_six_shows() {
        let lineup = lineup(&[105, 180, 175, 170, 160]);
        let mut rng = rng(4, Stream::Cinema(0));
        for _ in 0..500 {
            let program = lineup.day_program(&mut rng);
            assert_eq!(program.len(), SHOWS_PER_DAY);
            assert!(program
                .iter()
                .all(|&(_, start)| (FIRST_START..=LAST_START).contains(&start)));
            for pair in program.windows(2) {
                let (feature, start) = pair[0];
                let gap =
                    pair[1].1 - start - i64::from(lineup.features[feature].movie.runtime_minutes);
                assert!((MIN_CLEANING..=MAX_CLEANING).contains(&gap), "{gap}");
            }
        }
    }
}
