//! `cinema_sales_hourly`: a cinema's sales per hour (bucket pattern).

use bson::{doc, DateTime, Document};
use serde::{Deserialize, Serialize};

use super::documents::{HourlySalesDoc, ObjectIdExt};
use super::{filters, names, Store};
use crate::domain::ids::CinemaId;
use crate::domain::paging::{Page, PageRequest};
use crate::domain::time_range::TimeRange;
use crate::error::ApiError;

#[derive(Serialize, Deserialize)]
struct HourKey(i64);

impl Store {
    /// A cinema's hourly sales buckets in `range`, newest hour first (index `cinema_newest`).
    #[tracing::instrument(skip(self))]
    pub async fn list_hourly_sales(
        &self,
        cinema: CinemaId,
        range: TimeRange,
        page: &PageRequest,
    ) -> Result<Page<HourlySalesDoc>, ApiError> {
        let mut filter = doc! { "cinemaId": cinema.oid() };
        let mut hour = Document::new();
        if let Some(from) = range.from {
            hour.insert("$gte", DateTime::from_chrono(from));
        }
        if let Some(before) = range.before {
            hour.insert("$lt", DateTime::from_chrono(before));
        }
        if !hour.is_empty() {
            filter.insert("hour", hour);
        }
        self.find_page(
            names::CINEMA_SALES_HOURLY,
            "hourlySales",
            filter,
            doc! { "cinemaId": 1, "hour": -1 },
            page,
            |HourKey(millis)| {
                filters::after_descending(&["hour"], &[DateTime::from_millis(millis).into()])
            },
            |bucket: &HourlySalesDoc| HourKey(bucket.hour.timestamp_millis()),
        )
        .await
    }
}
