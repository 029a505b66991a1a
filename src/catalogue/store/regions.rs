//! `regions`: the tree of provinces, cities and districts (array of ancestors pattern).

use bson::{doc, Bson};
use serde::{Deserialize, Serialize};

use crate::domain::ids::RegionId;
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::documents::RegionDoc;
use crate::store::{filters, names, Store};

/// Sort key of a list of regions.
#[derive(Serialize, Deserialize)]
struct NameKey(String, RegionId);

impl Store {
    #[tracing::instrument(skip(self))]
    pub async fn regions_by_ids(&self, ids: &[RegionId]) -> Result<Vec<RegionDoc>, ApiError> {
        self.find_by_ids(names::REGIONS, ids).await
    }

    /// The regions directly under `parent` in name order, or the provinces when there is no
    /// parent (index `parent_name`; a region under an unknown parent has none).
    #[tracing::instrument(skip(self))]
    pub async fn list_regions(
        &self,
        parent: Option<RegionId>,
        page: &PageRequest,
    ) -> Result<Page<RegionDoc>, ApiError> {
        let parent = parent.map_or(Bson::Null, |id| id.oid().into());
        self.find_page(
            names::REGIONS,
            "regions",
            doc! { "parentId": parent },
            doc! { "parentId": 1, "name": 1, "_id": 1 },
            None,
            page,
            |NameKey(name, id)| {
                filters::after_ascending(&["name", "_id"], &[name.into(), id.oid().into()])
            },
            |region: &RegionDoc| NameKey(region.name.clone(), region.id),
        )
        .await
    }

    /// Inserts regions (parents need not come first: each carries its whole path). Used by the
    /// demo loader through [`Store::insert_catalogue`].
    #[tracing::instrument(skip_all, fields(regions = regions.len()))]
    pub async fn insert_regions(&self, regions: &[RegionDoc]) -> Result<(), ApiError> {
        for region in regions {
            if region.ancestors.len() != region.level.depth()
                || region.parent_id != region.ancestors.last().copied()
            {
                return Err(ApiError::internal(format!(
                    "region {} ({}) has a parent or ancestors that do not fit its level {:?}",
                    region.name, region.id, region.level
                )));
            }
        }
        self.insert_all(names::REGIONS, regions).await
    }
}
