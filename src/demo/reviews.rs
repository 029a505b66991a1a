//! Reviews of a movie, and what the movie keeps of them: the rating summary and the newest ten
//! (computed and subset patterns), derived from the generated reviews so they always agree.

use std::cmp::Reverse;

use chrono::{DateTime, Days, NaiveDate};
use rand::Rng;

use super::people::{nickname, review_text};
use super::random::{china_time, object_id, DemoRng};
use crate::domain::ids::{MovieId, ReviewId};
use crate::store::documents::{RatingSummary, ReviewDoc};

/// Reviews are written over this many days before the plan's first day.
pub const REVIEW_DAYS: u64 = 90;
/// How many reviews a movie embeds.
pub const RECENT_REVIEWS: usize = 10;

/// `count` reviews of a movie whose reviewers rate it `quality` (1 to 10) on average.
pub fn reviews(
    rng: &mut DemoRng,
    movie: MovieId,
    count: usize,
    quality: f64,
    actors: &[String],
    start_day: NaiveDate,
) -> Vec<ReviewDoc> {
    let until = china_time(start_day, 0).timestamp_millis();
    let since = start_day
        .checked_sub_days(Days::new(REVIEW_DAYS))
        .map_or(until, |day| china_time(day, 0).timestamp_millis());
    (0..count)
        .map(|_| {
            // Two spreads summed: most ratings near the movie's quality, a few far off.
            let spread = rng.random_range(-2.0..2.0) + rng.random_range(-1.5..1.5);
            let rating = (quality + spread).round().clamp(1.0, 10.0) as i32;
            let seconds = rng.random_range(since / 1_000..until / 1_000);
            ReviewDoc {
                id: ReviewId(object_id(rng)),
                movie_id: movie,
                author: nickname(rng),
                rating,
                text: review_text(rng, rating, actors),
                created_at: DateTime::from_timestamp(seconds, 0).unwrap_or_default(),
            }
        })
        .collect()
}

/// The average and number of the reviews.
pub fn summary(reviews: &[ReviewDoc]) -> RatingSummary {
    let total: i64 = reviews.iter().map(|r| i64::from(r.rating)).sum();
    let count = reviews.len() as i64;
    RatingSummary {
        average: if count == 0 {
            0.0
        } else {
            total as f64 / count as f64
        },
        count,
    }
}

/// The [`RECENT_REVIEWS`] newest reviews, newest first, in the order of the `reviews` index
/// (`createdAt` then `_id`, both descending) so the embedded list matches a query.
pub fn newest(reviews: &[ReviewDoc]) -> Vec<ReviewDoc> {
    let mut sorted: Vec<&ReviewDoc> = reviews.iter().collect();
    sorted.sort_by_key(|r| Reverse((r.created_at, r.id)));
    sorted.into_iter().take(RECENT_REVIEWS).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::random::{rng, Stream};

    #[test]
    fn reviews_fall_in_the_ninety_days_before_the_first_day() {
        let mut rng = rng(8, Stream::Movies);
        let day = NaiveDate::from_ymd_opt(2026, 5, 1).unwrap();
        let movie = MovieId(object_id(&mut rng));
        let all = reviews(&mut rng, movie, 500, 7.5, &["演员".into()], day);
        let (since, until) = (china_time(day - Days::new(90), 0), china_time(day, 0));
        assert!(all
            .iter()
            .all(|r| r.created_at >= since && r.created_at < until));
        assert!(all.iter().all(|r| (1..=10).contains(&r.rating)));
        let average = summary(&all).average;
        assert!((6.5..8.5).contains(&average), "{average}");
        let recent = newest(&all);
        assert_eq!(recent.len(), RECENT_REVIEWS);
        assert!(recent
            .windows(2)
            .all(|w| w[0].created_at >= w[1].created_at));
    }
}
