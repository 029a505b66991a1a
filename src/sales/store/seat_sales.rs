//! Which seats of a hall sell first: ONE aggregation over the hall's showtimes of a window
//! (index `theater_starts`), joined to their orders (index `showtime_status`), that counts the
//! showtimes and groups the confirmed seats' sales by label.

use bson::{doc, Bson, Document};
use futures::TryStreamExt;
use serde::Deserialize;

use crate::domain::ids::HallId;
use crate::error::ApiError;
use crate::sales::rules::{SeatSale, SeatSalesWindow};
use crate::store::codec::ObjectIdExt;
use crate::store::command_metrics::Call;
use crate::store::{names, Store};

/// What the aggregation answers: how many showtimes it read, and each sold seat's sales.
#[derive(Debug, Default)]
pub(in crate::sales) struct HallSeatSalesRead {
    pub(in crate::sales) showtimes: usize,
    pub(in crate::sales) seats: Vec<(String, Vec<SeatSale>)>,
}

#[derive(Deserialize)]
struct Counted {
    n: i64,
}

#[derive(Deserialize)]
struct Sold {
    showtime: bson::oid::ObjectId,
    at: bson::DateTime,
}

#[derive(Deserialize)]
struct SeatGroup {
    #[serde(rename = "_id")]
    label: String,
    sales: Vec<Sold>,
}

#[derive(Deserialize)]
struct Faceted {
    showtimes: Vec<Counted>,
    seats: Vec<SeatGroup>,
}

/// The pipeline: the window's showtimes of `hall` (not cancelled), the latest `limit`, each
/// with its confirmed orders; then, apart, their count and every ticket line not refunded,
/// grouped by seat.
fn seat_sales_pipeline(hall: HallId, window: &SeatSalesWindow) -> Vec<Document> {
    let limit = i64::try_from(window.limit).unwrap_or(i64::MAX);
    vec![
        doc! { "$match": {
            "theater.id": hall.oid(),
            "startsAt": {
                "$gte": bson::DateTime::from_chrono(window.from),
                "$lt": bson::DateTime::from_chrono(window.before),
            },
            "status": { "$ne": "CANCELLED" },
        } },
        doc! { "$sort": { "theater.id": 1, "startsAt": -1, "_id": -1 } },
        doc! { "$limit": limit },
        doc! { "$project": { "_id": 1 } },
        doc! { "$lookup": {
            "from": names::ORDERS,
            "localField": "_id",
            "foreignField": "showtime.id",
            "as": "orders",
        } },
        doc! { "$facet": {
            "showtimes": [{ "$count": "n" }],
            "seats": [
                { "$unwind": "$orders" },
                { "$match": { "orders.status": "CONFIRMED" } },
                // Version 1 orders keep their seats in `seats`, version 2 in `lines`.
                { "$project": {
                    "at": "$orders.createdAt",
                    "refunded": { "$ifNull": ["$orders.cancelledSeats", []] },
                    "line": { "$ifNull": ["$orders.lines", "$orders.seats"] },
                } },
                { "$unwind": "$line" },
                { "$match": { "line.kind": { "$ne": "PRODUCT" } } },
                { "$match": { "$expr": { "$not": [{ "$in": ["$line.label", "$refunded"] }] } } },
                { "$group": {
                    "_id": "$line.label",
                    "sales": { "$push": { "showtime": "$_id", "at": "$at" } },
                } },
            ],
        } },
    ]
}

impl Store {
    /// How the seats of `hall` sold across its showtimes of `window`: one `aggregate`.
    #[tracing::instrument(skip(self))]
    pub(in crate::sales) async fn hall_seat_sales(
        &self,
        hall: HallId,
        window: &SeatSalesWindow,
    ) -> Result<HallSeatSalesRead, ApiError> {
        let showtimes = self.collection::<Document>(names::SHOWTIMES);
        let pipeline = seat_sales_pipeline(hall, window);
        let answers: Vec<Document> = self
            .bounded(Call::new(names::SHOWTIMES, "aggregate"), async {
                showtimes.aggregate(pipeline).await?.try_collect().await
            })
            .await?;
        let Some(answer) = answers.into_iter().next() else {
            return Ok(HallSeatSalesRead::default());
        };
        let faceted: Faceted = bson::from_bson(Bson::Document(answer))?;
        let counted = faceted.showtimes.first().map_or(0, |count| count.n);
        let seats = faceted
            .seats
            .into_iter()
            .map(|group| {
                let sales = group
                    .sales
                    .iter()
                    .map(|sold| SeatSale {
                        showtime: sold.showtime.bytes(),
                        // A showtime's id is made when it is scheduled: it went on sale then.
                        on_sale: sold.showtime.timestamp().to_chrono(),
                        sold: sold.at.to_chrono(),
                    })
                    .collect();
                (group.label, sales)
            })
            .collect();
        Ok(HallSeatSalesRead {
            showtimes: usize::try_from(counted).unwrap_or(0),
            seats,
        })
    }
}
