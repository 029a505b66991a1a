//! `Region`: a province, city or district of the region tree.

use std::sync::Arc;

use async_graphql::connection::Connection;
use async_graphql::{Context, Enum, Object, ID};
use futures::future::try_join_all;

use super::Cinema;
use crate::catalogue::CinemaFilter;
use crate::domain::cursor::Cursor;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::RegionId;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{connection, page_cost};
use crate::store::documents::RegionDoc;

/// How deep a region is in the tree: provinces hold cities, cities hold districts.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
#[graphql(remote = "crate::catalogue::rules::region::RegionLevel")]
pub enum RegionLevel {
    /// A province, a municipality (北京市) or an autonomous region: the top of the tree.
    Province,
    /// A city of a province.
    City,
    /// A district of a city; every cinema is in one.
    District,
}

/// A region of the country: a province, a city or a district.
pub struct Region {
    doc: Arc<RegionDoc>,
}

impl Region {
    pub fn from_doc(doc: Arc<RegionDoc>) -> Self {
        Region { doc }
    }

    /// The region of an id, through the request's loader; `None` when there is none.
    pub async fn load(ctx: &Context<'_>, id: RegionId) -> Result<Option<Region>, ApiError> {
        Ok(ctx
            .loaders()
            .regions
            .load_one(id)
            .await?
            .map(Region::from_doc))
    }
}

/// A region of the country: a province, a city or a district.
#[Object(cache_control(max_age = 300))]
impl Region {
    /// Global id, for `node(id:)` and for `cinemas(region:)`.
    pub async fn id(&self) -> ID {
        GlobalId::Region(self.doc.id).encode().into()
    }

    /// The region's name, e.g. "广东省", "深圳", "南山区".
    async fn name(&self) -> &str {
        &self.doc.name
    }

    /// Province, city or district.
    async fn level(&self) -> RegionLevel {
        self.doc.level.into()
    }

    /// The region it is in; null for a province.
    async fn parent(&self, ctx: &Context<'_>) -> Result<Option<Region>, ApiError> {
        match self.doc.parent_id {
            Some(parent) => Region::load(ctx, parent).await,
            None => Ok(None),
        }
    }

    /// Every region it is in, the province first (a district: its province, then its city);
    /// empty for a province. One batched read for all of them.
    async fn ancestors(&self, ctx: &Context<'_>) -> Result<Vec<Region>, ApiError> {
        let found =
            try_join_all(self.doc.ancestors.iter().map(|&id| Region::load(ctx, id))).await?;
        Ok(found.into_iter().flatten().collect())
    }

    /// The regions directly under it, by name (a province's cities, a city's districts).
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn children(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "How many regions (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last region of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Region>, ApiError> {
        let page = ctx.page(first, after)?;
        // Boxed: see `graphql::types`.
        let regions = Box::pin(ctx.store().list_regions(Some(self.doc.id), &page)).await?;
        Ok(connection(regions, |doc| Region::from_doc(Arc::new(doc))))
    }

    /// The cinemas anywhere under it, in city, then name order (the same list as
    /// `cinemas(region:)`).
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn cinemas(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "How many cinemas (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last cinema of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Cinema>, ApiError> {
        let filter = CinemaFilter {
            region: Some(self.doc.id),
            ..CinemaFilter::default()
        };
        Cinema::list(ctx, &filter, first, after).await
    }
}
