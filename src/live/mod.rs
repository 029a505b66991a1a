//! Live seat maps and order events. Each gateway process reads ONE change feed from the
//! database (`store::ChangeFeed`, a change stream; the inventory reads its own changes off it), whatever wrote the change, and fans it out:
//! per showtime to the subscribers of its seat map, per channel to the subscribers of its
//! orders. Nothing is sent between gateways; the database is the only source.
//!
//! Ordering: a topic's events are sent in the feed's order, which is the order the writes
//! were applied; every seat write also adds one to the inventory's `version`, so a subscriber
//! knows the version of every change and notices any it missed (`domain::seat_changes`). A
//! subscriber that misses one (it fell behind, or the feed could not resume from where it
//! was) reads the whole map again instead: a fresh map, never a gap.
//!
//! Channel events (`events`) are read from the channel's log, then followed on the feed; a
//! subscriber that misses one reads the log again from where it was: never a gap, never a
//! repeat.
//!
//! Holds of watched showtimes expire on time (`expiry`), not at the next sweep.

mod events;
mod expiry;
pub use expiry::ExpireOnTime;
mod feed;
pub mod graphql;
mod orders;
mod seat_maps;
pub mod store;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, watch};

pub use orders::OrderEvent;
pub use seat_maps::{ChangedSeat, SeatMapUpdate};

use crate::domain::ids::{OrderId, ShowtimeId};
use crate::domain::seat_changes::{SeatKinds, SeatMapChange};
use crate::error::ApiError;
use crate::store::documents::OrderStatus;
use crate::store::Store;
use store::FeedEvent;

/// How long a new subscriber waits for the change feed to open before it is told UNAVAILABLE.
const FEED_OPEN_WAIT: Duration = Duration::from_secs(5);
/// Order moves waiting for their order to be read; past it, order subscribers are told they
/// missed some.
const ORDER_LOOKUP_QUEUE: usize = 4096;

/// The process's live hub; cheap to clone.
#[derive(Clone)]
pub struct Live {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    /// How many events a subscriber may fall behind (per topic).
    buffer: usize,
    seat_topics: Mutex<HashMap<ShowtimeId, Weak<SeatTopic>>>,
    order_topics: Mutex<HashMap<String, Weak<OrderTopic>>>,
    event_topics: Mutex<HashMap<String, Weak<events::EventTopic>>>,
    /// Whether the change feed is open now.
    feed_open: watch::Sender<bool>,
    /// The background tasks, started by the first subscriber.
    started: OnceLock<mpsc::Sender<(OrderId, OrderStatus)>>,
    expiry: Arc<expiry::Expiry>,
    /// How a watched hold is expired on time (`assembly`: the holds' expiry).
    expire: Arc<dyn expiry::ExpireOnTime>,
}

/// What a showtime's subscribers are sent.
#[derive(Debug)]
enum TopicEvent {
    Change(SeatMapChange),
    /// Changes may have been missed: read the whole map again.
    Reset,
}

/// The subscribers of one showtime's seat map.
struct SeatTopic {
    sender: broadcast::Sender<Arc<TopicEvent>>,
    /// The kinds of the showtime's seats, from the first map read (kinds never change).
    kinds: OnceLock<Arc<SeatKinds>>,
}

/// The subscribers of one channel's orders.
struct OrderTopic {
    sender: broadcast::Sender<Arc<Option<OrderEvent>>>,
}

impl Live {
    /// The live feeds of `store`, `buffer` events deep per subscriber, expiring watched holds
    /// on time with `expire`.
    pub fn new(store: Store, buffer: usize, expire: Arc<dyn ExpireOnTime>) -> Self {
        Live {
            inner: Arc::new(Inner {
                store,
                buffer: buffer.max(1),
                seat_topics: Mutex::default(),
                order_topics: Mutex::default(),
                event_topics: Mutex::default(),
                feed_open: watch::Sender::new(false),
                started: OnceLock::new(),
                expiry: Arc::default(),
                expire,
            }),
        }
    }

    /// How many seat-map, order and channel-event subscriptions this process serves now.
    pub fn subscriptions(&self) -> usize {
        let seats: usize = live_topics(&self.inner.seat_topics)
            .iter()
            .map(|topic| topic.sender.receiver_count())
            .sum();
        let orders: usize = live_topics(&self.inner.order_topics)
            .iter()
            .map(|topic| topic.sender.receiver_count())
            .sum();
        let events: usize = live_topics(&self.inner.event_topics)
            .iter()
            .map(|topic| topic.sender.receiver_count())
            .sum();
        seats + orders + events
    }

    /// Starts the change feed, the order reader and the expiry timer, once.
    fn start(&self) {
        self.inner.started.get_or_init(|| {
            let weak = Arc::downgrade(&self.inner);
            let (lookups, queue) = mpsc::channel(ORDER_LOOKUP_QUEUE);
            tokio::spawn(feed::run(weak.clone()));
            tokio::spawn(orders::run_lookups(weak.clone(), queue));
            tokio::spawn(expiry::run(weak, Arc::clone(&self.inner.expiry)));
            lookups
        });
    }

    /// Waits until the change feed is open: a map read after this misses no later change.
    async fn feed_opened(&self) -> Result<(), ApiError> {
        let mut open = self.inner.feed_open.subscribe();
        let opened = tokio::time::timeout(FEED_OPEN_WAIT, open.wait_for(|open| *open))
            .await
            .is_ok_and(|opened| opened.is_ok());
        if opened {
            Ok(())
        } else {
            Err(ApiError::unavailable(
                "the database's change stream is not open; subscribe again in a moment",
            ))
        }
    }

    fn seat_topic(&self, showtime: ShowtimeId) -> Arc<SeatTopic> {
        let buffer = self.inner.buffer;
        topic(&self.inner.seat_topics, showtime, || SeatTopic {
            sender: broadcast::Sender::new(buffer),
            kinds: OnceLock::new(),
        })
    }

    fn order_topic(&self, channel: &str) -> Arc<OrderTopic> {
        let buffer = self.inner.buffer;
        topic(&self.inner.order_topics, channel.to_owned(), || {
            OrderTopic {
                sender: broadcast::Sender::new(buffer),
            }
        })
    }
}

impl Inner {
    /// Passes one change of the feed to whoever watches it.
    fn dispatch(&self, event: FeedEvent) {
        match event {
            FeedEvent::Inventory(update) => {
                let Some(topic) = watched(&self.seat_topics, &update.showtime) else {
                    return;
                };
                if let Some(holds) = update.holds() {
                    self.expiry.saw(update.showtime, holds);
                }
                let change = update.seat_change();
                if change.touches_seats() {
                    // No receiver is not an error: they may all have just left.
                    let _ = topic.sender.send(Arc::new(TopicEvent::Change(change)));
                }
            }
            FeedEvent::InventoryRewritten(showtime) => {
                if let Some(topic) = watched(&self.seat_topics, &showtime) {
                    let _ = topic.sender.send(Arc::new(TopicEvent::Reset));
                }
            }
            FeedEvent::Order { id, status } => {
                if !any_watched(&self.order_topics) {
                    return;
                }
                let Some(lookups) = self.started.get() else {
                    return;
                };
                if lookups.try_send((id, status)).is_err() {
                    tracing::warn!("order events queue is full: order subscribers are told");
                    self.reset_orders();
                }
            }
            FeedEvent::Event(event) => {
                if let Some(topic) = watched(&self.event_topics, &event.channel) {
                    let _ = topic.sender.send(Arc::new(Some((*event).into())));
                }
            }
        }
    }

    /// The feed could not resume where it was: every subscriber may have missed changes.
    fn reset_all(&self) {
        for topic in live_topics(&self.seat_topics) {
            let _ = topic.sender.send(Arc::new(TopicEvent::Reset));
        }
        self.reset_orders();
        for topic in live_topics(&self.event_topics) {
            let _ = topic.sender.send(Arc::new(None));
        }
    }

    fn reset_orders(&self) {
        for topic in live_topics(&self.order_topics) {
            let _ = topic.sender.send(Arc::new(None));
        }
    }
}

/// The topic under `key`, made when there is none (or only a dead one).
fn topic<K: std::hash::Hash + Eq, T>(
    topics: &Mutex<HashMap<K, Weak<T>>>,
    key: K,
    make: impl FnOnce() -> T,
) -> Arc<T> {
    let mut topics = topics.lock().expect("topics lock");
    if let Some(topic) = topics.get(&key).and_then(Weak::upgrade) {
        return topic;
    }
    // Forget the topics nobody watches any more, now and then (not on every call).
    if topics.len() >= 64 && topics.len().is_power_of_two() {
        topics.retain(|_, topic| topic.strong_count() > 0);
    }
    let topic = Arc::new(make());
    topics.insert(key, Arc::downgrade(&topic));
    topic
}

/// The topic under `key` if someone watches it.
fn watched<K: std::hash::Hash + Eq, T>(
    topics: &Mutex<HashMap<K, Weak<T>>>,
    key: &K,
) -> Option<Arc<T>> {
    let mut topics = topics.lock().expect("topics lock");
    let topic = topics.get(key)?.upgrade();
    if topic.is_none() {
        topics.remove(key);
    }
    topic
}

/// Whether anyone watches any topic.
fn any_watched<K, T>(topics: &Mutex<HashMap<K, Weak<T>>>) -> bool {
    let topics = topics.lock().expect("topics lock");
    topics.values().any(|topic| topic.strong_count() > 0)
}

/// Every topic someone watches.
fn live_topics<K, T>(topics: &Mutex<HashMap<K, Weak<T>>>) -> Vec<Arc<T>> {
    let topics = topics.lock().expect("topics lock");
    topics.values().filter_map(Weak::upgrade).collect()
}
