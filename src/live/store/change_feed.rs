//! The change feed: ONE change stream over the database per gateway process, for live seat
//! maps, order events and channel events. It passes on the updates of the seat inventories
//! (what changed, read by `inventory` from the update's `updateDescription`, never the whole
//! document), the moves
//! of `orders` to CONFIRMED or CANCELLED and the events appended to `events`; the server
//! filters out everything else.
//!
//! A feed remembers its position (the resume token of the last event, or of the last empty
//! batch), so a feed re-opened after a hiccup misses nothing; when the server no longer knows
//! the position, opening from it fails with [`FeedOpenError::PositionLost`].

use bson::{doc, Document};
use futures::StreamExt;
use mongodb::change_stream::event::{ChangeStreamEvent, OperationType, ResumeToken};
use mongodb::change_stream::ChangeStream;

use crate::channel_events::EventDoc;
use crate::domain::ids::{OrderId, ShowtimeId};
use crate::error::ApiError;
use crate::inventory::{FeedChange, InventoryUpdate};
use crate::store::codec;
use crate::store::command_metrics::Call;
use crate::store::documents::OrderStatus;
use crate::store::{names, Store};

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

impl Store {
    /// Opens the change feed, from `from` when given (else from now).
    #[tracing::instrument(skip(self, from), fields(resuming = from.is_some()))]
    pub(in crate::live) async fn open_change_feed(
        &self,
        from: Option<&FeedPosition>,
    ) -> Result<ChangeFeed, FeedOpenError> {
        let pipeline = [doc! { "$match": { "$or": [
            crate::inventory::feed_clause(),
            {
                "ns.coll": names::ORDERS,
                "operationType": "update",
                "updateDescription.updatedFields.status": { "$in": ["CONFIRMED", "CANCELLED"] },
            },
            { "ns.coll": names::EVENTS, "operationType": "insert" },
        ] } }];
        let watch = self
            .db()
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

fn read_event(mut event: ChangeStreamEvent<Document>) -> Option<FeedEvent> {
    if let Some(change) = crate::inventory::read_feed_change(&mut event) {
        return Some(match change {
            FeedChange::Updated(update) => FeedEvent::Inventory(update),
            FeedChange::Rewritten(showtime) => FeedEvent::InventoryRewritten(showtime),
        });
    }
    let collection = event.ns.as_ref()?.coll.as_deref()?;
    if let (names::EVENTS, OperationType::Insert) = (collection, &event.operation_type) {
        let appended = bson::from_document(event.full_document?).ok()?;
        return Some(FeedEvent::Event(Box::new(appended)));
    }
    let id = event.document_key.as_ref()?.get_object_id("_id").ok()?;
    match (collection, event.operation_type) {
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
