//! The change feed: ONE change stream over the database per gateway process, for live seat
//! maps, order events and channel events. It passes on the updates of `seat_inventory` (what
//! changed, read from the update's `updateDescription`, never the whole document), the moves
//! of `orders` to CONFIRMED or CANCELLED and the events appended to `events`; the server
//! filters out everything else.
//!
//! A feed remembers its position (the resume token of the last event, or of the last empty
//! batch), so a feed re-opened after a hiccup misses nothing; when the server no longer knows
//! the position, opening from it fails with [`FeedOpenError::PositionLost`].

use bson::{doc, Bson, Document};
use futures::StreamExt;
use mongodb::change_stream::event::{ChangeStreamEvent, OperationType, ResumeToken};
use mongodb::change_stream::ChangeStream;

use super::codec;
use super::command_metrics::Call;
use super::documents::{EventDoc, HoldDoc, OrderStatus};
use super::holds::VERSION;
use super::{names, Store};
use crate::domain::ids::{OrderId, ShowtimeId};
use crate::domain::seat::SeatState;
use crate::domain::seat_changes::{CountsPatch, SeatDelta, SeatMapChange};
use crate::error::ApiError;

/// An open change stream.
pub struct ChangeFeed {
    stream: ChangeStream<ChangeStreamEvent<Document>>,
}

/// Where a feed had got to: open a new one from here to miss nothing.
#[derive(Debug, Clone)]
pub struct FeedPosition(ResumeToken);

/// Why a feed could not be opened.
#[derive(Debug)]
pub enum FeedOpenError {
    /// The server no longer knows the position (its history moved on, or the token is not
    /// one of its own): changes since then may be lost.
    PositionLost(ApiError),
    /// The server could not be reached or refused for another reason: try again later.
    Failed(ApiError),
}

/// One change the feed passes on.
#[derive(Debug)]
pub enum FeedEvent {
    /// An update of a showtime's seat inventory.
    Inventory(InventoryUpdate),
    /// A showtime's inventory was replaced or deleted: what changed is not known.
    InventoryRewritten(ShowtimeId),
    /// An order moved to CONFIRMED or CANCELLED.
    Order { id: OrderId, status: OrderStatus },
    /// An event was appended to a channel's log.
    Event(Box<EventDoc>),
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

impl Store {
    /// Opens the change feed, from `from` when given (else from now).
    #[tracing::instrument(skip(self, from), fields(resuming = from.is_some()))]
    pub async fn open_change_feed(
        &self,
        from: Option<&FeedPosition>,
    ) -> Result<ChangeFeed, FeedOpenError> {
        let pipeline = [doc! { "$match": { "$or": [
            {
                "ns.coll": names::SEAT_INVENTORY,
                "operationType": { "$in": ["update", "replace", "delete"] },
            },
            {
                "ns.coll": names::ORDERS,
                "operationType": "update",
                "updateDescription.updatedFields.status": { "$in": ["CONFIRMED", "CANCELLED"] },
            },
            { "ns.coll": names::EVENTS, "operationType": "insert" },
        ] } }];
        let watch = self
            .db
            .watch()
            .pipeline(pipeline)
            .resume_after(from.map(|position| position.0.clone()));
        match self
            .bounded_raw(Call::new("none", "changeStream"), watch)
            .await
        {
            Ok(Ok(stream)) => Ok(ChangeFeed { stream }),
            Ok(Err(error)) if from.is_some() && is_refusal(&error) => {
                Err(FeedOpenError::PositionLost(error.into()))
            }
            Ok(Err(error)) => Err(FeedOpenError::Failed(error.into())),
            Err(timeout) => Err(FeedOpenError::Failed(timeout)),
        }
    }
}

/// Whether the server answered and said no (rather than not answering).
fn is_refusal(error: &mongodb::error::Error) -> bool {
    matches!(&*error.kind, mongodb::error::ErrorKind::Command(_))
        && !matches!(ApiError::from(error.clone()), ApiError::Unavailable(_))
}

impl ChangeFeed {
    /// The next change worth passing on; waits until there is one. An error means the feed
    /// is broken: open a new one from [`ChangeFeed::position`].
    pub async fn next(&mut self) -> Result<FeedEvent, ApiError> {
        loop {
            let event = match self.stream.next().await {
                Some(event) => event?,
                None => return Err(ApiError::unavailable("the change stream was closed")),
            };
            if let Some(event) = read_event(event) {
                return Ok(event);
            }
        }
    }

    /// Where the feed has got to (also past events the server filtered out).
    pub fn position(&self) -> Option<FeedPosition> {
        self.stream.resume_token().map(FeedPosition)
    }
}

fn read_event(event: ChangeStreamEvent<Document>) -> Option<FeedEvent> {
    let collection = event.ns.as_ref()?.coll.as_deref()?;
    if let (names::EVENTS, OperationType::Insert) = (collection, &event.operation_type) {
        let appended = bson::from_document(event.full_document?).ok()?;
        return Some(FeedEvent::Event(Box::new(appended)));
    }
    let id = event.document_key.as_ref()?.get_object_id("_id").ok()?;
    match (collection, event.operation_type) {
        (names::SEAT_INVENTORY, OperationType::Update) => {
            Some(FeedEvent::Inventory(InventoryUpdate {
                showtime: codec::id_of(id),
                updated: event.update_description?.updated_fields,
            }))
        }
        (names::SEAT_INVENTORY, OperationType::Replace | OperationType::Delete) => {
            Some(FeedEvent::InventoryRewritten(codec::id_of(id)))
        }
        (names::ORDERS, OperationType::Update) => {
            let status = event
                .update_description?
                .updated_fields
                .get("status")?
                .clone();
            Some(FeedEvent::Order {
                id: codec::id_of(id),
                status: bson::from_bson(status).ok()?,
            })
        }
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
            kinds: vec![],
            ticket_types: Vec::new(),
            amounts: vec![4000],
            unit_price: None,
            created_at: now(),
            expires_at: now(),
            extended_by: None,
        };
        let entry = bson::to_bson(&hold).unwrap();
        let whole = update(doc! { "holds": [entry.clone()] }).holds();
        assert_eq!(whole, Some(HoldsSeen::All(vec![hold.clone()])));
        let appended = update(doc! { "holds.3": entry }).holds();
        assert_eq!(appended, Some(HoldsSeen::Added(vec![hold])));
        assert_eq!(update(doc! { "version": 1 }).holds(), None);
    }
}
