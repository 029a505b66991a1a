//! Region queries: browsing the tree of provinces, cities and districts.

use std::sync::Arc;

use async_graphql::connection::Connection;
use async_graphql::{Context, Object, ID};

use crate::catalogue::graphql::types::Region;
use crate::domain::cursor::Cursor;
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{connection, page_cost};

#[derive(Default)]
pub struct RegionQuery;

#[Object]
impl RegionQuery {
    /// The regions directly under `parent` by name, or the provinces when `parent` is absent.
    /// An unknown parent has none.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn regions(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "A region's global id; absent for the provinces.")] parent: Option<ID>,
        #[graphql(desc = "How many regions (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last region of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Region>, ApiError> {
        let parent = parent.map(|id| global_id::region_id(&id)).transpose()?;
        let page = ctx.page(first, after)?;
        let regions = ctx.store().list_regions(parent, &page).await?;
        Ok(connection(regions, |doc| Region::from_doc(Arc::new(doc))))
    }
}
