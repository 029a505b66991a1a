//! Order events: the feed says which order moved to CONFIRMED or CANCELLED; a task of its own
//! reads each such order (in the feed's order, off the feed's task so seat maps never wait
//! for it) and sends it to the subscribers of the order's channel.

use std::sync::{Arc, Weak};

use futures::Stream;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;

use super::{watched, Inner, Live};
use crate::domain::ids::OrderId;
use crate::error::ApiError;
use crate::store::documents::{OrderDoc, OrderStatus};

/// An order of the channel moved to `status`; `order` is the order as read just after.
#[derive(Debug, Clone)]
pub struct OrderEvent {
    pub status: OrderStatus,
    pub order: OrderDoc,
}

impl Live {
    /// The orders of `channel` as they are confirmed or cancelled, from now on. Ends with
    /// UNAVAILABLE when events may have been missed (the subscriber fell behind, or the feed
    /// could not resume): the client reads `orders` and subscribes again.
    pub fn orders(
        &self,
        channel: &str,
    ) -> impl Stream<Item = Result<OrderEvent, ApiError>> + Send + 'static {
        self.start();
        let topic = self.order_topic(channel);
        let receiver = topic.sender.subscribe();
        futures::stream::unfold(Some((topic, receiver)), |state| async move {
            let (topic, mut receiver) = state?;
            let missed = || {
                ApiError::unavailable(
                    "order events may have been missed: read `orders`, then subscribe again",
                )
            };
            match receiver.recv().await {
                Ok(event) => match &*event {
                    Some(event) => Some((Ok(event.clone()), Some((topic, receiver)))),
                    None => Some((Err(missed()), None)),
                },
                Err(RecvError::Lagged(_)) => Some((Err(missed()), None)),
                Err(RecvError::Closed) => None,
            }
        })
    }
}

/// Reads the orders the feed names and sends them on, until the hub is dropped.
pub(super) async fn run_lookups(
    hub: Weak<Inner>,
    mut queue: mpsc::Receiver<(OrderId, OrderStatus)>,
) {
    while let Some((id, status)) = queue.recv().await {
        let Some(store) = hub.upgrade().map(|hub| hub.store.clone()) else {
            return;
        };
        let order = match store.orders_by_ids(&[id]).await {
            Ok(mut found) => found.pop(),
            Err(error) => {
                tracing::warn!(%error, order = %id, "reading a changed order failed");
                if let Some(hub) = hub.upgrade() {
                    hub.reset_orders();
                }
                continue;
            }
        };
        let Some(hub) = hub.upgrade() else { return };
        let Some(order) = order else { continue };
        if let Some(topic) = watched(&hub.order_topics, &order.channel) {
            let _ = topic
                .sender
                .send(Arc::new(Some(OrderEvent { status, order })));
        }
    }
}
