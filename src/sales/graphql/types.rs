//! Sales figures: a movie's totals and a cinema's hourly buckets.

use async_graphql::SimpleObject;
use chrono::{DateTime, Utc};

use crate::domain::money;
use crate::graphql::types::Money;
use crate::sales::store::documents::HourlySalesDoc;
use crate::store::documents::SalesDoc;

/// Tickets sold and what they brought in, net of cancellations.
#[derive(SimpleObject)]
pub struct Sales {
    /// Seats sold.
    pub tickets_sold: i64,
    /// Orders confirmed.
    pub orders: i64,
    /// Revenue.
    pub revenue: Money,
}

impl From<SalesDoc> for Sales {
    fn from(sales: SalesDoc) -> Self {
        Sales {
            tickets_sold: sales.tickets,
            orders: sales.orders,
            revenue: money::Money::cny(sales.revenue).into(),
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
