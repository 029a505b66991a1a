//! Selling a hold's seats to an order (giving them back is in `sold_seats`): ONE atomic update
//! of the showtime's inventory document (invariant 1), and that update is the moment the order
//! takes effect: the inventory document is the authority on which seats an order holds
//! (invariant 6, see `orders`).

use bson::doc;

use super::holds::{end_hold, hold_event, with_expiry};
use crate::channel_events::rules::EventType;
use crate::domain::ids::{OrderId, ShowtimeId};
use crate::domain::seat::SeatState;
use crate::error::ApiError;
use crate::store::documents::HoldDoc;
use crate::store::{DelayPoint, Store};

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
        self.delay_point(DelayPoint::ConfirmBeforeSell).await;
        let (seats, update) = end_hold(hold, SeatState::Sold, Some(order))?;
        let mut filter = with_expiry(showtime, hold, "$gt");
        filter.extend(seats);
        filter.insert("cancelled", doc! { "$ne": true });
        let told = hold_event(EventType::OrderConfirmed, showtime, hold, Some(order));
        self.update_inventory_telling(showtime, filter, update, &[told])
            .await
    }
}
