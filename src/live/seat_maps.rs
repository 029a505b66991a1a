//! One subscriber of a showtime's seat map: the whole map first, then each change in version
//! order; a fresh whole map whenever it cannot be sure it has every change.

use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::broadcast::Receiver;

use super::{Live, SeatTopic, TopicEvent};
use crate::domain::ids::ShowtimeId;
use crate::domain::seat::{SeatCounts, SeatKind, SeatState};
use crate::domain::seat_changes::{step, SeatKinds, SeatMapChange, Step};
use crate::error::ApiError;
use crate::inventory::HoldsSeen;
use crate::store::documents::SeatMapDoc;

/// How long a subscriber waits before it reads its map again after a failed read.
const REREAD_AFTER: Duration = Duration::from_millis(500);

/// What a seat-map subscriber is sent.
#[derive(Debug, Clone)]
pub enum SeatMapUpdate {
    /// The whole map, at `version`.
    Snapshot(Arc<SeatMapDoc>),
    /// The seats one write changed, and the counts and version after it.
    Changes {
        version: u32,
        seats: Vec<ChangedSeat>,
        counts: SeatCounts,
        capacity: i32,
    },
}

/// A seat whose state changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedSeat {
    pub row: String,
    pub column: usize,
    pub state: SeatState,
    pub kind: SeatKind,
}

/// Where a subscriber's map is.
struct At {
    version: u32,
    counts: SeatCounts,
    capacity: i32,
}

struct Subscriber {
    live: Live,
    showtime: ShowtimeId,
    topic: Arc<SeatTopic>,
    receiver: Receiver<Arc<TopicEvent>>,
    /// None until the map is read, and again when it must be read afresh.
    at: Option<At>,
    /// Whether a map was ever sent: the first read's failure ends the subscription.
    started: bool,
    done: bool,
}

impl Live {
    /// The live seat map of `showtime`. The first item is the whole map (NOT_FOUND, and the
    /// end, when the showtime has none); then one item per write that changed its seats.
    pub fn seat_map(
        &self,
        showtime: ShowtimeId,
    ) -> impl Stream<Item = Result<SeatMapUpdate, ApiError>> + Send + 'static {
        self.start();
        let topic = self.seat_topic(showtime);
        // Listen before the map is read: a change made after the read is then never missed.
        let receiver = topic.sender.subscribe();
        let subscriber = Subscriber {
            live: self.clone(),
            showtime,
            topic,
            receiver,
            at: None,
            started: false,
            done: false,
        };
        futures::stream::unfold(subscriber, |mut subscriber| async move {
            let item = subscriber.next().await?;
            Some((item, subscriber))
        })
    }
}

impl Subscriber {
    async fn next(&mut self) -> Option<Result<SeatMapUpdate, ApiError>> {
        if self.done {
            return None;
        }
        loop {
            let Some(at) = &mut self.at else {
                // Listen afresh from here: the changes still queued are all in the map about
                // to be read, and left queued they could make this subscriber fall behind
                // again at once.
                self.receiver = self.receiver.resubscribe();
                match self.read_map().await {
                    Ok(map) => return Some(Ok(SeatMapUpdate::Snapshot(map))),
                    Err(error) if !self.started => {
                        self.done = true;
                        return Some(Err(error));
                    }
                    Err(error) => {
                        tracing::warn!(%error, showtime = %self.showtime, "reading a live seat map failed; retrying");
                        tokio::time::sleep(REREAD_AFTER).await;
                        continue;
                    }
                }
            };
            let event = match self.receiver.recv().await {
                Ok(event) => event,
                Err(RecvError::Lagged(missed)) => {
                    tracing::debug!(missed, showtime = %self.showtime, "a subscriber fell behind");
                    self.at = None;
                    continue;
                }
                Err(RecvError::Closed) => return None,
            };
            let TopicEvent::Change(change) = &*event else {
                self.at = None;
                continue;
            };
            let seats = match step(at.version, change) {
                Step::Stale => continue,
                Step::Gap => None,
                Step::Next => self
                    .topic
                    .kinds
                    .get()
                    .and_then(|kinds| changed_seats(kinds, change)),
            };
            let Some(seats) = seats else {
                self.at = None;
                continue;
            };
            at.version += 1;
            at.counts = change.counts.applied_to(at.counts);
            return Some(Ok(SeatMapUpdate::Changes {
                version: at.version,
                seats,
                counts: at.counts,
                capacity: at.capacity,
            }));
        }
    }

    /// Reads the whole map, once the feed is open (so no later change can be missed).
    async fn read_map(&mut self) -> Result<Arc<SeatMapDoc>, ApiError> {
        self.live.feed_opened().await?;
        let store = &self.live.inner.store;
        let mut map = store.live_seat_map(self.showtime).await?.ok_or_else(|| {
            ApiError::not_found(format!("showtime {} has no seat map", self.showtime))
        })?;
        self.topic.kinds.get_or_init(|| Arc::new(kinds_of(&map)));
        let holds = std::mem::take(&mut map.holds);
        self.live
            .inner
            .expiry
            .saw(self.showtime, HoldsSeen::Added(holds));
        self.at = Some(At {
            version: map.version,
            counts: map.counts,
            capacity: map.capacity,
        });
        self.started = true;
        Ok(Arc::new(map))
    }
}

fn kinds_of(map: &SeatMapDoc) -> SeatKinds {
    SeatKinds::new(
        map.seats
            .iter()
            .map(|(row, positions)| {
                let kinds = positions
                    .iter()
                    .map(|seat| seat.map(|seat| seat.kind))
                    .collect();
                (row.clone(), kinds)
            })
            .collect(),
    )
}

/// The change's seats with their kinds; None if one is not a seat of the hall.
fn changed_seats(kinds: &SeatKinds, change: &SeatMapChange) -> Option<Vec<ChangedSeat>> {
    change
        .seats
        .iter()
        .map(|seat| {
            Some(ChangedSeat {
                row: seat.row.clone(),
                column: seat.column,
                state: seat.state,
                kind: kinds.kind(&seat.row, seat.column)?,
            })
        })
        .collect()
}
