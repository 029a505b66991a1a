//! The inventory's store code: the only code that names `seat_inventory`. Every change to a
//! seat is ONE conditional update of its showtime's document whose filter checks the state
//! each seat it changes is assumed to be in (invariant 1); the counts and the version move in
//! the same update (invariant 5). One file per kind of change.

mod admissions;
mod blocks;
mod cancellation;
mod creation;
mod feed;
mod hold_extension;
mod holds;
mod outbox;
mod reads;
mod sales;
mod sold_seats;

use bson::{doc, Document};

use crate::domain::ids::ShowtimeId;
use crate::domain::layout::parse_seat_label;
use crate::error::ApiError;
use crate::store::command_metrics::Call;
use crate::store::documents::OutboxEntryDoc;
use crate::store::indexes::{index, Wanted};
use crate::store::{names, OutboxKind, OutboxSource, Store};

pub use admissions::AdmissionSeat;
pub use feed::{feed_clause, read_feed_change, FeedChange, HoldsSeen, InventoryUpdate};
pub use holds::HoldFence;

/// The collection: one document per showtime holding the state of every seat.
const COLLECTION: &str = names::SEAT_INVENTORY;

/// The inventory's version field: every update that changes seats adds one to it, in the same
/// update, so live seat maps can tell a missed change from a late one (`domain::seat_changes`).
const VERSION: &str = "version";

/// `seats.D.6.state`: seat D7's `field`. Row labels are capital letters, safe in a path.
fn seat_path(label: &str, field: &str) -> Result<String, ApiError> {
    let (row, number) = parse_seat_label(label)?;
    Ok(format!("seats.{row}.{}.{field}", number - 1))
}

/// The document `filter` names by `_id`, at its top or in one of the clauses of its top
/// `$and` (the filters of holds placed, sold, expired and extended, and of admissions, are
/// built so).
fn document_named(filter: &Document) -> Option<bson::oid::ObjectId> {
    filter.get_object_id("_id").ok().or_else(|| {
        (filter.get_array("$and").ok()?.iter())
            .find_map(|clause| clause.as_document()?.get_object_id("_id").ok())
    })
}

impl Store {
    /// The indexes the inventory's queries rely on: the sweeper's search for expired holds,
    /// and the relay's for outbox entries a dead gateway left.
    pub(crate) fn inventory_indexes() -> Vec<Wanted> {
        vec![
            index(COLLECTION, doc! { "holds.expiresAt": 1 }, "hold_expiry"),
            index(COLLECTION, doc! { "outbox.at": 1 }, "outbox"),
        ]
    }

    /// This process's turn to write the document `filter` names by `_id` (every seat change
    /// does): a hot showtime's writes reach the database one at a time per gateway.
    async fn inventory_turn(&self, filter: &Document) -> Option<crate::store::WriteTurn> {
        Some(self.write_turn(document_named(filter)?).await)
    }

    /// Runs one conditional update of an inventory document; true when it matched (and so
    /// changed every seat it names).
    async fn update_inventory(&self, filter: Document, update: Document) -> Result<bool, ApiError> {
        let _turn = self.inventory_turn(&filter).await;
        let result = self
            .bounded(
                Call::new(COLLECTION, "update"),
                self.collection::<Document>(COLLECTION)
                    .update_one(filter, update),
            )
            .await?;
        Ok(result.modified_count == 1)
    }

    /// One conditional update of `showtime`'s inventory that, when it matches, leaves
    /// `entries` in its outbox (and notes the document for the relay). True when it matched.
    ///
    /// With entries, the update returns the outbox as it left it (one `findAndModify`, no
    /// command more): the entries before this change's own are other changes', maybe another
    /// gateway's not relayed yet, and the relay appends them first, so that a document's
    /// events keep its order in the logs whichever gateway relays them (issue 48: five
    /// inversions in 9,271 pairs with two gateways when each appended only its own).
    async fn update_inventory_telling(
        &self,
        showtime: ShowtimeId,
        filter: Document,
        mut update: Document,
        entries: &[OutboxEntryDoc],
    ) -> Result<bool, ApiError> {
        #[derive(serde::Deserialize)]
        struct Outbox {
            #[serde(default)]
            outbox: Vec<OutboxEntryDoc>,
        }
        let entries = self.events_to_keep(entries);
        if entries.is_empty() {
            return self.update_inventory(filter, update).await;
        }
        crate::store::push_entries(&mut update, entries)?;
        let turn = self.inventory_turn(&filter).await;
        let left = self
            .bounded(
                Call::new(COLLECTION, "findAndModify"),
                self.collection::<Outbox>(COLLECTION)
                    .find_one_and_update(filter, update)
                    .projection(doc! { "_id": 0, "outbox": 1 })
                    .return_document(mongodb::options::ReturnDocument::After),
            )
            .await?;
        drop(turn);
        let Some(left) = left else {
            return Ok(false);
        };
        let source = OutboxSource {
            kind: OutboxKind::Inventory,
            showtime,
        };
        self.note_outbox_as_left(source, left.outbox, entries);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_takes_the_turn_of_the_document_its_filter_names_at_the_top_or_in_its_and() {
        let id = bson::oid::ObjectId::new();
        assert_eq!(document_named(&doc! { "_id": id, "version": 3 }), Some(id));
        let placed = doc! { "$and": [{ "_id": id }, { "holds.id": { "$ne": 1 } }] };
        assert_eq!(document_named(&placed), Some(id));
        assert_eq!(
            document_named(&doc! { "holds.expiresAt": { "$lt": 1 } }),
            None
        );
        assert_eq!(document_named(&doc! { "$and": [{ "version": 1 }] }), None);
    }
}
