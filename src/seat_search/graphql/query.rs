//! `findSeats`: the best seats for a party across the showtimes of an area.

use async_graphql::connection::Connection;
use async_graphql::{Context, InputObject, Object, ID};
use chrono::{DateTime, Utc};

use super::types::SeatOption;
use crate::domain::cursor::Cursor;
use crate::domain::pricing;
use crate::domain::{global_id, text};
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{connection, page_cost, SeatKind};
use crate::holds::rules::HoldPolicy;
use crate::seat_search::rules::{validate_party, SearchArea, SearchWindow};
use crate::seat_search::{self, SeatSearch};

#[derive(Default)]
pub struct SeatSearchQuery;

/// A point and a radius.
#[derive(InputObject, Debug)]
pub struct NearInput {
    /// Latitude, -90 to 90.
    pub latitude: f64,
    /// Longitude, -180 to 180.
    pub longitude: f64,
    /// Greater than 0 and at most 50000 (50 km).
    pub radius_meters: f64,
}

/// What `findSeats` looks for. Give `near` or `regionId`, exactly one.
#[derive(InputObject, Debug)]
pub struct FindSeatsInput {
    /// Only showtimes of this movie.
    pub movie_id: Option<ID>,
    /// Cinemas near a point: the 50 nearest within the radius.
    pub near: Option<NearInput>,
    /// Cinemas of a region (a `Region` id: a city or a district; at most 500 cinemas).
    pub region_id: Option<ID>,
    /// Showtimes starting at or after this instant (default and earliest: now).
    pub starts_from: Option<DateTime<Utc>>,
    /// Showtimes starting before this instant: at most 24 hours after `startsFrom` (default:
    /// 24 hours after it).
    pub starts_before: Option<DateTime<Utc>>,
    /// How many seats side by side: 1 to 10 (and at most what one hold may take).
    pub party_size: i32,
    /// Their kind.
    #[graphql(default_with = "SeatKind::Standard")]
    pub kind: SeatKind,
    /// The ticket type of every seat (ADULT when neither this nor `ticketTypes` is given).
    pub ticket_type: Option<String>,
    /// One ticket type per seat, left to right. Not with `ticketType`.
    pub ticket_types: Option<Vec<String>>,
    /// The sales channel whose prices to show; only showtimes it sells are options. Default:
    /// the calling channel (an anonymous caller must give one).
    pub channel: Option<String>,
}

#[Object]
impl SeatSearchQuery {
    /// The best seats for a party across the showtimes of an area, best option first: for
    /// each showtime, the seats `holdSeats(best:)` would choose, priced on the channel, and
    /// scored by how good the seats are, how near the cinema is and how soon it starts (see
    /// `SeatOption.score`). Looks at the first 100 showtimes of the window (earliest first)
    /// of the area's cinemas; it reads and holds nothing.
    #[tracing::instrument(skip(self, ctx, input))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn find_seats(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "What to look for.")] input: FindSeatsInput,
        #[graphql(desc = "How many options (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last option of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, SeatOption>, ApiError> {
        let page = ctx.page(first, after)?;
        let search = search_of(ctx, input)?;
        let found = Box::pin(seat_search::find_seats(ctx.store(), &search, &page)).await?;
        Ok(connection(found, SeatOption::from))
    }
}

/// The search `input` asks for, checked.
fn search_of(ctx: &Context<'_>, input: FindSeatsInput) -> Result<SeatSearch, ApiError> {
    let policy = ctx.data_unchecked::<HoldPolicy>();
    let kind = input.kind.into();
    let party = validate_party(input.party_size, policy.max_seats, kind)?;
    let area = SearchArea::new(
        input
            .near
            .map(|near| (near.latitude, near.longitude, near.radius_meters)),
        input
            .region_id
            .map(|id| global_id::region_id(&id))
            .transpose()?,
    )?;
    let window = SearchWindow::new(input.starts_from, input.starts_before, crate::store::now())?;
    let movie = input
        .movie_id
        .map(|id| global_id::movie_id(&id))
        .transpose()?;
    let channel = match text::optional("channel", input.channel)? {
        Some(channel) => channel,
        None => ctx.caller().channel.clone().ok_or_else(|| {
            ApiError::bad_input(
                "give `channel`: its prices are shown (a sales channel's key gives its own)",
            )
        })?,
    };
    Ok(SeatSearch {
        area,
        movie,
        window,
        party,
        kind,
        ticket_types: pricing::ticket_types_from_codes(
            party,
            input.ticket_type.as_deref(),
            input.ticket_types.as_deref(),
        )?,
        channel,
    })
}
