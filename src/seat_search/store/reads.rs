//! The reads of a seat search (`findSeats`), one command each whatever the number of cinemas:
//! the area's cinemas (ids and locations only), their showtimes in the window, and then the
//! seat maps of those showtimes (`inventory.rs`).

use bson::{doc, Bson, DateTime, Document};
use serde::Deserialize;

use crate::domain::geo::GeoPoint;
use crate::domain::ids::{CinemaId, MovieId, RegionId};
use crate::error::ApiError;
use crate::seat_search::rules::SearchWindow;
use crate::store::codec::{self, ObjectIdExt};
use crate::store::documents::{GeoJsonPoint, ShowtimeDoc};
use crate::store::filters::nearest_first;
use crate::store::{names, Store};

/// A cinema near the searched point.
#[derive(Debug, Clone, Copy)]
pub struct NearbyCinema {
    pub id: CinemaId,
    pub distance_meters: f64,
}

#[derive(Deserialize)]
struct CinemaPlace {
    #[serde(rename = "_id", with = "codec::id")]
    id: CinemaId,
    location: GeoJsonPoint,
}

/// The showtimes a search looks at.
#[derive(Debug, Clone)]
pub struct SearchedShowtimes<'a> {
    pub cinemas: &'a [CinemaId],
    pub movie: Option<MovieId>,
    pub window: SearchWindow,
}

#[derive(Deserialize)]
struct IdOnly {
    #[serde(rename = "_id")]
    id: Bson,
}

impl Store {
    /// The `limit` cinemas nearest `point` within `radius_meters`, nearest first, with their
    /// distances: one `find` (`filters::nearest_first`) reading ids and locations only.
    #[tracing::instrument(skip(self))]
    pub(in crate::seat_search) async fn cinemas_near_for_search(
        &self,
        point: GeoPoint,
        radius_meters: f64,
        limit: usize,
    ) -> Result<Vec<NearbyCinema>, ApiError> {
        let places: Vec<CinemaPlace> = self
            .find_limited(
                names::CINEMAS,
                nearest_first(point, radius_meters, None),
                None,
                Some(doc! { "_id": 1, "location": 1 }),
                limit,
            )
            .await?;
        Ok(places
            .into_iter()
            .map(|place| NearbyCinema {
                id: place.id,
                distance_meters: place.location.distance_from(&point),
            })
            .collect())
    }

    /// Up to `limit` ids of the cinemas under `region` (index `region_city_name`).
    #[tracing::instrument(skip(self))]
    pub(in crate::seat_search) async fn cinema_ids_in_region(
        &self,
        region: RegionId,
        limit: usize,
    ) -> Result<Vec<CinemaId>, ApiError> {
        let found: Vec<IdOnly> = self
            .find_limited(
                names::CINEMAS,
                doc! { "regionIds": region.oid() },
                None,
                Some(doc! { "_id": 1 }),
                limit,
            )
            .await?;
        Ok(found
            .into_iter()
            .filter_map(|found| match found.id {
                Bson::ObjectId(oid) => Some(codec::id_of::<CinemaId>(oid)),
                _ => None,
            })
            .collect())
    }

    /// The first `limit` showtimes of `search`'s cinemas in its window, in start order, with
    /// their prices: one `find` that both MongoDB and SecantusDB plan on `cinema_starts`, one
    /// range per cinema merged in start order. The channel and the status are checked by the
    /// caller: in the filter, SecantusDB plans `channel_starts` (every showtime the channel
    /// sells in the window, nationwide: 90–120 ms on the national demo against 13–45 ms), and
    /// a `hint` costs it 230 ms more.
    #[tracing::instrument(skip(self))]
    pub(in crate::seat_search) async fn showtimes_for_search(
        &self,
        search: &SearchedShowtimes<'_>,
        limit: usize,
    ) -> Result<Vec<ShowtimeDoc>, ApiError> {
        self.find_limited(
            names::SHOWTIMES,
            search_filter(search),
            Some(doc! { "startsAt": 1, "_id": 1 }),
            None,
            limit,
        )
        .await
    }

    /// The winning plan and execution figures of [`Store::showtimes_for_search`]'s query (for
    /// the test that it reads through an index).
    #[tracing::instrument(skip(self))]
    pub(in crate::seat_search) async fn explain_showtimes_for_search(
        &self,
        search: &SearchedShowtimes<'_>,
        limit: usize,
    ) -> Result<Document, ApiError> {
        Ok(self
            .db()
            .run_command(doc! {
                "explain": {
                    "find": names::SHOWTIMES,
                    "filter": search_filter(search),
                    "sort": { "startsAt": 1, "_id": 1 },
                    "limit": limit as i64,
                },
                "verbosity": "executionStats",
            })
            .await?)
    }
}

/// The plan and execution figures of a search's showtimes read (see
/// `Store::showtimes_for_search`).
pub async fn explain_showtimes(
    store: &Store,
    search: &SearchedShowtimes<'_>,
    limit: usize,
) -> Result<Document, ApiError> {
    store.explain_showtimes_for_search(search, limit).await
}

/// The `limit` cinemas nearest `point` within `radius_meters`, as a search reads them.
pub async fn cinemas_near(
    store: &Store,
    point: GeoPoint,
    radius_meters: f64,
    limit: usize,
) -> Result<Vec<NearbyCinema>, ApiError> {
    store
        .cinemas_near_for_search(point, radius_meters, limit)
        .await
}

fn search_filter(search: &SearchedShowtimes<'_>) -> Document {
    let cinemas: Vec<Bson> = search.cinemas.iter().map(|id| id.oid().into()).collect();
    let mut filter = doc! {
        "cinema.id": { "$in": cinemas },
        "startsAt": {
            "$gte": DateTime::from_chrono(search.window.from),
            "$lt": DateTime::from_chrono(search.window.before),
        },
    };
    if let Some(movie) = search.movie {
        filter.insert("movie.id", movie.oid());
    }
    filter
}
