//! Small, exactly known catalogues for tests, written through the store.

use boxoffice::catalogue::CatalogueBatch;
use boxoffice::domain::api_key::ApiKey;
use boxoffice::domain::ids::*;
use boxoffice::domain::layout::{row_label, HallLayout, LayoutRow};
use boxoffice::domain::seat::SeatKind;
use boxoffice::store::documents::*;
use boxoffice::store::new_id;
use bson::oid::ObjectId;
use chrono::{Duration, Utc};

use crate::helpers::TestApp;

/// A catalogue being built; `insert` writes it. Its showtimes and their seat inventories
/// (the second field) are written as given, unchecked (`insert_unscheduled`): tests need
/// exact catalogues, overlapping or past showtimes included.
#[derive(Default)]
pub struct Catalogue(pub CatalogueBatch, pub Vec<SeatInventoryDoc>);

impl Catalogue {
    pub async fn insert(mut self, app: &TestApp) -> CatalogueBatch {
        let showtimes = std::mem::take(&mut self.0.showtimes);
        app.store
            .insert_catalogue(&self.0)
            .await
            .expect("insert fixtures");
        app.store
            .insert_unscheduled(&showtimes, &self.1)
            .await
            .expect("insert fixture showtimes");
        self.0.showtimes = showtimes;
        self.0
    }

    /// A channel; returns its API key.
    pub fn channel(&mut self, code: &str, name: &str) -> ApiKey {
        self.channel_with_limit(code, name, None)
    }

    /// A channel whose record sets its own rate limit.
    pub fn channel_with_limit(
        &mut self,
        code: &str,
        name: &str,
        rate_limit: Option<RateLimitDoc>,
    ) -> ApiKey {
        let key = ApiKey::generate(&mut rand::rng());
        self.0.channels.push(ChannelDoc {
            code: code.into(),
            schema_version: SCHEMA_VERSION,
            name: name.into(),
            api_key_hash: key.hash(),
            rate_limit,
        });
        key
    }

    pub fn cinema(&mut self, name: &str, city: &str, latitude: f64, longitude: f64) -> CinemaDoc {
        let cinema = CinemaDoc {
            id: new_id(),
            schema_version: SCHEMA_VERSION,
            name: name.into(),
            city: city.into(),
            district: "测试区".into(),
            address: format!("{city}测试路1号"),
            location: GeoJsonPoint::new(latitude, longitude),
            amenities: vec!["停车场".into()],
            region_ids: vec![],
            refund_policy: None,
        };
        self.0.cinemas.push(cinema.clone());
        cinema
    }

    /// A region under `parent` (a province when there is none).
    pub fn region(
        &mut self,
        name: &str,
        level: boxoffice::catalogue::rules::region::RegionLevel,
        parent: Option<&RegionDoc>,
    ) -> RegionDoc {
        let region = RegionDoc::new(new_id(), name, level, parent);
        self.0.regions.push(region.clone());
        region
    }

    /// A cinema in `district` of `city` (both regions), its path written as the demo does.
    pub fn cinema_in(&mut self, name: &str, city: &RegionDoc, district: &RegionDoc) -> CinemaDoc {
        let cinema = CinemaDoc {
            city: city.name.clone(),
            district: district.name.clone(),
            region_ids: district.path(),
            ..self.cinema(name, &city.name, 22.5, 114.0)
        };
        *self.0.cinemas.last_mut().expect("just pushed") = cinema.clone();
        cinema
    }

    /// A hall whose rows are drawn as text: S standard, V vip, W wheelchair, C couple, _ gap.
    pub fn hall(&mut self, cinema: &CinemaDoc, name: &str, rows: &[&str]) -> HallDoc {
        let layout = HallLayout {
            rows: rows
                .iter()
                .enumerate()
                .map(|(i, row)| LayoutRow {
                    label: row_label(i),
                    positions: row
                        .chars()
                        .map(|c| match c {
                            'S' => Some(SeatKind::Standard),
                            'V' => Some(SeatKind::Vip),
                            'W' => Some(SeatKind::Wheelchair),
                            'C' => Some(SeatKind::Couple),
                            _ => None,
                        })
                        .collect(),
                })
                .collect(),
        };
        let hall = HallDoc {
            id: new_id(),
            schema_version: SCHEMA_VERSION,
            cinema_id: cinema.id,
            name: name.into(),
            format: "IMAX".into(),
            capacity: layout.capacity() as i32,
            layout,
            schedule_version: 0,
        };
        self.0.halls.push(hall.clone());
        hall
    }

    pub fn movie(&mut self, title: &str, genres: &[&str]) -> MovieDoc {
        let id: MovieId = new_id();
        let movie = MovieDoc {
            id,
            schema_version: SCHEMA_VERSION,
            title: title.into(),
            original_title: format!("{title} (original)"),
            year: 2026,
            runtime_minutes: 120,
            genres: genres.iter().map(|g| g.to_string()).collect(),
            directors: vec!["导演甲".into()],
            top_cast: vec!["演员甲".into(), "演员乙".into()],
            rating: RatingSummary {
                average: 8.0,
                count: 0,
            },
            poster_url: format!("https://img.example.cn/posters/{id}.jpg"),
            recent_reviews: vec![],
            sales: SalesDoc::default(),
        };
        self.0.movies.push(movie.clone());
        self.0.movie_details.push(MovieDetailsDoc {
            id,
            schema_version: SCHEMA_VERSION,
            plot: format!("{title}的故事。"),
            full_plot: format!("{title}的完整故事。"),
            languages: vec!["汉语普通话".into()],
            countries: vec!["中国大陆".into()],
            cast: vec![CastMemberDoc {
                name: "演员甲".into(),
                character: "主角".into(),
            }],
            external_ratings: vec![ExternalRatingDoc {
                source: "豆瓣".into(),
                score: 8.1,
                max_score: 10.0,
                votes: 1000,
            }],
        });
        movie
    }

    /// A review written `minutes_ago` before now.
    pub fn review(&mut self, movie: &MovieDoc, minutes_ago: i64, rating: i32) -> ReviewDoc {
        let review = ReviewDoc {
            id: new_id(),
            movie_id: movie.id,
            author: format!("观众{minutes_ago}"),
            rating,
            text: "好看".into(),
            created_at: Utc::now() - Duration::minutes(minutes_ago),
        };
        self.0.reviews.push(review.clone());
        review
    }

    /// A showtime starting `hours_from_now` from now, with its seat inventory.
    pub fn showtime(
        &mut self,
        cinema: &CinemaDoc,
        hall: &HallDoc,
        movie: &MovieDoc,
        hours_from_now: i64,
        prices: &[(&str, i64)],
    ) -> ShowtimeDoc {
        let starts = Utc::now() + Duration::hours(hours_from_now);
        let showtime = ShowtimeDoc {
            id: new_id(),
            schema_version: SHOWTIME_SCHEMA_VERSION,
            cinema: CinemaRef {
                id: cinema.id,
                name: cinema.name.clone(),
                city: cinema.city.clone(),
            },
            movie: MovieRef {
                id: movie.id,
                title: movie.title.clone(),
                runtime_minutes: movie.runtime_minutes,
            },
            theater: HallRef {
                id: hall.id,
                name: hall.name.clone(),
                format: hall.format.clone(),
            },
            starts_at: starts,
            ends_at: starts + Duration::minutes(120),
            language: "国语".into(),
            currency: "CNY".into(),
            prices: prices
                .iter()
                .map(|(channel, amount)| ChannelPriceDoc::flat(*channel, *amount))
                .collect(),
            ticket_rules: Vec::new(),
            status: ShowtimeStatus::Scheduled,
            price_revision: 0,
            free_at: starts + Duration::minutes(135),
        };
        self.1.push(SeatInventoryDoc::for_showtime(&showtime, hall));
        self.0.showtimes.push(showtime.clone());
        showtime
    }
}

/// An id as its 12 bytes: a typed id of a document, or an ObjectId read with the driver.
pub trait IdBytes {
    fn id_bytes(&self) -> [u8; 12];
}

impl IdBytes for ObjectId {
    fn id_bytes(&self) -> [u8; 12] {
        self.bytes()
    }
}

impl IdBytes for [u8; 12] {
    fn id_bytes(&self) -> [u8; 12] {
        *self
    }
}

macro_rules! id_bytes {
    ($($id:ident),*) => {$(
        impl IdBytes for $id {
            fn id_bytes(&self) -> [u8; 12] {
                self.0
            }
        }
    )*};
}

id_bytes!(CinemaId, HallId, MovieId, OrderId, RegionId, ReviewId, ShowtimeId);

/// The global id the API gives order `order` of showtime `showtime`.
pub fn order_global_id(showtime: ShowtimeId, order: OrderId) -> String {
    boxoffice::domain::global_id::GlobalId::Order(Some(showtime), order).encode()
}

/// The global id the API gives an object of `kind` with id `id`.
pub fn global_id(kind: &str, id: impl IdBytes) -> String {
    use boxoffice::domain::global_id::GlobalId;
    let bytes = id.id_bytes();
    match kind {
        "Cinema" => GlobalId::Cinema(CinemaId(bytes)),
        "Hall" => GlobalId::Hall(HallId(bytes)),
        "Movie" => GlobalId::Movie(MovieId(bytes)),
        "Review" => GlobalId::Review(ReviewId(bytes)),
        "Showtime" => GlobalId::Showtime(ShowtimeId(bytes)),
        // An order's id names its showtime: `order_global_id`.
        "Region" => GlobalId::Region(RegionId(bytes)),
        "Product" => GlobalId::Product(boxoffice::domain::ids::ProductId(bytes)),
        other => panic!("no such kind {other}"),
    }
    .encode()
}
