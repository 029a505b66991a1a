//! `findSeats`: the best options for a party across the showtimes of an area, in three reads
//! whatever the number of cinemas (the area's cinemas, their showtimes in the window, those
//! showtimes' seat maps), bounded as `seat_search::rules` says. It only reads: holding an
//! option's seats is `holdSeats` with its labels, which may find them taken by then.

use std::collections::HashMap;

use super::rules::{
    OptionKey, Score, SearchArea, SearchWindow, REGION_CINEMAS, SEARCH_CINEMAS, SEARCH_SHOWTIMES,
};
use super::store::SearchedShowtimes;
use crate::domain::best_seats::{best_block, Cell, SeatGrid};
use crate::domain::ids::{CinemaId, MovieId, ShowtimeId};
use crate::domain::layout::seat_label;
use crate::domain::paging::{Page, PageRequest};
use crate::domain::pricing::{seat_prices, TicketType};
use crate::domain::seat::{SeatKind, SeatState};
use crate::error::ApiError;
use crate::store::documents::{SeatMapDoc, ShowtimeDoc, ShowtimeStatus};
use crate::store::Store;

/// What a search asks for.
#[derive(Debug, Clone)]
pub struct SeatSearch {
    pub area: SearchArea,
    pub movie: Option<MovieId>,
    pub window: SearchWindow,
    pub party: usize,
    pub kind: SeatKind,
    /// One per seat, left to right (`pricing::ticket_types_for`).
    pub ticket_types: Vec<TicketType>,
    /// Prices are this channel's, and only showtimes it sells are options.
    pub channel: String,
}

/// One option: a showtime and the best block of seats for the party in it.
#[derive(Debug, Clone)]
pub struct SeatOption {
    pub showtime: ShowtimeDoc,
    /// From the searched point; None in a region search.
    pub distance_meters: Option<f64>,
    /// The seats' labels, left to right.
    pub seats: Vec<String>,
    /// Single free seats the block leaves beside it (0, 1 or 2).
    pub orphans: usize,
    /// What the seats cost together on the channel, as the ticket types asked (minor units).
    pub total: i64,
    pub key: OptionKey,
}

/// The page of options after `page.after`, best first.
#[tracing::instrument(skip(store))]
pub async fn find_seats(
    store: &Store,
    search: &SeatSearch,
    page: &PageRequest,
) -> Result<Page<SeatOption>, ApiError> {
    let after = page
        .after
        .as_deref()
        .map(OptionKey::from_cursor)
        .transpose()?;
    let options = all_options(store, search).await?;
    if options.is_empty() {
        explain_nothing_found(store, search).await?;
    }
    let mut rest: Vec<SeatOption> = options
        .into_iter()
        .filter(|option| after.is_none_or(|after| option.key > after))
        .collect();
    let has_next_page = rest.len() > page.first;
    rest.truncate(page.first);
    Ok(Page {
        items: rest
            .into_iter()
            .map(|option| (option.key.cursor(), option))
            .collect(),
        has_next_page,
        has_previous_page: after.is_some(),
    })
}

/// Every option of the search, best first.
async fn all_options(store: &Store, search: &SeatSearch) -> Result<Vec<SeatOption>, ApiError> {
    let distances: HashMap<CinemaId, f64> = match search.area {
        SearchArea::Near {
            point,
            radius_meters,
        } => Box::pin(store.cinemas_near_for_search(point, radius_meters, SEARCH_CINEMAS))
            .await?
            .into_iter()
            .map(|cinema| (cinema.id, cinema.distance_meters))
            .collect(),
        SearchArea::Region(region) => {
            let ids = Box::pin(store.cinema_ids_in_region(region, REGION_CINEMAS + 1)).await?;
            if ids.len() > REGION_CINEMAS {
                return Err(ApiError::bad_input(format!(
                    "the region has more than {REGION_CINEMAS} cinemas: search near a point, or \
                     in one of its districts"
                )));
            }
            ids.into_iter().map(|id| (id, f64::NAN)).collect()
        }
    };
    if distances.is_empty() {
        return Ok(Vec::new());
    }
    let cinemas: Vec<CinemaId> = distances.keys().copied().collect();
    let showtimes: Vec<ShowtimeDoc> = Box::pin(store.showtimes_for_search(
        &SearchedShowtimes {
            cinemas: &cinemas,
            movie: search.movie,
            window: search.window,
        },
        SEARCH_SHOWTIMES,
    ))
    .await?
    .into_iter()
    .filter(|showtime| {
        showtime.status == ShowtimeStatus::Scheduled
            && showtime
                .prices
                .iter()
                .any(|price| price.channel == search.channel)
    })
    .collect();
    if showtimes.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<ShowtimeId> = showtimes.iter().map(|showtime| showtime.id).collect();
    let mut maps: HashMap<ShowtimeId, SeatMapDoc> =
        Box::pin(store.seat_maps_by_showtime_ids(&ids, true))
            .await?
            .into_iter()
            .map(|map| (map.id, map))
            .collect();
    let mut options: Vec<SeatOption> = showtimes
        .into_iter()
        .filter_map(|showtime| {
            let map = maps.remove(&showtime.id)?;
            let distance = distances
                .get(&showtime.cinema.id)
                .copied()
                .filter(|d| !d.is_nan());
            option_in(search, showtime, &map, distance)
        })
        .collect();
    options.sort_by_key(|option| option.key);
    Ok(options)
}

/// The best block for the party in one showtime, priced; None when it has none, or the
/// channel has no price for those seats as the ticket types asked.
fn option_in(
    search: &SeatSearch,
    showtime: ShowtimeDoc,
    map: &SeatMapDoc,
    distance_meters: Option<f64>,
) -> Option<SeatOption> {
    // A held seat counts as taken even when its hold has just expired: the search reads no
    // holds, and the sweeper frees such seats within seconds.
    let grid = SeatGrid::new(
        map.seats
            .values()
            .map(|row| {
                row.iter()
                    .map(|seat| match seat {
                        None => Cell::Gap,
                        Some(seat) => Cell::Seat {
                            kind: seat.kind,
                            free: seat.state == SeatState::Available,
                        },
                    })
                    .collect()
            })
            .collect(),
    );
    let block = best_block(&grid, search.party, search.kind)?;
    let row_labels: Vec<&String> = map.seats.keys().collect();
    let seats: Vec<(String, SeatKind)> = block
        .seats
        .iter()
        .map(|position| {
            let kind = match grid.rows[position.row][position.column] {
                Cell::Seat { kind, .. } => kind,
                Cell::Gap => unreachable!("a block holds seats only"),
            };
            (seat_label(row_labels[position.row], position.column), kind)
        })
        .collect();
    let prices = seat_prices(
        &showtime.price_matrix(),
        &showtime.rules(),
        &search.channel,
        &seats,
        &search.ticket_types,
    )
    .ok()?;
    let key = OptionKey {
        score: Score::of(&block, distance_meters, showtime.starts_at, &search.window).0,
        starts_at_millis: showtime.starts_at.timestamp_millis(),
        showtime: showtime.id,
    };
    Some(SeatOption {
        distance_meters,
        seats: seats.into_iter().map(|(label, _)| label).collect(),
        orphans: block.orphans,
        total: prices.iter().sum(),
        key,
        showtime,
    })
}

/// When a search finds nothing, whether that is because it named something that does not
/// exist (a movie: NOT_FOUND; a region, channel or ticket type: BAD_USER_INPUT), rather than
/// because every seat is taken. Read only then, all at once: a search that finds options
/// costs its three reads and no more.
async fn explain_nothing_found(store: &Store, search: &SeatSearch) -> Result<(), ApiError> {
    let custom_types: Vec<&TicketType> = {
        let mut types: Vec<&TicketType> = search
            .ticket_types
            .iter()
            .filter(|ticket_type| !ticket_type.is_built_in())
            .collect();
        types.sort_by_key(|ticket_type| ticket_type.as_str());
        types.dedup();
        types
    };
    let movie = async {
        match search.movie {
            Some(movie) => Ok(!Box::pin(store.movies_by_ids(&[movie])).await?.is_empty()),
            None => Ok::<_, ApiError>(true),
        }
    };
    let region = async {
        match search.area {
            SearchArea::Region(region) => {
                Ok(!Box::pin(store.regions_by_ids(&[region])).await?.is_empty())
            }
            SearchArea::Near { .. } => Ok::<_, ApiError>(true),
        }
    };
    let channel = async {
        Ok::<_, ApiError>(
            Box::pin(store.channel_by_code(&search.channel))
                .await?
                .is_some(),
        )
    };
    let types = futures::future::try_join_all(custom_types.iter().map(|ticket_type| async {
        let known = Box::pin(store.ticket_type_exists(ticket_type)).await?;
        Ok::<_, ApiError>((*ticket_type, known))
    }));
    let (movie, region, channel, types) = futures::try_join!(movie, region, channel, types)?;
    if !movie {
        return Err(ApiError::not_found("no movie has this id"));
    }
    if !region {
        return Err(ApiError::bad_input("no region has this regionId"));
    }
    if !channel {
        return Err(ApiError::bad_input(format!(
            "there is no sales channel `{}`",
            search.channel
        )));
    }
    if let Some((unknown, _)) = types.iter().find(|(_, known)| !known) {
        return Err(ApiError::bad_input(format!(
            "unknown ticket type {unknown}"
        )));
    }
    Ok(())
}
