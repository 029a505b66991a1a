//! Giving sold seats back (a refund, an order's or a showtime's cancellation): ONE conditional
//! update of the showtime's inventory, with the event the order's channel is told in it.

use bson::{doc, Bson, Document};

use super::{seat_path, VERSION};
use crate::channel_events::rules::EventType;
use crate::domain::ids::EventId;
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::documents::{EventDetailsDoc, OrderDoc, RefundDoc};
use crate::store::{new_entry, Store};

impl Store {
    /// Gives seats `labels` of `order` back: matches only while every one of them is SOLD
    /// under it and, unless `even_admitted` (a cancelled showtime refunds everyone), not
    /// admitted at the door. The order's channel is told, in the same update: ORDER_CANCELLED
    /// when `whole`, else ORDER_REFUNDED, with `refund` (none for an order cancelled before
    /// refunds were recorded). False when it did not match (they were given back already, or
    /// one was admitted).
    #[tracing::instrument(skip(self, order, refund), fields(order = %order.id))]
    pub async fn free_sold_seats(
        &self,
        order: &OrderDoc,
        labels: &[String],
        even_admitted: bool,
        refund: Option<&RefundDoc>,
        whole: bool,
    ) -> Result<bool, ApiError> {
        let mut filter = doc! { "_id": order.showtime.id.oid() };
        let mut set = Document::new();
        let mut unset = Document::new();
        for label in labels {
            filter.insert(seat_path(label, "state")?, "SOLD");
            filter.insert(seat_path(label, "order")?, order.id.oid());
            if even_admitted {
                unset.insert(seat_path(label, "admitted")?, Bson::String(String::new()));
            } else {
                filter.insert(seat_path(label, "admitted")?, doc! { "$exists": false });
            }
            set.insert(seat_path(label, "state")?, "AVAILABLE");
            unset.insert(seat_path(label, "order")?, Bson::String(String::new()));
        }
        let count = labels.len() as i64;
        // A refund of products only gives no seat back: its update only tells its event, and
        // leaves the version be (no seat map changed).
        let mut update = Document::new();
        if !labels.is_empty() {
            update.insert(
                "$inc",
                doc! { "counts.sold": -count, "counts.available": count, VERSION: 1 },
            );
            update.insert("$set", set);
            update.insert("$unset", unset);
        }
        let kind = match whole {
            true => EventType::OrderCancelled,
            false => EventType::OrderRefunded,
        };
        let reason = refund.map(|refund| refund.reason).or(order.cancel_reason);
        let details = EventDetailsDoc {
            showtime: Some(order.showtime.id),
            order: Some(order.id),
            seats: labels.to_vec(),
            refund: refund.map(|refund| refund.id),
            amount: refund.map(|refund| refund.amount),
            reason: reason.map(|reason| reason.as_str().to_owned()),
            ..Default::default()
        };
        let mut told = new_entry(kind, Some(&order.channel), details);
        if let Some(refund) = refund {
            // One event per refund, however often this runs (a refund of products only
            // matches every time): the log keeps one event per id.
            told.id = EventId(refund.id.0);
        }
        let freed = match (labels.is_empty(), !self.keeps_events()) {
            // Nothing to give back and no event kept (a benchmark's store): nothing to write.
            (true, true) => true,
            _ => {
                self.update_inventory_telling(order.showtime.id, filter, update, &[told])
                    .await?
            }
        };
        if freed && !labels.is_empty() {
            self.note_seats_freed(order.showtime.id, labels);
        }
        Ok(freed)
    }
}
