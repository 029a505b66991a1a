//! Sales figures: a movie's totals and a cinema's hourly buckets.

use async_graphql::SimpleObject;
use chrono::{DateTime, Utc};

use crate::domain::money;
use crate::graphql::types::Money;
use crate::sales::store::documents::HourlySalesDoc;
use crate::store::documents::SalesDoc;

/// Tickets and concessions sold and what they brought in, net of cancellations.
#[derive(SimpleObject)]
pub struct Sales {
    /// Seats sold.
    pub tickets_sold: i64,
    /// Orders confirmed.
    pub orders: i64,
    /// Revenue: tickets and concessions (`ticketRevenue` + `concessionRevenue`).
    pub revenue: Money,
    /// What the tickets brought in (with the fees kept of cancelled seats).
    pub ticket_revenue: Money,
    /// Concession units sold (products beside seats).
    pub items_sold: i64,
    /// What the concessions brought in.
    pub concession_revenue: Money,
}

impl From<SalesDoc> for Sales {
    fn from(sales: SalesDoc) -> Self {
        Sales {
            tickets_sold: sales.tickets,
            orders: sales.orders,
            revenue: money::Money::cny(sales.revenue).into(),
            ticket_revenue: money::Money::cny(sales.revenue - sales.concessions).into(),
            items_sold: sales.items,
            concession_revenue: money::Money::cny(sales.concessions).into(),
        }
    }
}

/// A cinema's sales in one hour (orders counted in the hour they were confirmed).
#[derive(SimpleObject)]
pub struct HourlySales {
    /// The start of the hour.
    pub hour: DateTime<Utc>,
    /// The hour's sales.
    pub sales: Sales,
}

impl From<HourlySalesDoc> for HourlySales {
    fn from(bucket: HourlySalesDoc) -> Self {
        HourlySales {
            hour: bucket.hour,
            sales: bucket.sales.into(),
        }
    }
}

/// Which seats of a hall sell first, over its showtimes of a window (`Hall.seatSales`).
#[derive(SimpleObject)]
pub struct HallSeatSales {
    /// The showtimes counted: the hall's in the window, not cancelled, at most the limit
    /// asked for (the latest).
    pub showtimes: i32,
    /// The seats sold in at least one of them, those that sell first first: the largest
    /// `soldShare`, then the shortest `medianSecondsToSale`. A seat not listed never sold.
    pub seats: Vec<SeatSales>,
}

/// How one seat sold across a hall's showtimes.
#[derive(SimpleObject)]
pub struct SeatSales {
    /// The seat's label, e.g. "D7".
    pub label: String,
    /// In how many of the showtimes it sold (each once, however often it was refunded and
    /// sold again).
    pub showtimes_sold: i32,
    /// `showtimesSold` over `HallSeatSales.showtimes`: 0 to 1.
    pub sold_share: f64,
    /// The median, over the showtimes in which it sold, of the seconds from the showtime
    /// going on sale (when it was scheduled) to the seat's first confirmed order.
    pub median_seconds_to_sale: i64,
}

impl From<crate::sales::HallSeatSales> for HallSeatSales {
    fn from(figures: crate::sales::HallSeatSales) -> Self {
        HallSeatSales {
            showtimes: i32::try_from(figures.showtimes).unwrap_or(i32::MAX),
            seats: figures
                .seats
                .into_iter()
                .map(|seat| SeatSales {
                    label: seat.label,
                    showtimes_sold: i32::try_from(seat.showtimes_sold).unwrap_or(i32::MAX),
                    sold_share: seat.share,
                    median_seconds_to_sale: seat.median_seconds,
                })
                .collect(),
        }
    }
}
