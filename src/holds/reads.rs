//! Reading a channel's holds back: one by id, or its live holds of a showtime, so a seat
//! picker recovers a hold after a reload. Holds live in their showtime's inventory, so each
//! read is one `find` of that document (its `holds` only) beside one of the showtime.

use super::hold::HeldSeats;
use crate::domain::cursor::Cursor;
use crate::domain::ids::{HoldId, ShowtimeId};
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::store::Store;

/// Hold `hold` of `showtime` if it is `channel`'s and still in the inventory (live, or
/// lapsed and not yet expired by the database's clock). NOT_FOUND otherwise: a channel learns
/// nothing of others' holds, nor of released, confirmed or swept ones.
#[tracing::instrument(skip(store))]
pub async fn hold_of_channel(
    store: &Store,
    channel: &str,
    showtime: ShowtimeId,
    hold: HoldId,
) -> Result<HeldSeats, ApiError> {
    let not_found = || ApiError::not_found(format!("no hold {hold} of channel {channel}"));
    let (found, showtimes) = tokio::try_join!(
        store.hold_of(showtime, hold),
        store.showtimes_by_ids(std::slice::from_ref(&showtime))
    )?;
    let found = found
        .filter(|found| found.channel == channel)
        .ok_or_else(not_found)?;
    let showtime_doc = showtimes.into_iter().next().ok_or_else(not_found)?;
    Ok(HeldSeats {
        hold: found,
        showtime: showtime_doc,
    })
}

/// `channel`'s holds of `showtime`, oldest first, one page: the cursor is the hold's id (hold
/// ids grow with time). NOT_FOUND for a showtime that does not exist.
#[tracing::instrument(skip(store))]
pub async fn holds_of_channel(
    store: &Store,
    channel: &str,
    showtime: ShowtimeId,
    page: &PageRequest,
) -> Result<Page<HeldSeats>, ApiError> {
    let after = page
        .after
        .as_deref()
        .map(|cursor| {
            HoldId::parse_hex(cursor)
                .map_err(|_| ApiError::bad_input(format!("`{cursor}` is not a cursor of holds")))
        })
        .transpose()?;
    let (holds, showtimes) = tokio::try_join!(
        store.holds_of_showtime(showtime),
        store.showtimes_by_ids(std::slice::from_ref(&showtime))
    )?;
    let showtime_doc = showtimes
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::not_found(format!("showtime {showtime} does not exist")))?;
    let mut holds: Vec<_> = holds
        .unwrap_or_default()
        .into_iter()
        .filter(|hold| hold.channel == channel)
        .filter(|hold| after.is_none_or(|after| hold.id.0 > after.0))
        .collect();
    holds.sort_by_key(|hold| hold.id.0);
    holds.truncate(page.first + 1);
    let held: Vec<HeldSeats> = (holds.into_iter())
        .map(|hold| HeldSeats {
            showtime: showtime_doc.clone(),
            hold,
        })
        .collect();
    Ok(Page::from_fetched(held, page, |held: &HeldSeats| {
        let id = held.hold.id;
        Cursor::lazy(move || id.to_string())
    }))
}
