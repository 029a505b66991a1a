//! What a shared `seatMapChanged` (`http::websocket::fan_out`) must know of each event besides
//! its JSON: whether it is a whole map, where a subscriber joining late can start, or a
//! change, and its version. The resolver notes each event here as it comes out of the live
//! hub, before the schema resolves it, so the notes come in the order of the responses: the
//! n-th note is the n-th response's. Which requests may share one, `schema::ServedSchema`
//! says (`shareable`).

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
