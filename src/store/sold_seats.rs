//! The two seat writes of an order: selling a hold's seats to it, and giving them back when it
//! is cancelled. Each is ONE atomic update of the showtime's inventory document (invariant 1),
//! and that update is the moment the order takes effect: the inventory document is the
//! authority on which seats an order holds (invariant 6, see `orders`).

use bson::{doc, Bson, Document};

use super::codec::ObjectIdExt;
use super::documents::{HoldDoc, OrderDoc};
use super::holds::{end_hold, seat_path, with_expiry, VERSION};
use super::Store;
use crate::domain::ids::{OrderId, ShowtimeId};
use crate::domain::seat::SeatState;
use crate::error::ApiError;

impl Store {
    /// Sells the seats of `hold` to `order`: matches only while the hold's entry is there (id,
    /// channel, creation), unexpired by the database's clock, and every one of its seats is
    /// HELD by it, and the showtime is not cancelled (a cancellation releases every hold it
    /// finds after marking the inventory: no sale may begin after the mark). False when it did
    /// not match.
    #[tracing::instrument(skip(self, hold), fields(hold = %hold.id))]
    pub async fn sell_hold(
        &self,
        showtime: ShowtimeId,
        hold: &HoldDoc,
        order: OrderId,
    ) -> Result<bool, ApiError> {
        self.delay_point(super::DelayPoint::ConfirmBeforeSell).await;
        let (seats, update) = end_hold(hold, SeatState::Sold, Some(order))?;
        let mut filter = with_expiry(showtime, hold, "$gt");
        filter.extend(seats);
        filter.insert("cancelled", doc! { "$ne": true });
        self.update_inventory(filter, update).await
    }

    /// Gives the seats of `order` back: matches only while every one of them is SOLD under it.
    /// False when it did not match (they were given back already).
    #[tracing::instrument(skip(self, order), fields(order = %order.id))]
    pub async fn free_sold_seats(&self, order: &OrderDoc) -> Result<bool, ApiError> {
        let mut filter = doc! { "_id": order.showtime.id.oid() };
        let mut set = Document::new();
        let mut unset = Document::new();
        for seat in &order.seats {
            filter.insert(seat_path(&seat.label, "state")?, "SOLD");
            filter.insert(seat_path(&seat.label, "order")?, order.id.oid());
            set.insert(seat_path(&seat.label, "state")?, "AVAILABLE");
            unset.insert(
                seat_path(&seat.label, "order")?,
                Bson::String(String::new()),
            );
        }
        let count = order.seats.len() as i64;
        let update = doc! {
            "$set": set,
            "$unset": unset,
            "$inc": { "counts.sold": -count, "counts.available": count, VERSION: 1 },
        };
        self.update_inventory(filter, update).await
    }
}
