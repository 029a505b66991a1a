//! What a shared `seatMapChanged` (`http::websocket::fan_out`) must know of each event besides
//! its JSON: whether it is a whole map, where a subscriber joining late can start, or a
//! change, and its version. The resolver notes each event here as it comes out of the live
//! hub, before the schema resolves it, so the notes come in the order of the responses: the
//! n-th note is the n-th response's.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// What one event of a seat map subscription was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeatMapNote {
    /// The whole map, at this version.
    Snapshot(u32),
    /// The seats one write changed, bringing the map to this version.
    Change(u32),
    /// An error (the subscription ends with it).
    Failure,
}

/// The notes of one execution of `seatMapChanged`, in request data.
#[derive(Debug, Default)]
pub struct SeatMapTap {
    notes: Mutex<VecDeque<SeatMapNote>>,
}

impl SeatMapTap {
    pub fn new() -> Arc<Self> {
        Arc::default()
    }

    pub(crate) fn note(&self, note: SeatMapNote) {
        self.notes.lock().expect("tap lock").push_back(note);
    }

    /// The note of the next response; None for a response no event made (an operation
    /// refused before its stream began).
    pub fn next_note(&self) -> Option<SeatMapNote> {
        self.notes.lock().expect("tap lock").pop_front()
    }
}

/// Whether `request` is a subscription to `seatMapChanged` alone (one root field, without
/// directives): the one kind of operation subscribers asking the same thing can share, since
/// a subscriber joining late can start at its latest whole map. False as well for a request
/// the shape limits refuse (it runs alone, to be refused with its code).
pub fn shareable<Q: super::QueryRoot>(
    schema: &super::RootSchema<Q>,
    request: &mut async_graphql::Request,
) -> bool {
    use async_graphql::parser::types::{OperationType, Selection};
    super::with_operation(schema, request, |operation, _| {
        let [selection] = operation.selection_set.node.items.as_slice() else {
            return None;
        };
        let shareable = operation.ty == OperationType::Subscription
            && operation.directives.is_empty()
            && matches!(&selection.node, Selection::Field(field)
                if field.node.name.node == "seatMapChanged" && field.node.directives.is_empty());
        shareable.then_some(())
    })
    .is_some()
}
