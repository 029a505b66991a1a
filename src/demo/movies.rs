//! Movies: what lists show (`movies`), what a detail page shows (`movie_details`), their
//! reviews, and the lineup the cinemas schedule from. A few blockbusters get most showtimes.

use chrono::NaiveDate;
use rand::Rng;

use super::origin::{cast, Origin};
use super::people::plots;
use super::random::{distinct_indexes, object_id, weighted_index, DemoRng};
use super::reviews::{newest, reviews, summary};
use super::showtimes::{Feature, Lineup};
use super::titles::{Titles, GENRES};
use crate::domain::ids::MovieId;
use crate::store::documents::{
    ExternalRatingDoc, MovieDetailsDoc, MovieDoc, MovieRef, ReviewDoc, SalesDoc, SCHEMA_VERSION,
};

/// How many movies are showing.
pub const MOVIES: usize = 30;
/// The first movies are the blockbusters, with these scheduling weights; the others get 1 to 6.
const BLOCKBUSTER_WEIGHTS: [u32; 4] = [80, 60, 45, 30];

/// Everything generated for the movies.
#[derive(Debug, Default)]
pub struct Movies {
    pub movies: Vec<MovieDoc>,
    pub details: Vec<MovieDetailsDoc>,
    pub reviews: Vec<ReviewDoc>,
}

/// The movies of the catalogue, and the lineup cinemas schedule them from; reviews are dated
/// before `start_day`.
pub fn movies(rng: &mut DemoRng, start_day: NaiveDate) -> (Movies, Lineup) {
    let mut all = Movies::default();
    let mut titles = Titles::default();
    let features = (0..MOVIES)
        .map(|index| {
            let profile = profile(rng, index, &mut titles);
            movie(rng, &profile, start_day, &mut all)
        })
        .collect();
    (all, Lineup::new(features))
}

/// What is decided about a movie before its documents are written.
struct Profile {
    id: MovieId,
    blockbuster: bool,
    origin: Origin,
    /// Indexes of [`GENRES`], the main genre first.
    genres: Vec<usize>,
    title: String,
    original_title: String,
    runtime_minutes: i32,
    /// The average rating its reviewers give, 1 to 10.
    quality: f64,
    /// How often cinemas schedule it, relative to the others.
    weight: u32,
}

fn profile(rng: &mut DemoRng, index: usize, titles: &mut Titles) -> Profile {
    let id = MovieId(object_id(rng));
    let blockbuster = index < BLOCKBUSTER_WEIGHTS.len();
    let origin = Origin::draw(rng);
    let genres = genres(rng, index);
    let (title, english) = titles.draw(rng, genres[0]);
    let original_title = if origin.imported() {
        english
    } else {
        title.clone()
    };
    let runtime_minutes = runtime(rng, GENRES[genres[0]], blockbuster);
    let (quality, weight) = match BLOCKBUSTER_WEIGHTS.get(index) {
        Some(&weight) => (rng.random_range(6.5..9.0), weight),
        None => (rng.random_range(4.5..9.0), rng.random_range(1..=6)),
    };
    Profile {
        id,
        blockbuster,
        origin,
        genres,
        title,
        original_title,
        runtime_minutes,
        quality,
        weight,
    }
}

/// Genres of the movie `index`: the first movies take each genre twice as their main genre,
/// so every genre has at least two movies; up to two genres that go with it are added.
fn genres(rng: &mut DemoRng, index: usize) -> Vec<usize> {
    let main = if index < 2 * GENRES.len() {
        index % GENRES.len()
    } else {
        rng.random_range(0..GENRES.len())
    };
    let companions = COMPANIONS[main];
    let extra = weighted_index(rng, &[40, 40, 20]);
    let mut genres = vec![main];
    genres.extend(
        distinct_indexes(rng, companions.len(), extra)
            .into_iter()
            .map(|i| companions[i]),
    );
    genres
}

/// The genres (indexes of [`GENRES`]) a movie of each main genre may also have: a war movie
/// can be a drama, a documentary is only a documentary.
const COMPANIONS: [&[usize]; 10] = [
    &[1, 6, 5],    // 科幻: 动作, 悬疑, 剧情
    &[0, 6, 7, 2], // 动作: 科幻, 悬疑, 战争, 喜剧
    &[3, 9, 1, 5], // 喜剧: 爱情, 家庭, 动作, 剧情
    &[5, 2],       // 爱情: 剧情, 喜剧
    &[9, 2, 0],    // 动画: 家庭, 喜剧, 科幻
    &[3, 9, 6, 7], // 剧情: 爱情, 家庭, 悬疑, 战争
    &[5, 1, 0],    // 悬疑: 剧情, 动作, 科幻
    &[1, 5],       // 战争: 动作, 剧情
    &[],           // 纪录片
    &[2, 5, 4],    // 家庭: 喜剧, 剧情, 动画
];

/// Runtime in minutes: family films are short (so every day has room for six shows),
/// blockbusters long.
fn runtime(rng: &mut DemoRng, main_genre: &str, blockbuster: bool) -> i32 {
    match main_genre {
        _ if blockbuster => rng.random_range(120..=170),
        "动画" | "家庭" => rng.random_range(85..=105),
        "纪录片" => rng.random_range(85..=120),
        _ => rng.random_range(95..=160),
    }
}

/// Adds the documents of the movie of `profile` to `all`; returns it as the schedule sees it.
fn movie(rng: &mut DemoRng, profile: &Profile, start_day: NaiveDate, all: &mut Movies) -> Feature {
    let Profile { id, origin, .. } = *profile;
    let directors: Vec<String> = (0..weighted_index(rng, &[0, 9, 1]))
        .map(|_| origin.person(rng))
        .collect();
    let cast = cast(rng, origin);
    let top_cast: Vec<String> = cast
        .iter()
        .take(rng.random_range(3..=5))
        .map(|c| c.name.clone())
        .collect();
    let review_count = if profile.blockbuster {
        rng.random_range(200..=300)
    } else {
        rng.random_range(30..=180)
    };
    let reviews = reviews(rng, id, review_count, profile.quality, &top_cast, start_day);
    let (plot, full_plot) = plots(rng, profile.genres[0], &cast[0].character, &directors[0]);
    all.details.push(MovieDetailsDoc {
        id,
        schema_version: SCHEMA_VERSION,
        plot,
        full_plot,
        languages: origin.spoken().iter().map(|&l| l.to_owned()).collect(),
        countries: origin.countries().iter().map(|&c| c.to_owned()).collect(),
        cast,
        external_ratings: external_ratings(rng, profile),
    });
    all.movies.push(MovieDoc {
        id,
        schema_version: SCHEMA_VERSION,
        title: profile.title.clone(),
        original_title: profile.original_title.clone(),
        year: rng.random_range(2024..=2026),
        runtime_minutes: profile.runtime_minutes,
        genres: profile
            .genres
            .iter()
            .map(|&g| GENRES[g].to_owned())
            .collect(),
        directors,
        top_cast,
        rating: summary(&reviews),
        poster_url: format!("https://img.example.cn/posters/{}.jpg", id),
        recent_reviews: newest(&reviews),
        sales: SalesDoc::default(),
    });
    all.reviews.extend(reviews);
    Feature {
        movie: MovieRef {
            id,
            title: profile.title.clone(),
            runtime_minutes: profile.runtime_minutes,
        },
        weight: profile.weight,
        languages: origin.screened_in(),
    }
}

/// Ratings on 豆瓣, 猫眼 (known to be generous) and IMDb, around the reviewers' quality;
/// blockbusters and imported films have more votes on IMDb.
fn external_ratings(rng: &mut DemoRng, profile: &Profile) -> Vec<ExternalRatingDoc> {
    let popularity = if profile.blockbuster {
        rng.random_range(200_000..800_000)
    } else {
        rng.random_range(1_000..150_000)
    };
    let imdb_share = if profile.origin.imported() { 1.5 } else { 0.05 };
    let sites = [
        ("豆瓣", rng.random_range(-0.8..0.8), 1.0),
        ("猫眼", 1.0 + rng.random_range(-0.5..0.5), 2.0),
        ("IMDb", rng.random_range(-0.7..0.7), imdb_share),
    ];
    sites
        .into_iter()
        .map(|(source, shift, vote_share)| ExternalRatingDoc {
            source: source.to_owned(),
            score: ((profile.quality + shift).clamp(2.0, 9.8) * 10.0).round() / 10.0,
            max_score: 10.0,
            votes: (popularity as f64 * vote_share).round() as i64,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::demo::random::{rng, Stream};

    fn generated() -> Movies {
        movies(
            &mut rng(2015, Stream::Movies),
            NaiveDate::from_ymd_opt(2026, 3, 1).unwrap(),
        )
        .0
    }

    #[test]
    fn every_genre_has_at_least_two_movies() {
        let movies = generated();
        for genre in GENRES {
            let count = movies
                .movies
                .iter()
                .filter(|m| m.genres.iter().any(|g| g == genre))
                .count();
            assert!(count >= 2, "{genre}: {count}");
        }
    }

    #[test]
    fn movies_are_plausible() {
        let movies = generated();
        let titles: HashSet<_> = movies.movies.iter().map(|m| m.title.as_str()).collect();
        assert_eq!(titles.len(), MOVIES);
        for (movie, details) in movies.movies.iter().zip(&movies.details) {
            assert_eq!(movie.id, details.id);
            assert!((85..=180).contains(&movie.runtime_minutes));
            assert!((2024..=2026).contains(&movie.year));
            assert!((1..=3).contains(&movie.genres.len()));
            assert!((3..=5).contains(&movie.top_cast.len()));
            assert!((8..=20).contains(&details.cast.len()));
            assert!(movie.poster_url.contains(&movie.id.to_string()));
            assert_eq!(details.external_ratings.len(), 3);
        }
    }
}
