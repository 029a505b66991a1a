//! `Hall`: a screening room and its seat layout.

use std::sync::Arc;

use async_graphql::{ComplexObject, Context, Object, SimpleObject, ID};
use chrono::{DateTime, Utc};

use super::Cinema;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::HallId;
use crate::domain::layout::{seat_label, MAX_CAPACITY};
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::lazy::Lazy;
use crate::graphql::types::list_cost;
use crate::graphql::types::SeatKind;
use crate::live::graphql::seat_map::{ROWS_COST, ROW_SEATS_COST};
use crate::operators::authorize;
use crate::sales::graphql::HallSeatSales;
use crate::sales::rules::SeatSalesWindow;
use crate::store::documents::{HallDoc, HallRef};

/// A hall (screening room) of a cinema, with its 2-D seat layout.
pub struct Hall {
    doc: Lazy<HallId, HallDoc>,
    /// What a showtime copied of the hall (extended reference), when it came from one.
    copied: Option<HallRef>,
}

impl Hall {
    pub fn from_doc(doc: Arc<HallDoc>) -> Self {
        Hall {
            doc: Lazy::loaded(doc.id, doc),
            copied: None,
        }
    }

    pub fn from_id(id: HallId) -> Self {
        Hall {
            doc: Lazy::unloaded(id),
            copied: None,
        }
    }

    pub fn from_ref(copied: &HallRef) -> Self {
        Hall {
            doc: Lazy::unloaded(copied.id),
            copied: Some(copied.clone()),
        }
    }

    async fn full(&self, ctx: &Context<'_>) -> Result<Arc<HallDoc>, ApiError> {
        self.doc.get(ctx, "hall").await
    }
}

/// A seat position in a hall's layout.
#[derive(SimpleObject)]
pub struct LayoutSeat {
    /// The seat's label, row then number: "D7".
    pub label: String,
    /// The seat's number in its row; aisles leave numbers out.
    pub number: i32,
    /// 0-based position in the row, gaps included, for drawing the hall.
    pub column: i32,
    /// What kind of seat it is.
    pub kind: SeatKind,
}

/// A row of a hall's layout.
#[derive(SimpleObject)]
#[graphql(complex)]
pub struct LayoutRow {
    /// The row's label: "A", "B", ...
    pub label: String,
    #[graphql(skip)]
    pub seats: Vec<LayoutSeat>,
}

#[ComplexObject]
impl LayoutRow {
    /// Its seats in column order; columns missing from the list are gaps (aisles, pillars).
    #[graphql(complexity = "list_cost(ROW_SEATS_COST, child_complexity)")]
    async fn seats(&self) -> &[LayoutSeat] {
        &self.seats
    }
}

/// The seat layout of a hall: rows of seats with gaps.
#[derive(SimpleObject)]
#[graphql(complex)]
pub struct HallLayout {
    #[graphql(skip)]
    pub rows: Vec<LayoutRow>,
    /// Positions in the widest row, gaps included.
    pub width: i32,
}

#[ComplexObject]
impl HallLayout {
    /// Rows from the screen backwards.
    #[graphql(complexity = "list_cost(ROWS_COST, child_complexity)")]
    async fn rows(&self) -> &[LayoutRow] {
        &self.rows
    }
}

/// A hall (screening room) of a cinema, with its 2-D seat layout.
#[Object(cache_control(max_age = 60))]
impl Hall {
    /// Global id, for `node(id:)`.
    pub async fn id(&self) -> ID {
        GlobalId::Hall(self.doc.id).encode().into()
    }

    /// The hall's name, e.g. "3号厅".
    async fn name(&self, ctx: &Context<'_>) -> Result<String, ApiError> {
        match &self.copied {
            Some(copied) => Ok(copied.name.clone()),
            None => Ok(self.full(ctx).await?.name.clone()),
        }
    }

    /// Projection format: "2D", "3D", "IMAX", "DOLBY", "4DX", ...
    async fn format(&self, ctx: &Context<'_>) -> Result<String, ApiError> {
        match &self.copied {
            Some(copied) => Ok(copied.format.clone()),
            None => Ok(self.full(ctx).await?.format.clone()),
        }
    }

    /// The number of seats.
    async fn capacity(&self, ctx: &Context<'_>) -> Result<i32, ApiError> {
        Ok(self.full(ctx).await?.capacity)
    }

    /// The cinema the hall belongs to.
    async fn cinema(&self, ctx: &Context<'_>) -> Result<Cinema, ApiError> {
        Ok(Cinema::from_id(self.full(ctx).await?.cinema_id))
    }

    /// The seat layout.
    async fn layout(&self, ctx: &Context<'_>) -> Result<HallLayout, ApiError> {
        let doc = self.full(ctx).await?;
        let rows = doc
            .layout
            .rows
            .iter()
            .map(|row| LayoutRow {
                label: row.label.clone(),
                seats: row
                    .positions
                    .iter()
                    .enumerate()
                    .filter_map(|(column, kind)| {
                        kind.map(|kind| LayoutSeat {
                            label: seat_label(&row.label, column),
                            number: column as i32 + 1,
                            column: column as i32,
                            kind: kind.into(),
                        })
                    })
                    .collect(),
            })
            .collect();
        Ok(HallLayout {
            rows,
            width: doc.layout.width() as i32,
        })
    }

    /// Which seats sell first: per seat, the share of the hall's showtimes starting in the
    /// `days` days before `before` in which it sold, and its median time from on-sale to
    /// sold, computed by one aggregation. Needs an operator key whose scope holds the
    /// hall's cinema (FORBIDDEN otherwise); out-of-range arguments are BAD_USER_INPUT and
    /// read nothing.
    #[graphql(
        complexity = "list_cost(MAX_CAPACITY, child_complexity)",
        cache_control(no_cache)
    )]
    async fn seat_sales(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The window's length in days, 1 to 7 (default 7).")] days: Option<i32>,
        #[graphql(desc = "The window's end (default now): showtimes starting before it.")]
        before: Option<DateTime<Utc>>,
        #[graphql(desc = "At most this many showtimes, the latest: 1 to 100 (default 100).")]
        showtimes: Option<i32>,
    ) -> Result<HallSeatSales, ApiError> {
        let operator = ctx.calling_operator("reading which seats sell first")?;
        let window = SeatSalesWindow::new(days, before, showtimes, Utc::now())?;
        let hall = self.full(ctx).await?;
        Box::pin(authorize(ctx.store(), operator, hall.cinema_id)).await?;
        let figures =
            Box::pin(crate::sales::hall_seat_sales(ctx.store(), hall.id, &window)).await?;
        Ok(figures.into())
    }
}
