//! Which seats of a hall sell first: per seat, the share of the hall's showtimes of a window
//! in which it sold and the median time from on-sale to its sale (`Hall.seatSales`).

use super::rules::{sell_first_order, SeatFigure, SeatSalesWindow};
use crate::domain::ids::HallId;
use crate::error::ApiError;
use crate::store::Store;

/// The figures of a hall's seats over a window.
#[derive(Debug, Clone, PartialEq)]
pub struct HallSeatSales {
    /// The showtimes read (those of the window, at most its limit).
    pub showtimes: usize,
    /// The seats sold at least once, those that sell first first.
    pub seats: Vec<SeatFigure>,
}

/// How `hall`'s seats sold over `window` (checked by its maker before this is called): one
/// aggregation. The caller has authorised the request.
pub async fn hall_seat_sales(
    store: &Store,
    hall: HallId,
    window: &SeatSalesWindow,
) -> Result<HallSeatSales, ApiError> {
    let read = store.hall_seat_sales(hall, window).await?;
    let mut seats: Vec<SeatFigure> = read
        .seats
        .into_iter()
        .map(|(label, sales)| SeatFigure::of(label, &sales, read.showtimes))
        .collect();
    sell_first_order(&mut seats);
    Ok(HallSeatSales {
        showtimes: read.showtimes,
        seats,
    })
}
