//! `cinemas`: by id, by city and name, and nearest a point.

use bson::{doc, Document};
use serde::{Deserialize, Serialize};

use crate::domain::cursor;
use crate::domain::geo::GeoPoint;
use crate::domain::ids::{CinemaId, RegionId};
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::documents::CinemaDoc;
use crate::store::{filters, names, Store};

/// Which cinemas to list.
#[derive(Debug, Clone, Default)]
pub struct CinemaFilter {
    pub city: Option<String>,
    /// Only cinemas under this region (a province, city or district): one equality on the
    /// multikey `regionIds`.
    pub region: Option<RegionId>,
    pub name_contains: Option<String>,
    /// Only these cinemas (an operator's scope).
    pub ids: Option<Vec<CinemaId>>,
}

/// Sort key of the city-and-name list.
#[derive(Serialize, Deserialize)]
struct CityNameKey(String, String, CinemaId);

/// Sort key of the nearest-first list: the distance in whole millimetres (an integer, so a
/// cursor compares exactly: a float's decimal text need not parse back to the same bits), then
/// the id.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct DistanceKey(i64, CinemaId);

impl CinemaWithDistance {
    fn key(&self) -> DistanceKey {
        DistanceKey(
            (self.distance_meters * 1000.0).round() as i64,
            self.cinema.id,
        )
    }
}

/// A cinema and its distance from the searched point.
#[derive(Debug, Clone)]
pub struct CinemaWithDistance {
    pub cinema: CinemaDoc,
    pub distance_meters: f64,
}

impl Store {
    #[tracing::instrument(skip(self))]
    pub async fn cinemas_by_ids(&self, ids: &[CinemaId]) -> Result<Vec<CinemaDoc>, ApiError> {
        self.find_by_ids(names::CINEMAS, ids).await
    }

    /// Cinemas in city, then name order (index `city_name`; `region_city_name` under a region,
    /// whatever its level).
    #[tracing::instrument(skip(self))]
    pub async fn list_cinemas(
        &self,
        filter: &CinemaFilter,
        page: &PageRequest,
    ) -> Result<Page<CinemaDoc>, ApiError> {
        let mut query = Document::new();
        if let Some(city) = &filter.city {
            query.insert("city", city);
        }
        if let Some(region) = filter.region {
            query.insert("regionIds", region.oid());
        }
        if let Some(text) = &filter.name_contains {
            query.insert("name", filters::contains_text(text));
        }
        if let Some(ids) = &filter.ids {
            let ids: Vec<_> = ids.iter().map(|id| id.oid()).collect();
            query.insert("_id", doc! { "$in": ids });
        }
        self.find_page(
            names::CINEMAS,
            "cinemas",
            query,
            doc! { "city": 1, "name": 1, "_id": 1 },
            None,
            page,
            |CityNameKey(city, name, id)| {
                filters::after_ascending(
                    &["city", "name", "_id"],
                    &[city.into(), name.into(), id.oid().into()],
                )
            },
            |cinema: &CinemaDoc| CityNameKey(cinema.city.clone(), cinema.name.clone(), cinema.id),
        )
        .await
    }

    /// Cinemas within `radius_meters` of `point`, nearest first, with their distances. Ties
    /// in distance are broken by id, so pages are stable.
    ///
    /// One `find` ([`nearest_first`]); the distances are computed here, on the sphere MongoDB
    /// uses. They may
    /// differ from the database's in the last bits, so the query starts [`ROUNDING`] short
    /// of the cursor and the cursor itself is compared here. When the page's last cinema is
    /// within [`ROUNDING`] of the farthest one read (ties at the edge of what was read), it
    /// reads again, four times as many: rarely more than one `find`.
    #[tracing::instrument(skip(self))]
    pub async fn cinemas_near(
        &self,
        point: GeoPoint,
        radius_meters: f64,
        page: &PageRequest,
    ) -> Result<Page<CinemaWithDistance>, ApiError> {
        let after = page
            .after
            .as_deref()
            .map(|after| cursor::decode::<DistanceKey>("cinemasNear", after))
            .transpose()?;
        let wanted = page.first + 1;
        let mut limit = wanted + TIE_ROOM;
        loop {
            // Skip what earlier pages returned without reading it: nothing nearer than the last
            // (less the rounding).
            let from = after.map(|DistanceKey(millimetres, _)| {
                (millimetres as f64 / 1000.0 - ROUNDING).max(0.0)
            });
            let found: Vec<CinemaDoc> = self
                .find_limited(
                    names::CINEMAS,
                    filters::nearest_first(point, radius_meters, from),
                    None,
                    None,
                    limit,
                )
                .await?;
            let read_all = found.len() < limit;
            let mut nearest: Vec<CinemaWithDistance> = found
                .into_iter()
                .map(|cinema| CinemaWithDistance {
                    distance_meters: cinema.location.distance_from(&point),
                    cinema,
                })
                .collect();
            let farthest = (nearest.iter())
                .map(|c| c.distance_meters)
                .fold(0.0, f64::max);
            if let Some(after) = after {
                nearest.retain(|c| c.key() > after);
            }
            nearest.sort_by_key(CinemaWithDistance::key);
            // What was not read is at least as far as the farthest read, less the rounding.
            let settled = nearest
                .get(wanted - 1)
                .is_some_and(|last| last.distance_meters < farthest - ROUNDING);
            if read_all || settled {
                nearest.truncate(wanted);
                return Ok(Page::from_fetched(nearest, page, |c| {
                    cursor::Cursor::new("cinemasNear", c.key())
                }));
            }
            limit *= 4;
        }
    }
}

/// How far this process's distances may be from the database's (both on a sphere of the
/// same radius; they differ by rounding, far under a millimetre).
const ROUNDING: f64 = 1.0;

/// Cinemas read beyond a page, so that a few ties at its edge cost no second read.
const TIE_ROOM: usize = 8;
