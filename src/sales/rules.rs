//! Which seats of a hall sell first (`Hall.seatSales`): the bounds of the question, checked
//! before anything is read, and the figures made of what the one aggregation returns.

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, Utc};

use crate::error::ApiError;

/// The longest window asked about, in days: a week of a hall's showtimes.
pub const MAX_SEAT_SALES_DAYS: i32 = 7;
/// The most showtimes read (the latest of the window): a hall plays at most about 8 a day.
pub const MAX_SEAT_SALES_SHOWTIMES: i32 = 100;

/// The hall's showtimes asked about: those starting in `[from, before)`, the latest `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatSalesWindow {
    pub from: DateTime<Utc>,
    pub before: DateTime<Utc>,
    pub limit: usize,
}

impl SeatSalesWindow {
    /// The window of `days` days (1 to 7, default 7) ending at `before` (default `now`), at
    /// most `showtimes` of them (1 to 100, default 100); BAD_USER_INPUT naming the cap
    /// otherwise.
    pub fn new(
        days: Option<i32>,
        before: Option<DateTime<Utc>>,
        showtimes: Option<i32>,
        now: DateTime<Utc>,
    ) -> Result<Self, ApiError> {
        let days = days.unwrap_or(MAX_SEAT_SALES_DAYS);
        if !(1..=MAX_SEAT_SALES_DAYS).contains(&days) {
            return Err(ApiError::bad_input(format!(
                "days must be 1 to {MAX_SEAT_SALES_DAYS}, not {days}"
            )));
        }
        let limit = showtimes.unwrap_or(MAX_SEAT_SALES_SHOWTIMES);
        if !(1..=MAX_SEAT_SALES_SHOWTIMES).contains(&limit) {
            return Err(ApiError::bad_input(format!(
                "showtimes must be 1 to {MAX_SEAT_SALES_SHOWTIMES}, not {limit}"
            )));
        }
        let before = before.unwrap_or(now);
        // A `before` at the edge of the calendar has no week before it (no panic then).
        let from = before
            .checked_sub_signed(Duration::days(i64::from(days)))
            .ok_or_else(|| ApiError::bad_input(format!("before ({before}) is out of range")))?;
        Ok(SeatSalesWindow {
            from,
            before,
            limit: limit as usize,
        })
    }
}

/// One sale of a seat: the showtime (by when it went on sale, which is when it was
/// scheduled) and when the seat's order was confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeatSale {
    /// Identifies the showtime among the window's (its id's bytes).
    pub showtime: [u8; 12],
    pub on_sale: DateTime<Utc>,
    pub sold: DateTime<Utc>,
}

/// How a seat sold across the window's showtimes.
#[derive(Debug, Clone, PartialEq)]
pub struct SeatFigure {
    pub label: String,
    /// Showtimes in which it sold (once each, however often it was sold and refunded).
    pub showtimes_sold: usize,
    /// `showtimes_sold` over the showtimes of the window: 0 to 1.
    pub share: f64,
    /// The median, over those showtimes, of the time from on-sale to its first sale there.
    pub median_seconds: i64,
}

impl SeatFigure {
    /// The figure of seat `label` from its sales, among `showtimes` showtimes (more than 0).
    pub fn of(label: String, sales: &[SeatSale], showtimes: usize) -> Self {
        // A seat sold, refunded and sold again in a showtime counts once, at its first sale.
        let mut waits: Vec<i64> = Vec::with_capacity(sales.len());
        let mut sorted: Vec<&SeatSale> = sales.iter().collect();
        sorted.sort_by_key(|sale| (sale.showtime, sale.sold));
        let mut seen = BTreeSet::new();
        for sale in sorted {
            if seen.insert(sale.showtime) {
                // A clock a little behind another gateway's never makes a sale precede its
                // on-sale time.
                let waited = (sale.sold - sale.on_sale).num_seconds().max(0);
                waits.push(waited);
            }
        }
        waits.sort_unstable();
        SeatFigure {
            label,
            showtimes_sold: waits.len(),
            share: waits.len() as f64 / showtimes.max(1) as f64,
            median_seconds: median(&waits),
        }
    }
}

/// The median of sorted `values` (the lower middle of an even count, so a whole second); 0
/// for none.
fn median(values: &[i64]) -> i64 {
    match values.len() {
        0 => 0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2,
    }
}

/// Seats that sell first come first: the largest share, then the shortest median, then label.
pub fn sell_first_order(figures: &mut [SeatFigure]) {
    figures.sort_by(|a, b| {
        b.share
            .total_cmp(&a.share)
            .then(a.median_seconds.cmp(&b.median_seconds))
            .then_with(|| a.label.cmp(&b.label))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(minute: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 22, 12, minute, 0).unwrap()
    }

    #[test]
    fn the_window_is_capped_before_anything_is_read() {
        let now = at(0);
        let week = SeatSalesWindow::new(None, None, None, now).unwrap();
        assert_eq!(
            (week.from, week.before, week.limit),
            (now - Duration::days(7), now, 100)
        );
        for (days, showtimes) in [(Some(0), None), (Some(8), None), (None, Some(0))] {
            assert!(SeatSalesWindow::new(days, None, showtimes, now).is_err());
        }
        assert!(SeatSalesWindow::new(None, None, Some(101), now).is_err());
        assert!(SeatSalesWindow::new(None, Some(DateTime::<Utc>::MIN_UTC), None, now).is_err());
        let day = SeatSalesWindow::new(Some(1), Some(at(30)), Some(5), now).unwrap();
        assert_eq!((day.from, day.limit), (at(30) - Duration::days(1), 5));
    }

    #[test]
    fn a_seat_counts_once_per_showtime_at_its_first_sale_and_the_median_is_whole() {
        let sale = |showtime: u8, sold: u32| SeatSale {
            showtime: [showtime; 12],
            on_sale: at(0),
            sold: at(sold),
        };
        // Sold after 10 and 30 minutes in two showtimes; resold later in the first.
        let sales = [sale(1, 10), sale(2, 30), sale(1, 50)];
        let figure = SeatFigure::of("A1".to_owned(), &sales, 4);
        assert_eq!(figure.showtimes_sold, 2);
        assert_eq!(figure.share, 0.5);
        assert_eq!(figure.median_seconds, 20 * 60);
        assert_eq!(median(&[1, 2, 9]), 2);
        assert_eq!(median(&[]), 0);
    }

    #[test]
    fn seats_that_sell_more_then_sooner_come_first() {
        let figure = |label: &str, share: f64, median_seconds: i64| SeatFigure {
            label: label.to_owned(),
            showtimes_sold: 1,
            share,
            median_seconds,
        };
        let mut figures = vec![
            figure("A1", 0.5, 10),
            figure("B2", 1.0, 90),
            figure("C3", 1.0, 30),
        ];
        sell_first_order(&mut figures);
        let labels: Vec<&str> = figures.iter().map(|f| f.label.as_str()).collect();
        assert_eq!(labels, ["C3", "B2", "A1"]);
    }
}
