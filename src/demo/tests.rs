//! Tests of whole generated catalogues (no database): determinism, and the rules the documents
//! of the small plan follow across collections.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::places::{CITIES, MAX_KM_FROM_CENTRE};
use super::pricing::{BOXOFFICE, CHANNELS, TAOPIAOPIAO, WECHAT};
use super::random::china_minutes;
use super::showtimes::{FIRST_START, LAST_START, MIN_CLEANING, SHOWS_PER_DAY};
use super::titles::GENRES;
use super::{DemoPlan, Generator, Loaded};
use crate::catalogue::CatalogueBatch;
use crate::domain::seat::SeatKind;
use crate::store::documents::SCHEMA_VERSION;
use chrono::NaiveDate;

fn plan(seed: u64) -> DemoPlan {
    DemoPlan {
        start_day: NaiveDate::from_ymd_opt(2026, 3, 1).unwrap(),
        seed,
        ..DemoPlan::small()
    }
}

/// The small plan's first batch and all its cinemas, generated once for all tests.
fn small() -> &'static (CatalogueBatch, CatalogueBatch) {
    static SMALL: OnceLock<(CatalogueBatch, CatalogueBatch)> = OnceLock::new();
    SMALL.get_or_init(|| {
        let (generator, first) = Generator::new(&plan(2015));
        (first, generator.cinemas(0..40))
    })
}

#[test]
fn the_small_plan_covers_the_six_big_cities_twice() {
    let cinemas = &small().1.cinemas;
    assert_eq!(cinemas.len(), 40);
    for city in ["北京", "上海", "广州", "深圳", "杭州", "成都"] {
        assert!(
            cinemas.iter().filter(|c| c.city == city).count() >= 2,
            "{city}"
        );
    }
    for cinema in cinemas {
        let city = CITIES
            .iter()
            .find(|c| c.name == cinema.city)
            .expect("a known city");
        assert!(city.districts.contains(&cinema.district.as_str()));
        assert!(
            cinema.name.contains(&format!("({}", cinema.district)),
            "{}",
            cinema.name
        );
        assert!(cinema.address.starts_with(&cinema.district));
        let dy = (cinema.location.latitude() - city.latitude) * 111.32;
        let dx = (cinema.location.longitude() - city.longitude)
            * 111.32
            * city.latitude.to_radians().cos();
        assert!((dx * dx + dy * dy).sqrt() <= MAX_KM_FROM_CENTRE + 0.01);
    }
}

#[test]
fn every_hall_validates_and_the_seat_kinds_are_where_they_belong() {
    let halls = &small().1.halls;
    let mut kinds = HashSet::new();
    for hall in halls {
        hall.layout.validate().expect("valid layout");
        assert!((60..=400).contains(&hall.capacity));
        assert_eq!(hall.capacity as usize, hall.layout.capacity());
        assert!(
            hall.layout.rows.iter().any(|r| r.positions.contains(&None)),
            "an aisle"
        );
        let last = hall.layout.rows.len() - 1;
        for (index, row) in hall.layout.rows.iter().enumerate() {
            for (column, kind) in row
                .positions
                .iter()
                .enumerate()
                .filter_map(|(c, k)| Some((c, (*k)?)))
            {
                kinds.insert(kind);
                match kind {
                    SeatKind::Wheelchair => {
                        assert!(index <= 1 && column + 2 >= row.positions.len())
                    }
                    SeatKind::Vip => assert!(index > 1 && index < last),
                    SeatKind::Couple => assert_eq!(index, last),
                    SeatKind::Standard => {}
                }
            }
        }
        let back = &hall.layout.rows[last].positions;
        for run in back.split(|p| *p != Some(SeatKind::Couple)) {
            assert_eq!(
                run.len() % 2,
                0,
                "couple seats come in pairs in {}",
                hall.name
            );
        }
    }
    assert_eq!(kinds.len(), 4, "every kind of seat somewhere: {kinds:?}");
    let formats: HashSet<_> = halls.iter().map(|h| h.format.as_str()).collect();
    assert_eq!(formats, HashSet::from(["2D", "3D", "IMAX", "DOLBY", "4DX"]));
}

#[test]
fn showtimes_of_a_hall_never_overlap_and_start_from_10_00_to_22_30() {
    let cinemas = &small().1;
    let mut by_hall: HashMap<_, Vec<_>> = HashMap::new();
    for showtime in &cinemas.showtimes {
        assert_eq!(
            showtime.ends_at.timestamp_millis() - showtime.starts_at.timestamp_millis(),
            i64::from(showtime.movie.runtime_minutes) * 60_000
        );
        assert!((FIRST_START..=LAST_START).contains(&china_minutes(showtime.starts_at)));
        by_hall
            .entry(showtime.theater.id)
            .or_default()
            .push(showtime);
    }
    assert_eq!(by_hall.len(), cinemas.halls.len());
    for showtimes in by_hall.values_mut() {
        assert_eq!(showtimes.len(), SHOWS_PER_DAY * 3);
        showtimes.sort_by_key(|s| s.starts_at);
        for pair in showtimes.windows(2) {
            let cleaning =
                pair[1].starts_at.timestamp_millis() - pair[0].ends_at.timestamp_millis();
            assert!(cleaning >= MIN_CLEANING * 60_000);
        }
    }
    let halls: HashMap<_, _> = cinemas.halls.iter().map(|h| (h.id, h)).collect();
    for showtime in &cinemas.showtimes {
        assert!(halls.contains_key(&showtime.theater.id));
        assert_eq!(showtime.currency, "CNY");
        // The hall is free 15 minutes after the end: the next show starts no earlier.
        assert_eq!(
            showtime.free_at - showtime.ends_at,
            chrono::TimeDelta::minutes(MIN_CLEANING)
        );
    }
}

#[test]
fn blockbusters_get_most_showtimes() {
    let mut per_movie: HashMap<_, usize> = HashMap::new();
    for showtime in &small().1.showtimes {
        *per_movie.entry(showtime.movie.id).or_default() += 1;
    }
    let mut counts: Vec<usize> = per_movie.into_values().collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let total: usize = counts.iter().sum();
    assert!(
        counts.iter().take(4).sum::<usize>() * 2 > total,
        "{counts:?}"
    );
}

#[test]
fn channel_prices_are_positive_and_the_box_office_is_dearest() {
    let showtimes = &small().1.showtimes;
    for showtime in showtimes {
        // Each channel's ADULT price of every kind (the rest of the matrix derives from it).
        let prices: Vec<_> = showtime
            .prices
            .iter()
            .filter(|p| p.seat_kind.is_none() && p.ticket_type.as_str() == "ADULT")
            .collect();
        assert_eq!(
            prices[0], &showtime.prices[0],
            "the box office's ADULT price first"
        );
        assert_eq!(prices[0].channel, BOXOFFICE);
        assert!((3_500..=12_000).contains(&prices[0].amount));
        assert!(prices
            .iter()
            .all(|p| p.amount > 0 && p.amount <= prices[0].amount));
    }
    let without = |code: &str| {
        showtimes
            .iter()
            .filter(|s| s.prices.iter().all(|p| p.channel != code))
            .count()
    };
    let share = |code| without(code) as f64 / showtimes.len() as f64;
    assert!((0.12..0.18).contains(&share(WECHAT)), "{}", share(WECHAT));
    assert!((0.07..0.13).contains(&share(TAOPIAOPIAO)));
    let channels: Vec<_> = small()
        .0
        .channels
        .iter()
        .map(|c| (c.code.as_str(), c.name.as_str()))
        .collect();
    assert_eq!(channels, CHANNELS);
}

#[test]
fn movies_keep_their_reviews_rating_and_the_ten_newest() {
    let first = &small().0;
    assert_eq!(first.movies.len(), 30);
    for movie in &first.movies {
        let mut reviews: Vec<_> = first
            .reviews
            .iter()
            .filter(|r| r.movie_id == movie.id)
            .collect();
        assert!((30..=300).contains(&reviews.len()));
        let total: i64 = reviews.iter().map(|r| i64::from(r.rating)).sum();
        assert_eq!(movie.rating.count, reviews.len() as i64);
        assert_eq!(movie.rating.average, total as f64 / reviews.len() as f64);
        reviews.sort_by_key(|r| std::cmp::Reverse((r.created_at, r.id)));
        let newest: Vec<_> = reviews.iter().take(10).map(|r| r.id).collect();
        assert_eq!(
            movie
                .recent_reviews
                .iter()
                .map(|r| r.id)
                .collect::<Vec<_>>(),
            newest
        );
    }
    for genre in GENRES {
        assert!(
            first
                .movies
                .iter()
                .filter(|m| m.genres.iter().any(|g| g == genre))
                .count()
                >= 2,
            "{genre}"
        );
    }
}

#[test]
fn every_document_has_the_schema_version_and_loaded_counts_them() {
    let (first, cinemas) = small();
    let versions = first
        .channels
        .iter()
        .map(|d| d.schema_version)
        .chain(first.movies.iter().map(|d| d.schema_version))
        .chain(first.movie_details.iter().map(|d| d.schema_version))
        .chain(cinemas.cinemas.iter().map(|d| d.schema_version))
        .chain(cinemas.halls.iter().map(|d| d.schema_version));
    assert!(versions.into_iter().all(|v| v == SCHEMA_VERSION));
    assert!(cinemas
        .showtimes
        .iter()
        .all(|s| s.schema_version == crate::store::documents::SHOWTIME_SCHEMA_VERSION));
    let loaded = Loaded::of(cinemas);
    assert_eq!(loaded.documents, cinemas.document_count());
    assert_eq!(loaded.showtimes, loaded.halls * SHOWS_PER_DAY * 3);
    let seats: usize = cinemas
        .halls
        .iter()
        .map(|h| h.capacity as usize)
        .sum::<usize>()
        * SHOWS_PER_DAY
        * 3;
    assert_eq!(loaded.seats, seats);
}
