//! Sales figures: each movie's totals (computed pattern, in `movies.sales`) and each cinema's
//! hourly buckets (`cinema_sales_hourly`, bucket pattern), and the projection that keeps them.
//!
//! The projection is exact: one transaction moves the figures by a batch of orders and flips
//! those orders' `salesCounted`, so an order is counted once, whatever crashes or concurrent
//! projectors. It runs apart from the confirmations because every confirmation of a movie
//! would otherwise write that movie's one document, a hot spot whose transactions abort each
//! other; a batch writes it once.

use std::collections::BTreeMap;

use bson::{doc, DateTime, Document};
use serde::{Deserialize, Serialize};

use super::documents::HourlySalesDoc;
use crate::domain::ids::{CinemaId, MovieId};
use crate::domain::paging::{Page, PageRequest};
use crate::domain::time_range::TimeRange;
use crate::error::ApiError;
use crate::orders::rules::SalesFigure;
use crate::store::codec::{oids, ObjectIdExt};
use crate::store::documents::{OrderDoc, OrderStatus, SalesFigureDoc};
use crate::store::{filters, names, Store};

#[derive(Serialize, Deserialize)]
struct HourKey(i64);

impl Store {
    /// A cinema's hourly sales buckets in `range`, newest hour first (index `cinema_newest`).
    #[tracing::instrument(skip(self))]
    pub(in crate::sales) async fn list_hourly_sales(
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
            None,
            page,
            |HourKey(millis)| {
                filters::after_descending(&["hour"], &[DateTime::from_millis(millis).into()])
            },
            |bucket: &HourlySalesDoc| HourKey(bucket.hour.timestamp_millis()),
        )
        .await
    }
}

/// How much a batch of orders moves one figure.
#[derive(Debug, Default, Clone, Copy)]
struct Delta {
    tickets: i64,
    revenue: i64,
    orders: i64,
    items: i64,
    concessions: i64,
}

impl Delta {
    fn add(&mut self, by: SalesFigure) {
        self.tickets += by.tickets;
        self.revenue += by.revenue;
        self.orders += by.orders;
        self.items += by.items;
        self.concessions += by.concessions;
    }
}

/// The update that records what the figures now count for a refunded order, matching only
/// while the order is as it was read (status, whether counted, its refunds so far).
fn recount(order: &OrderDoc) -> Result<(Document, Document), ApiError> {
    let filter = doc! {
        "_id": order.id.oid(),
        "status": bson::to_bson(&order.status)?,
        "salesCounted": order.sales_counted,
        "refunded": order.refunded,
        "cancelledSeats": { "$size": order.cancelled_seats.len() as i64 },
    };
    let update = doc! {
        "$set": {
            "salesCounted": order.status == OrderStatus::Confirmed,
            "salesCountedAs": bson::to_bson(&SalesFigureDoc::from(order.sales_figure()))?,
        },
        "$unset": { "salesStale": "" },
    };
    Ok((filter, update))
}

/// The start of the hour of `at`, in epoch milliseconds.
fn hour_of(at: chrono::DateTime<chrono::Utc>) -> i64 {
    let millis = at.timestamp_millis();
    millis - millis.rem_euclid(3_600_000)
}

impl Store {
    /// Orders the sales figures do not reflect yet: CONFIRMED and not counted, CANCELLED and
    /// still counted, or refunded since they were counted. At most `limit` (indexes
    /// `status_sales` and `sales_stale`).
    #[tracing::instrument(skip(self))]
    pub(in crate::sales) async fn orders_to_project(
        &self,
        limit: usize,
    ) -> Result<Vec<OrderDoc>, ApiError> {
        let filter = doc! { "$or": [
            { "status": "CONFIRMED", "salesCounted": false },
            { "status": "CANCELLED", "salesCounted": true },
            { "salesStale": true },
        ] };
        let orders: Vec<OrderDoc> = self
            .find_limited(names::ORDERS, filter, None, None, limit)
            .await?;
        let unprojected = orders
            .iter()
            .filter(|order| order.status == OrderStatus::Confirmed && !order.sales_counted);
        crate::telemetry::lag::unprojected(
            unprojected
                .map(|order| order.created_at.timestamp_millis())
                .min(),
        );
        Ok(orders)
    }

    /// Moves the sales figures by `orders` (as `orders_to_project` returned them) and marks them
    /// counted or uncounted, in one transaction; returns how many of them moved the figures.
    /// None, and nothing changed, when one of them changed meanwhile (a cancellation, another
    /// projector): the next pass sees it again.
    #[tracing::instrument(skip(self, orders), fields(orders = orders.len()))]
    pub(in crate::sales) async fn project_sales(
        &self,
        orders: &[OrderDoc],
    ) -> Result<Option<usize>, ApiError> {
        let mut movies: BTreeMap<MovieId, Delta> = BTreeMap::new();
        let mut buckets: BTreeMap<(CinemaId, i64), Delta> = BTreeMap::new();
        let (mut counted, mut uncounted, mut recounts) = (Vec::new(), Vec::new(), Vec::new());
        let mut moved = 0;
        for order in orders {
            // An order under way (PENDING, CANCELLING, a refund not finished) waits.
            let settled = matches!(
                order.status,
                OrderStatus::Confirmed | OrderStatus::Cancelled
            ) && order.refunding.is_none();
            let refunded = !order.refunds.is_empty() || order.sales_counted_as.is_some();
            match (order.status, order.sales_counted) {
                _ if !settled => continue,
                _ if refunded => recounts.push(recount(order)?),
                (OrderStatus::Confirmed, false) => counted.push(order.id),
                (OrderStatus::Cancelled, true) => uncounted.push(order.id),
                _ => continue,
            }
            let by = order.sales_figure().minus(order.counted_figure());
            if by != SalesFigure::default() {
                moved += 1;
            }
            movies.entry(order.showtime.movie_id).or_default().add(by);
            let bucket = (order.showtime.cinema_id, hour_of(order.created_at));
            buckets.entry(bucket).or_default().add(by);
        }
        if counted.is_empty() && uncounted.is_empty() && recounts.is_empty() {
            return Ok(Some(0));
        }
        let flips = [
            (counted, "CONFIRMED", false),
            (uncounted, "CANCELLED", true),
        ];
        self.in_transaction(|store, session| {
            let (flips, movies, buckets) = (flips.clone(), movies.clone(), buckets.clone());
            let recounts = recounts.clone();
            Box::pin(async move {
                let orders = store.collection::<Document>(names::ORDERS);
                for (ids, status, was) in flips.iter().filter(|flip| !flip.0.is_empty()) {
                    let (status, was) = (*status, *was);
                    let flipped = orders
                        .update_many(
                            doc! { "_id": { "$in": oids(ids) }, "status": status, "salesCounted": was },
                            doc! { "$set": { "salesCounted": !was } },
                        )
                        .session(&mut *session)
                        .await?;
                    if flipped.modified_count != ids.len() as u64 {
                        return Ok(false);
                    }
                }
                for (filter, update) in recounts {
                    let recounted = orders
                        .update_one(filter, update)
                        .session(&mut *session)
                        .await?;
                    if recounted.modified_count != 1 {
                        return Ok(false);
                    }
                }
                for (movie, delta) in &movies {
                    store
                        .collection::<Document>(names::MOVIES)
                        .update_one(
                            doc! { "_id": movie.oid() },
                            doc! { "$inc": {
                                "sales.tickets": delta.tickets,
                                "sales.revenue": delta.revenue,
                                "sales.orders": delta.orders,
                                "sales.items": delta.items,
                                "sales.concessions": delta.concessions,
                            } },
                        )
                        .session(&mut *session)
                        .await?;
                }
                for ((cinema, hour), delta) in &buckets {
                    store
                        .collection::<Document>(names::CINEMA_SALES_HOURLY)
                        .update_one(
                            // `cinemaId` and `hour` beside `_id`: should the collection be
                            // sharded on them (docs/sharding.md), the upsert is targeted; an
                            // inserted bucket takes both from here.
                            doc! {
                                "_id": format!("{cinema}:{hour}"),
                                "cinemaId": cinema.oid(),
                                "hour": DateTime::from_millis(*hour),
                            },
                            doc! { "$inc": {
                                "tickets": delta.tickets,
                                "revenue": delta.revenue,
                                "orders": delta.orders,
                                "items": delta.items,
                                "concessions": delta.concessions,
                            } },
                        )
                        .upsert(true)
                        .session(&mut *session)
                        .await?;
                }
                Ok(true)
            })
        })
        .await
        .map(|done| done.then_some(moved))
    }
}
