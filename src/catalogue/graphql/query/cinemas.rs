//! Cinema queries: by id, by city and name, nearest a point.

use async_graphql::connection::Connection;
use async_graphql::{Context, Object, ID};

use crate::catalogue::graphql::types::{nearby_cinemas, Cinema, NearbyCinemaConnection};
use crate::catalogue::CinemaFilter;
use crate::domain::cursor::Cursor;
use crate::domain::geo::{validate_radius, GeoPoint};
use crate::domain::{global_id, text};
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::page_cost;
use crate::operators::{operator_scope, rules::OperatorScope};

#[derive(Default)]
pub struct CinemaQuery;

#[Object]
impl CinemaQuery {
    /// A cinema by id; null when there is none.
    #[tracing::instrument(skip(self, ctx))]
    async fn cinema(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "A cinema's global id.")] id: ID,
    ) -> Result<Option<Cinema>, ApiError> {
        let id = global_id::cinema_id(&id)?;
        let doc = ctx.loaders().cinemas.load_one(id).await?;
        Ok(doc.map(Cinema::from_doc))
    }

    /// Cinemas in city, then name order; optionally only those of a city, of a region (a
    /// province, city or district) or whose name contains a text.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn cinemas(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Only cinemas in this city, e.g. \"上海\".")] city: Option<String>,
        #[graphql(
            desc = "Only cinemas in this region (a `Region` id): a province, a city or a district. An unknown region has none."
        )]
        region: Option<ID>,
        #[graphql(desc = "Only cinemas whose name contains this text (any case).")]
        name_contains: Option<String>,
        #[graphql(desc = "How many cinemas (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last cinema of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Cinema>, ApiError> {
        let filter = CinemaFilter {
            city: text::optional("city", city)?,
            region: region.map(|id| global_id::region_id(&id)).transpose()?,
            name_contains: text::optional("nameContains", name_contains)?,
            ids: None,
        };
        Cinema::list(ctx, &filter, first, after).await
    }

    /// The cinemas the calling operator writes, in city, then name order: every cinema for
    /// the platform, its own for a chain (what the dashboard at `/dashboard` shows). Needs
    /// an operator's API key.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn operator_cinemas(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "How many cinemas (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last cinema of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Cinema>, ApiError> {
        let operator = ctx.calling_operator("listing an operator's cinemas")?;
        // Checked before the scope is read: a bad page reads nothing.
        ctx.page(first, after.clone())?;
        let ids = match operator_scope(ctx.store(), operator).await? {
            OperatorScope::All => None,
            OperatorScope::Cinemas(ids) => Some(ids),
        };
        let filter = CinemaFilter {
            ids,
            ..CinemaFilter::default()
        };
        Cinema::list(ctx, &filter, first, after).await
    }

    /// Cinemas within a radius of a point, nearest first, each edge with its distance.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn cinemas_near(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Latitude of the point, -90 to 90.")] latitude: f64,
        #[graphql(desc = "Longitude of the point, -180 to 180.")] longitude: f64,
        #[graphql(desc = "Search radius in metres, greater than 0 and at most 500000.")]
        radius_meters: f64,
        #[graphql(desc = "How many cinemas (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last cinema of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<NearbyCinemaConnection, ApiError> {
        let point = GeoPoint::new(latitude, longitude)?;
        let radius = validate_radius(radius_meters)?;
        let page = ctx.page(first, after)?;
        let found = ctx.store().cinemas_near(point, radius, &page).await?;
        Ok(nearby_cinemas(found))
    }
}
