//! The reads of a seat search (`findSeats`), one command each whatever the number of cinemas:
//! the area's cinemas (ids and distances only), their showtimes in the window, and then the
//! seat maps of those showtimes (`inventory.rs`).

use bson::{doc, Bson, DateTime, Document};
use futures::TryStreamExt;
use mongodb::options::Hint;
use serde::Deserialize;

use super::codec::{self, ObjectIdExt};
use super::command_metrics::Call;
use super::documents::ShowtimeDoc;
use super::{names, Store};
use crate::domain::geo::GeoPoint;
use crate::domain::ids::{CinemaId, MovieId, RegionId};
use crate::domain::seat_search::SearchWindow;
use crate::error::ApiError;

/// The index a search's showtimes are read through. Named: left to choose, a planner may take
/// `channel_starts` (every showtime the channel sells in the window, nationwide) over the
/// cinemas' own ranges; SecantusDB does.
const SEARCH_INDEX: &str = "cinema_starts";

/// A cinema near the searched point.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct NearbyCinema {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: CinemaId,
    #[serde(rename = "distanceMeters")]
    pub distance_meters: f64,
}

/// The showtimes a search looks at.
#[derive(Debug, Clone)]
pub struct SearchedShowtimes<'a> {
    pub cinemas: &'a [CinemaId],
    pub movie: Option<MovieId>,
    /// Only those sold on this channel.
    pub channel: &'a str,
    pub window: SearchWindow,
}

#[derive(Deserialize)]
struct IdOnly {
    #[serde(rename = "_id")]
    id: Bson,
}

impl Store {
    /// The `limit` cinemas nearest `point` within `radius_meters`, nearest first, with their
    /// distances: one `$geoNear` on the 2dsphere index, returning ids and distances only.
    #[tracing::instrument(skip(self))]
    pub async fn cinemas_near_for_search(
        &self,
        point: GeoPoint,
        radius_meters: f64,
        limit: usize,
    ) -> Result<Vec<NearbyCinema>, ApiError> {
        let pipeline = [
            doc! { "$geoNear": {
                "near": { "type": "Point", "coordinates": [point.longitude, point.latitude] },
                "distanceField": "distanceMeters",
                "maxDistance": radius_meters,
                "spherical": true,
                "key": "location",
            } },
            doc! { "$limit": limit as i64 },
            doc! { "$project": { "_id": 1, "distanceMeters": 1 } },
        ];
        let cinemas = self.collection::<Document>(names::CINEMAS);
        self.bounded(Call::new(names::CINEMAS, "aggregate"), async {
            cinemas
                .aggregate(pipeline)
                .batch_size(limit as u32)
                .with_type::<NearbyCinema>()
                .await?
                .try_collect()
                .await
        })
        .await
    }

    /// Up to `limit` ids of the cinemas under `region` (index `region_city_name`).
    #[tracing::instrument(skip(self))]
    pub async fn cinema_ids_in_region(
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

    /// The first `limit` showtimes of `search`'s cinemas in its window, in start order, sold on
    /// its channel and not cancelled, with their prices: one `find` hinted to `cinema_starts`
    /// (`cinema.id` in the list, `startsAt` in the window; the movie, channel and status are
    /// checked on the documents that range reads).
    #[tracing::instrument(skip(self))]
    pub async fn showtimes_for_search(
        &self,
        search: &SearchedShowtimes<'_>,
        limit: usize,
    ) -> Result<Vec<ShowtimeDoc>, ApiError> {
        let showtimes = self.collection::<ShowtimeDoc>(names::SHOWTIMES);
        let find = showtimes
            .find(search_filter(search))
            .sort(doc! { "startsAt": 1, "_id": 1 })
            .hint(Hint::Name(SEARCH_INDEX.to_owned()))
            .limit(limit as i64)
            .batch_size(limit as u32);
        self.bounded(Call::new(names::SHOWTIMES, "find"), async {
            find.await?.try_collect().await
        })
        .await
    }

    /// The winning plan and execution figures of [`Store::showtimes_for_search`]'s query (for
    /// the test that it reads through an index).
    #[tracing::instrument(skip(self))]
    pub async fn explain_showtimes_for_search(
        &self,
        search: &SearchedShowtimes<'_>,
        limit: usize,
    ) -> Result<Document, ApiError> {
        Ok(self
            .db
            .run_command(doc! {
                "explain": {
                    "find": names::SHOWTIMES,
                    "filter": search_filter(search),
                    "sort": { "startsAt": 1, "_id": 1 },
                    "limit": limit as i64,
                    "hint": SEARCH_INDEX,
                },
                "verbosity": "executionStats",
            })
            .await?)
    }
}

fn search_filter(search: &SearchedShowtimes<'_>) -> Document {
    let cinemas: Vec<Bson> = search.cinemas.iter().map(|id| id.oid().into()).collect();
    let mut filter = doc! {
        "cinema.id": { "$in": cinemas },
        "startsAt": {
            "$gte": DateTime::from_chrono(search.window.from),
            "$lt": DateTime::from_chrono(search.window.before),
        },
        "prices.channel": search.channel,
        "status": { "$nin": ["CANCELLING", "CANCELLED"] },
    };
    if let Some(movie) = search.movie {
        filter.insert("movie.id", movie.oid());
    }
    filter
}
