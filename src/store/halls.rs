//! `theaters`: a cinema's halls and their layouts.

use bson::doc;
use serde::{Deserialize, Serialize};

use super::codec::ObjectIdExt;
use super::documents::HallDoc;
use super::{filters, names, Store};
use crate::domain::ids::{CinemaId, HallId};
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;

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
}
