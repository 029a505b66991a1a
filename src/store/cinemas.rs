//! `cinemas`: by id, by city and name, and nearest a point.

use bson::{doc, Bson, Document};
use futures::TryStreamExt;
use serde::{Deserialize, Serialize};

use super::codec::ObjectIdExt;
use super::command_metrics::Call;
use super::documents::CinemaDoc;
use super::{filters, names, Store};
use crate::domain::cursor;
use crate::domain::geo::GeoPoint;
use crate::domain::ids::{CinemaId, RegionId};
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;

/// Which cinemas to list.
#[derive(Debug, Clone, Default)]
pub struct CinemaFilter {
    pub city: Option<String>,
    /// Only cinemas under this region (a province, city or district): one equality on the
    /// multikey `regionIds`.
    pub region: Option<RegionId>,
    pub name_contains: Option<String>,
}

/// Sort key of the city-and-name list.
#[derive(Serialize, Deserialize)]
struct CityNameKey(String, String, CinemaId);

/// Sort key of the nearest-first list.
#[derive(Serialize, Deserialize)]
struct DistanceKey(f64, CinemaId);

/// A cinema and its distance from the searched point.
#[derive(Debug, Clone, Deserialize)]
pub struct CinemaWithDistance {
    #[serde(flatten)]
    pub cinema: CinemaDoc,
    #[serde(rename = "distanceMeters")]
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

    /// Cinemas within `radius_meters` of `point`, nearest first, with their distances
    /// (`$geoNear` on the 2dsphere index). Ties in distance are broken by id, so pages are stable.
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
        let mut geo_near = doc! {
            "near": { "type": "Point", "coordinates": [point.longitude, point.latitude] },
            "distanceField": "distanceMeters",
            "maxDistance": radius_meters,
            "spherical": true,
            "key": "location",
        };
        let mut pipeline = vec![];
        if let Some(DistanceKey(distance, id)) = &after {
            // Skip what earlier pages returned without reading it: nothing nearer than the last.
            geo_near.insert("minDistance", *distance);
            pipeline.push(doc! { "$geoNear": geo_near });
            pipeline.push(doc! { "$match": filters::after_ascending(
                &["distanceMeters", "_id"],
                &[Bson::Double(*distance), id.oid().into()],
            ) });
        } else {
            pipeline.push(doc! { "$geoNear": geo_near });
        }
        let limit = page.first as i64 + 1;
        pipeline.push(doc! { "$sort": { "distanceMeters": 1, "_id": 1 } });
        pipeline.push(doc! { "$limit": limit });
        let cinemas = self.collection::<CinemaDoc>(names::CINEMAS);
        let found: Vec<CinemaWithDistance> = self
            .bounded(Call::new(names::CINEMAS, "aggregate"), async {
                cinemas
                    .aggregate(pipeline)
                    .batch_size(limit as u32)
                    .with_type::<CinemaWithDistance>()
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        Ok(Page::from_fetched(found, page, |c| {
            cursor::encode("cinemasNear", &DistanceKey(c.distance_meters, c.cinema.id))
        }))
    }
}
