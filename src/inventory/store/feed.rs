//! The inventory's part of the change feed (`live` opens it): which of its changes the server
//! passes on, and what an update did to the seat map and the holds, read from the update's
//! `updateDescription` (never the whole document).

use bson::{doc, Bson, Document};
use mongodb::change_stream::event::{ChangeStreamEvent, OperationType};

use super::{COLLECTION, VERSION};
use crate::domain::ids::ShowtimeId;
use crate::domain::seat::SeatState;
use crate::domain::seat_changes::{CountsPatch, SeatDelta, SeatMapChange};
use crate::store::codec;
use crate::store::documents::HoldDoc;

/// A change of an inventory the feed passes on.
#[derive(Debug)]
pub enum FeedChange {
    /// An update of a showtime's seat inventory.
    Updated(InventoryUpdate),
    /// A showtime's inventory was replaced or deleted: what changed is not known.
    Rewritten(ShowtimeId),
}

/// The fields one update of an inventory set, read only when someone wants them.
#[derive(Debug)]
pub struct InventoryUpdate {
    pub showtime: ShowtimeId,
    updated: Document,
}

/// What an update said of the showtime's live holds.
#[derive(Debug, Clone, PartialEq)]
pub enum HoldsSeen {
    /// The whole list of live holds after the update.
    All(Vec<HoldDoc>),
    /// Holds the update added (others may be there too).
    Added(Vec<HoldDoc>),
}

/// The `$match` clause (one branch of the feed's `$or`) that keeps the inventories' updates,
/// replacements and deletions.
pub fn feed_clause() -> Document {
    doc! {
        "ns.coll": COLLECTION,
        "operationType": { "$in": ["update", "replace", "delete"] },
    }
}

/// The inventory change `event` is, if it is one (its update description is then taken out
/// of it, not copied).
pub fn read_feed_change(event: &mut ChangeStreamEvent<Document>) -> Option<FeedChange> {
    if event.ns.as_ref()?.coll.as_deref()? != COLLECTION {
        return None;
    }
    let id = codec::id_of(event.document_key.as_ref()?.get_object_id("_id").ok()?);
    match event.operation_type {
        OperationType::Update => Some(FeedChange::Updated(InventoryUpdate {
            showtime: id,
            updated: event.update_description.take()?.updated_fields,
        })),
        OperationType::Replace | OperationType::Delete => Some(FeedChange::Rewritten(id)),
        _ => None,
    }
}

impl InventoryUpdate {
    /// What the update did to the seat map: the seats whose state it set, the counts it
    /// moved, the version it wrote. Seats set in a form not understood here make the change
    /// `unreadable` (a subscriber then reads the whole map).
    pub fn seat_change(&self) -> SeatMapChange {
        let mut change = SeatMapChange::default();
        for (path, value) in &self.updated {
            let mut parts = path.split('.');
            match (parts.next(), parts.next(), parts.next(), parts.next()) {
                (Some(VERSION), None, ..) => change.version = as_u32(value),
                (Some("counts"), None, ..) => read_counts(value, &mut change),
                (Some("counts"), Some(state), None, _) => set_count(state, value, &mut change),
                (Some("seats"), Some(row), Some(column), Some("state"))
                    if parts.next().is_none() =>
                {
                    seat_state(row, column, value, &mut change)
                }
                // Who holds or bought a seat, and its admission at the door, are not shown.
                (Some("seats"), Some(_), Some(_), Some("hold" | "order" | "admitted")) => {}
                (Some("seats"), ..) => change.unreadable = true,
                _ => {}
            }
        }
        change
    }

    /// The holds the update wrote, if it wrote any: all of them when it set the whole list,
    /// else those it appended (`holds.7`).
    pub fn holds(&self) -> Option<HoldsSeen> {
        let mut added = Vec::new();
        for (path, value) in &self.updated {
            match path.split_once('.') {
                None if path == "holds" => {
                    let all = bson::from_bson::<Vec<HoldDoc>>(value.clone()).ok()?;
                    return Some(HoldsSeen::All(all));
                }
                Some(("holds", index)) if index.parse::<usize>().is_ok() => {
                    added.extend(bson::from_bson::<HoldDoc>(value.clone()).ok());
                }
                _ => {}
            }
        }
        (!added.is_empty()).then_some(HoldsSeen::Added(added))
    }
}

fn as_u32(value: &Bson) -> Option<u32> {
    match value {
        Bson::Int32(n) => u32::try_from(*n).ok(),
        Bson::Int64(n) => u32::try_from(*n).ok(),
        Bson::Double(n) if n.fract() == 0.0 && *n >= 0.0 => Some(*n as u32),
        _ => None,
    }
}

fn read_counts(value: &Bson, change: &mut SeatMapChange) {
    match value.as_document() {
        Some(counts) => {
            for (state, count) in counts {
                set_count(state, count, change);
            }
        }
        None => change.unreadable = true,
    }
}

fn set_count(state: &str, value: &Bson, change: &mut SeatMapChange) {
    let counts: &mut CountsPatch = &mut change.counts;
    let slot = match state {
        "available" => &mut counts.available,
        "held" => &mut counts.held,
        "sold" => &mut counts.sold,
        "blocked" => &mut counts.blocked,
        _ => return,
    };
    match as_u32(value) {
        Some(count) => *slot = Some(count),
        None => change.unreadable = true,
    }
}

fn seat_state(row: &str, column: &str, value: &Bson, change: &mut SeatMapChange) {
    let state = bson::from_bson::<SeatState>(value.clone()).ok();
    match (column.parse::<usize>(), state) {
        (Ok(column), Some(state)) => change.seats.push(SeatDelta {
            row: row.to_owned(),
            column,
            state,
        }),
        _ => change.unreadable = true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{new_id, now};

    fn update(updated: Document) -> InventoryUpdate {
        InventoryUpdate {
            showtime: new_id(),
            updated,
        }
    }

    #[test]
    fn a_hold_reads_as_its_seats_counts_and_version() {
        let change = update(doc! {
            "counts.available": 8, "counts.held": 2, "version": 5,
            "seats.A.0.state": "HELD", "seats.A.0.hold": bson::oid::ObjectId::new(),
            "seats.B.3.state": "HELD", "holds": [],
        })
        .seat_change();
        assert_eq!(change.version, Some(5));
        assert_eq!(
            (change.counts.available, change.counts.held),
            (Some(8), Some(2))
        );
        assert_eq!(change.counts.sold, None);
        let seats: Vec<_> = change
            .seats
            .iter()
            .map(|s| (s.row.as_str(), s.column, s.state))
            .collect();
        assert_eq!(
            seats,
            [("A", 0, SeatState::Held), ("B", 3, SeatState::Held)]
        );
        assert!(!change.unreadable);
    }

    #[test]
    fn seats_set_as_whole_cells_rows_or_maps_make_the_change_unreadable() {
        for path in ["seats.A.0", "seats.A", "seats"] {
            let change = update(doc! { path: Bson::Null, "version": 2 }).seat_change();
            assert!(change.unreadable, "{path}");
        }
        let bad_state = update(doc! { "seats.A.0.state": "GONE" }).seat_change();
        assert!(bad_state.unreadable);
    }

    #[test]
    fn updates_of_other_fields_touch_no_seat_map() {
        let change =
            update(doc! { "fencedHolds": [bson::oid::ObjectId::new()], "releasedHolds": [] })
                .seat_change();
        assert!(!change.touches_seats());
    }

    #[test]
    fn holds_are_read_whole_or_as_appended_entries() {
        let hold = HoldDoc {
            id: new_id(),
            channel: "maoyan".into(),
            seats: vec!["A1".into()],
            kinds: vec![crate::domain::seat::SeatKind::Standard],
            ticket_types: vec![crate::domain::pricing::TicketType::adult()],
            amounts: vec![4000],
            created_at: now(),
            expires_at: now(),
            extended_by: None,
            voucher: None,
            items: Vec::new(),
            offer: None,
        };
        let entry = bson::to_bson(&hold).unwrap();
        let whole = update(doc! { "holds": [entry.clone()] }).holds();
        assert_eq!(whole, Some(HoldsSeen::All(vec![hold.clone()])));
        let appended = update(doc! { "holds.3": entry }).holds();
        assert_eq!(appended, Some(HoldsSeen::Added(vec![hold])));
        assert_eq!(update(doc! { "version": 1 }).holds(), None);
    }
}
