//! `theaters`: a cinema's halls and their layouts.

use bson::doc;
use serde::{Deserialize, Serialize};

use crate::domain::ids::{CinemaId, HallId, ShowtimeId};
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::store::codec::{self, ObjectIdExt};
use crate::store::documents::HallDoc;
use crate::store::{filters, names, Store};

#[derive(Serialize, Deserialize)]
struct NameKey(String, HallId);

impl Store {
    #[tracing::instrument(skip(self))]
    pub async fn halls_by_ids(&self, ids: &[HallId]) -> Result<Vec<HallDoc>, ApiError> {
        self.find_by_ids(names::THEATERS, ids).await
    }

    /// A cinema's halls by name (index `cinema`).
    #[tracing::instrument(skip(self))]
    pub async fn list_halls(
        &self,
        cinema: CinemaId,
        page: &PageRequest,
    ) -> Result<Page<HallDoc>, ApiError> {
        self.find_page(
            names::THEATERS,
            "halls",
            doc! { "cinemaId": cinema.oid() },
            doc! { "cinemaId": 1, "name": 1, "_id": 1 },
            None,
            page,
            |NameKey(name, id)| {
                filters::after_ascending(&["name", "_id"], &[name.into(), id.oid().into()])
            },
            |hall: &HallDoc| NameKey(hall.name.clone(), hall.id),
        )
        .await
    }

    /// Up to `limit` showtimes of `hall` that start after now and are not cancelled, soonest
    /// first (index `theater_starts`): what a layout change may not happen under.
    #[tracing::instrument(skip(self))]
    pub async fn future_showtimes_in_hall(
        &self,
        hall: HallId,
        limit: usize,
    ) -> Result<Vec<ShowtimeId>, ApiError> {
        #[derive(Deserialize)]
        struct Found {
            #[serde(rename = "_id", with = "codec::id")]
            id: ShowtimeId,
        }
        let found: Vec<Found> = self
            .find_limited(
                names::SHOWTIMES,
                doc! {
                    "theater.id": hall.oid(),
                    "startsAt": { "$gt": codec::date(crate::store::now()) },
                    "status": { "$ne": "CANCELLED" },
                },
                Some(doc! { "theater.id": 1, "startsAt": 1, "_id": 1 }),
                Some(doc! { "_id": 1 }),
                limit,
            )
            .await?;
        Ok(found.into_iter().map(|f| f.id).collect())
    }
}
