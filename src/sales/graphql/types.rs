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
