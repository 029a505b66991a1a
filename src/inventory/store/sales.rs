//! Selling a hold's seats to an order (giving them back is in `sold_seats`): ONE atomic update
//! of the showtime's inventory document (invariant 1), and that update is the moment the order
//! takes effect: the inventory document is the authority on which seats an order holds
//! (invariant 6, see `orders`).

use bson::{doc, Document};

use super::holds::{end_hold, hold_event, hold_expiry, with_expiry};
use super::VERSION;
use crate::channel_events::rules::EventType;
use crate::domain::ids::{OrderId, ShowtimeId};
use crate::domain::seat::SeatState;
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
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

    /// Sells the holds of `sales` to their orders in one update, all or none, on the same
    /// conditions as [`Store::sell_hold`] for each: the group commit of one showtime's
    /// confirmations (`orders::confirm_batch`). One seat change (`version` moves by one), one
    /// event per order. False when it did not match (some hold has expired or is gone: the
    /// caller sells them one by one to learn which).
    #[tracing::instrument(skip_all, fields(sales = sales.len()))]
    pub async fn sell_holds(
        &self,
        showtime: ShowtimeId,
        sales: &[(&HoldDoc, OrderId)],
    ) -> Result<bool, ApiError> {
        if let [(hold, order)] = sales {
            return self.sell_hold(showtime, hold, *order).await;
        }
        self.delay_point(DelayPoint::ConfirmBeforeSell).await;
        // Each hold's conditions, side by side: its entry and expiry in `$and` (one `holds`
        // key each), its seats' paths (distinct) beside them.
        let mut all = vec![doc! { "_id": showtime.oid() }];
        let mut filter = Document::new();
        let (mut set, mut unset) = (Document::new(), Document::new());
        let (mut ids, mut count, mut told) = (Vec::new(), 0, Vec::new());
        for (hold, order) in sales {
            let (conditions, update) = end_hold(hold, SeatState::Sold, Some(*order))?;
            all.push(hold_expiry(hold.id, "$gt"));
            for (key, value) in conditions {
                match key.as_str() {
                    "holds" => all.push(doc! { key: value }),
                    _ if filter.contains_key(&key) => {
                        return Err(ApiError::internal(format!(
                            "two holds of one batch name {key}"
                        )))
                    }
                    _ => {
                        filter.insert(key, value);
                    }
                }
            }
            set.extend(update.get_document("$set").cloned().unwrap_or_default());
            unset.extend(update.get_document("$unset").cloned().unwrap_or_default());
            ids.push(hold.id.oid());
            count += hold.seats.len() as i64;
            told.push(hold_event(
                EventType::OrderConfirmed,
                showtime,
                hold,
                Some(*order),
            ));
        }
        filter.insert("$and", all);
        filter.insert("cancelled", doc! { "$ne": true });
        let update = doc! {
            "$set": set,
            "$unset": unset,
            // Only the entries the filter matched (hold ids are unique).
            "$pull": { "holds": { "id": { "$in": ids } } },
            "$inc": { "counts.held": -count, "counts.sold": count, VERSION: 1 },
        };
        self.update_inventory_telling(showtime, filter, update, &told)
            .await
    }
}
