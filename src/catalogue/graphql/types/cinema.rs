//! `Cinema`, and the nearest-first connection with distances.

use std::sync::Arc;

use async_graphql::connection::{Connection, ConnectionNameType, Edge, EdgeNameType};
use async_graphql::{Context, Object, SimpleObject, ID};
use chrono::{DateTime, Utc};

use super::{Hall, Region, Showtime};
use crate::catalogue::{CinemaFilter, CinemaWithDistance, ShowtimeFilter};
use crate::concessions::{self, graphql::Product};
use crate::domain::cursor::Cursor;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::CinemaId;
use crate::domain::paging::Page;
use crate::domain::time_range::TimeRange;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::lazy::Lazy;
use crate::graphql::types::money::Money;
use crate::graphql::types::{connection, page_cost};
use crate::sales::{self, graphql::HourlySales};
use crate::store::documents::{CinemaDoc, CinemaRef};

/// A cinema: a building with halls, in a city.
pub struct Cinema {
    doc: Lazy<CinemaId, CinemaDoc>,
    /// What a showtime copied of the cinema (extended reference), when it came from one.
    copied: Option<CinemaRef>,
}

impl Cinema {
    pub fn from_doc(doc: Arc<CinemaDoc>) -> Self {
        Cinema {
            doc: Lazy::loaded(doc.id, doc),
            copied: None,
        }
    }

    pub fn from_ref(copied: &CinemaRef) -> Self {
        Cinema {
            doc: Lazy::unloaded(copied.id),
            copied: Some(copied.clone()),
        }
    }

    pub fn from_id(id: CinemaId) -> Self {
        Cinema {
            doc: Lazy::unloaded(id),
            copied: None,
        }
    }

    async fn full(&self, ctx: &Context<'_>) -> Result<Arc<CinemaDoc>, ApiError> {
        self.doc.get(ctx, "cinema").await
    }

    /// A page of the cinemas `filter` lets through (`Query.cinemas`, `Region.cinemas`).
    pub async fn list(
        ctx: &Context<'_>,
        filter: &CinemaFilter,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<Connection<Cursor, Cinema>, ApiError> {
        let page = ctx.page(first, after)?;
        let cinemas = Box::pin(ctx.store().list_cinemas(filter, &page)).await?;
        Ok(connection(cinemas, |doc| Cinema::from_doc(doc.into())))
    }
}

/// A cinema's terms for cancellations (`cancelOrder`).
#[derive(SimpleObject)]
pub struct RefundPolicy {
    /// No refund within this many minutes of the start (0: until the start).
    pub cutoff_minutes: i32,
    /// Kept of each cancelled seat's price (never more than the price).
    pub fee_per_seat: Money,
}

/// A point on Earth (WGS 84 degrees).
#[derive(SimpleObject)]
pub struct Location {
    /// Degrees north of the equator, -90 to 90.
    pub latitude: f64,
    /// Degrees east of Greenwich, -180 to 180.
    pub longitude: f64,
}

/// A cinema: a building with halls, in a city.
#[Object(cache_control(max_age = 60))]
impl Cinema {
    /// Global id, for `node(id:)`.
    pub async fn id(&self) -> ID {
        GlobalId::Cinema(self.doc.id).encode().into()
    }

    /// The cinema's name, e.g. "万达影城(国贸店)".
    async fn name(&self, ctx: &Context<'_>) -> Result<String, ApiError> {
        match &self.copied {
            Some(copied) => Ok(copied.name.clone()),
            None => Ok(self.full(ctx).await?.name.clone()),
        }
    }

    /// The city, e.g. "上海".
    async fn city(&self, ctx: &Context<'_>) -> Result<String, ApiError> {
        match &self.copied {
            Some(copied) => Ok(copied.city.clone()),
            None => Ok(self.full(ctx).await?.city.clone()),
        }
    }

    /// The district of the city, e.g. "浦东新区".
    async fn district(&self, ctx: &Context<'_>) -> Result<String, ApiError> {
        Ok(self.full(ctx).await?.district.clone())
    }

    /// The district it is in, as a region of the tree (its `ancestors` are the city and the
    /// province); null for a cinema written before regions existed.
    async fn region(&self, ctx: &Context<'_>) -> Result<Option<Region>, ApiError> {
        match self.full(ctx).await?.region() {
            Some(district) => Region::load(ctx, district).await,
            None => Ok(None),
        }
    }

    /// The street address.
    async fn address(&self, ctx: &Context<'_>) -> Result<String, ApiError> {
        Ok(self.full(ctx).await?.address.clone())
    }

    /// Where the cinema is.
    async fn location(&self, ctx: &Context<'_>) -> Result<Location, ApiError> {
        let doc = self.full(ctx).await?;
        Ok(Location {
            latitude: doc.location.latitude(),
            longitude: doc.location.longitude(),
        })
    }

    /// What the cinema offers besides films, e.g. "停车场", "IMAX".
    async fn amenities(&self, ctx: &Context<'_>) -> Result<Vec<String>, ApiError> {
        Ok(self.full(ctx).await?.amenities.clone())
    }

    /// Its terms for cancellations.
    async fn refund_policy(&self, ctx: &Context<'_>) -> Result<RefundPolicy, ApiError> {
        let policy = self.full(ctx).await?.refund_policy;
        let policy = policy.map(|policy| policy.policy()).unwrap_or_default();
        Ok(RefundPolicy {
            cutoff_minutes: policy.cutoff_minutes as i32,
            fee_per_seat: Money::of(policy.fee_per_seat, "CNY"),
        })
    }

    /// The cinema's halls, by name.
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn halls(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "How many halls (default 20, at most the configured cap).")] first: Option<
            i32,
        >,
        #[graphql(desc = "The `cursor` of the last hall of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Hall>, ApiError> {
        let page = ctx.page(first, after)?;
        // Boxed, like every store call of this type: see `graphql::types`.
        let halls = Box::pin(ctx.store().list_halls(self.doc.id, &page)).await?;
        Ok(connection(halls, |hall| Hall::from_doc(Arc::new(hall))))
    }

    /// What the cinema sells beside seats, oldest first (retired products too: they say
    /// so). Hold them with `holdSeats(input: {items})`.
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn products(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "How many products (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last product of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Product>, ApiError> {
        let page = ctx.page(first, after)?;
        let products =
            Box::pin(concessions::list_products(ctx.store(), self.doc.id, &page)).await?;
        Ok(connection(products, Product))
    }

    /// The cinema's showtimes in start order, optionally within a time range.
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn showtimes(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Only showtimes starting at or after this instant.")] starts_from: Option<
            DateTime<Utc>,
        >,
        #[graphql(desc = "Only showtimes starting before this instant.")] starts_before: Option<
            DateTime<Utc>,
        >,
        #[graphql(desc = "How many showtimes (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last showtime of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, Showtime>, ApiError> {
        let filter = ShowtimeFilter {
            cinema: Some(self.doc.id),
            starts: TimeRange::new(starts_from, starts_before)?,
            ..ShowtimeFilter::default()
        };
        let page = ctx.page(first, after)?;
        let parts = Showtime::parts_asked(&ctx.look_ahead());
        let showtimes = Box::pin(ctx.store().list_showtimes(&filter, &page, parts)).await?;
        Ok(connection(showtimes, Showtime::from_doc))
    }

    /// Sales per hour, newest hour first (bucket pattern: one document per cinema and hour,
    /// moved with every order).
    #[graphql(
        complexity = "page_cost(first, child_complexity)",
        cache_control(no_cache)
    )]
    async fn hourly_sales(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Only hours starting at or after this instant.")] from: Option<
            DateTime<Utc>,
        >,
        #[graphql(desc = "Only hours starting before this instant.")] before: Option<DateTime<Utc>>,
        #[graphql(desc = "How many hours (default 20, at most the configured cap).")] first: Option<
            i32,
        >,
        #[graphql(desc = "The `cursor` of the last hour of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, HourlySales>, ApiError> {
        let range = TimeRange::new(from, before)?;
        let page = ctx.page(first, after)?;
        let buckets = Box::pin(sales::hourly_sales(ctx.store(), self.doc.id, range, &page)).await?;
        Ok(connection(buckets, HourlySales::from))
    }
}

/// The distance of a cinema from the point searched.
#[derive(SimpleObject)]
pub struct CinemaDistance {
    /// Great-circle distance in metres.
    pub distance_meters: f64,
}

/// Names the nearest-cinemas connection `NearbyCinemaConnection`.
pub struct NearbyCinemaConnectionName;

impl ConnectionNameType for NearbyCinemaConnectionName {
    fn type_name<T: async_graphql::OutputType>() -> String {
        "NearbyCinemaConnection".to_owned()
    }
}

/// Names its edges `NearbyCinemaEdge`.
pub struct NearbyCinemaEdgeName;

impl EdgeNameType for NearbyCinemaEdgeName {
    fn type_name<T: async_graphql::OutputType>() -> String {
        "NearbyCinemaEdge".to_owned()
    }
}

/// Cinemas nearest first; each edge has its `distanceMeters`.
pub type NearbyCinemaConnection = Connection<
    Cursor,
    Cinema,
    async_graphql::connection::EmptyFields,
    CinemaDistance,
    NearbyCinemaConnectionName,
    NearbyCinemaEdgeName,
>;

/// The connection of a page of nearest cinemas.
pub fn nearby_cinemas(page: Page<CinemaWithDistance>) -> NearbyCinemaConnection {
    {
        let mut connection = Connection::new(page.has_previous_page, page.has_next_page);
        connection
            .edges
            .extend(page.items.into_iter().map(|(cursor, found)| {
                Edge::with_additional_fields(
                    cursor,
                    Cinema::from_doc(Arc::new(found.cinema)),
                    CinemaDistance {
                        distance_meters: found.distance_meters,
                    },
                )
            }));
        connection
    }
}
