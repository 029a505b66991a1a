//! Operators creating halls and changing them.

use async_graphql::{Context, InputObject, Object, ID};

use crate::catalogue::graphql::types::Hall;
use crate::catalogue::graphql::CatalogueContext;
use crate::catalogue::rules::checks as rules;
use crate::catalogue::HallChanges;
use crate::catalogue::{self, NewHall};
use crate::domain::global_id;
use crate::domain::input_caps;
use crate::domain::layout::{HallLayout, LayoutRow, MAX_ROWS, MAX_ROW_LENGTH};
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::SeatKind;
use crate::operators::graphql::OperatorsContext;

#[derive(Default)]
pub struct HallMutation;

/// One row of a hall's seat layout.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct LayoutRowInput {
    /// The row's label: 1 to 3 capital letters ("A", "B", ... "AA"), unique in the hall.
    pub label: String,
    /// Its positions from left to right: a seat's kind, or null for a gap (an aisle, a
    /// pillar). Seat "D7" is the 7th position of row D, so gaps leave numbers out. Couple seats
    /// come in pairs.
    pub positions: Vec<Option<SeatKind>>,
}

/// A hall's seat layout: rows of positions (preallocated 2-D grid). Its capacity is the number
/// of seats, at most the gateway's `--max-hall-seats`.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct HallLayoutInput {
    /// The rows, front (nearest the screen) first.
    pub rows: Vec<LayoutRowInput>,
}

impl HallLayoutInput {
    fn checked(&self, max_seats: usize) -> Result<HallLayout, ApiError> {
        // The sizes before the copy below; the layout's other rules after it.
        input_caps::list("rows", &self.rows, MAX_ROWS)?;
        for row in &self.rows {
            if row.positions.len() > MAX_ROW_LENGTH {
                // The label is checked after the copy: named here only when it could be one.
                let row_name = match row.label.len() {
                    1..=3 => format!("row `{}`", row.label),
                    _ => "a row".to_owned(),
                };
                return Err(ApiError::bad_input(format!(
                    "{row_name} has {} positions; at most {MAX_ROW_LENGTH}",
                    row.positions.len()
                )));
            }
        }
        let layout = HallLayout {
            rows: self
                .rows
                .iter()
                .map(|row| LayoutRow {
                    label: row.label.clone(),
                    positions: row.positions.iter().map(|p| p.map(Into::into)).collect(),
                })
                .collect(),
        };
        layout.validate_within(max_seats)?;
        Ok(layout)
    }
}

/// A new hall of a cinema.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct CreateHallInput {
    /// The cinema (of the caller's scope).
    pub cinema_id: ID,
    /// Its name ("1号厅", "IMAX厅"), up to 50 characters.
    pub name: String,
    /// Its projection format: capital letters and digits, like 2D, 3D, IMAX, DOLBY, 4DX.
    pub format: String,
    /// Its seats.
    pub layout: HallLayoutInput,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// Changes to a hall: the fields given are replaced, the others kept.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct UpdateHallInput {
    /// The hall.
    pub hall_id: ID,
    /// A new name (reaches its future showtimes).
    pub name: Option<String>,
    /// A new format (reaches its future showtimes).
    pub format: Option<String>,
    /// A new layout: refused while the hall has a future showtime that is not cancelled (its
    /// seats were sold from the old one); the error names them.
    pub layout: Option<HallLayoutInput>,
    /// Makes retries safe, as in `createHall`.
    pub idempotency_key: Option<String>,
}

#[Object]
impl HallMutation {
    /// Creates a hall in a cinema of the caller's scope (FORBIDDEN otherwise). Its capacity is
    /// counted from the layout.
    #[tracing::instrument(skip_all)]
    async fn create_hall(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The hall.")] input: CreateHallInput,
    ) -> Result<Hall, ApiError> {
        let operator = ctx.calling_operator("creating a hall")?;
        let hall = NewHall {
            cinema: global_id::cinema_id(&input.cinema_id)?,
            name: rules::hall_name(&input.name)?,
            format: rules::format(&input.format)?,
            layout: input.layout.checked(ctx.catalogue_rules().max_hall_seats)?,
        };
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let id = catalogue::create_hall(keyed, hall).await?;
        Ok(Hall::from_id(id))
    }

    /// Changes a hall of a cinema of the caller's scope. A new layout only while the hall has
    /// no future showtime; a new name or format reaches its future showtimes' copies.
    #[tracing::instrument(skip_all)]
    async fn update_hall(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The hall and the fields to change.")] input: UpdateHallInput,
    ) -> Result<Hall, ApiError> {
        let operator = ctx.calling_operator("changing a hall")?;
        let hall = global_id::hall_id(&input.hall_id)?;
        let max_seats = ctx.catalogue_rules().max_hall_seats;
        let changes = HallChanges {
            name: input.name.as_deref().map(rules::hall_name).transpose()?,
            format: input.format.as_deref().map(rules::format).transpose()?,
            layout: input
                .layout
                .as_ref()
                .map(|layout| layout.checked(max_seats))
                .transpose()?,
        };
        let keyed = ctx.keyed(operator, input.idempotency_key.as_deref(), &input);
        let id = catalogue::update_hall(keyed, hall, changes).await?;
        Ok(Hall::from_id(id))
    }
}
