//! Following a channel's event log: everything after the subscriber's cursor is read from the
//! log, then the events the feed sees appended are passed on. The seam has no gap and no
//! repeat: the subscriber listens to the feed BEFORE it reads the log, skips what it read
//! already (sequence numbers), and whenever the next event is not the one after the last it
//! passed on (it fell behind, the feed lost its place, the feed saw a later event first) it
//! reads the log again from there.

use std::sync::Arc;

use futures::Stream;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use super::Live;
use crate::channel_events::rules::{ChannelEvent, EventCursor, EventType};
use crate::error::ApiError;

/// The subscribers of one channel's events; `None` says some may have been missed.
pub(super) struct EventTopic {
    pub(super) sender: broadcast::Sender<Arc<Option<ChannelEvent>>>,
}

/// How many events a read of the log takes at a time.
const LOG_PAGE: usize = 200;

/// What a subscriber's task sends on; the subscription ends when it is dropped.
type Sink = mpsc::Sender<Result<ChannelEvent, ApiError>>;

impl Live {
    /// `channel`'s events after `after` (from the log), then as they are appended, of `types`
    /// only when given. Without `after`, from the end of the log now. Ends with UNAVAILABLE
    /// when the database cannot be read: subscribe again from the last event's cursor.
    pub fn channel_events(
        &self,
        channel: &str,
        after: Option<EventCursor>,
        types: Option<Vec<EventType>>,
    ) -> impl Stream<Item = Result<ChannelEvent, ApiError>> + Send + 'static {
        self.start();
        let topic = self.event_topic(channel);
        let receiver = topic.sender.subscribe();
        let (sink, stream) = mpsc::channel(self.inner.buffer.min(LOG_PAGE));
        let follower = Follower {
            live: self.clone(),
            channel: channel.to_owned(),
            types,
            _topic: topic,
        };
        tokio::spawn(async move {
            if let Err(error) = follower.follow(after, receiver, &sink).await {
                let _ = sink.send(Err(error)).await;
            }
        });
        ReceiverStream::new(stream)
    }

    fn event_topic(&self, channel: &str) -> Arc<EventTopic> {
        let buffer = self.inner.buffer;
        super::topic(&self.inner.event_topics, channel.to_owned(), || {
            EventTopic {
                sender: broadcast::Sender::new(buffer),
            }
        })
    }
}

struct Follower {
    live: Live,
    channel: String,
    types: Option<Vec<EventType>>,
    /// Keeps the topic watched while the subscriber lives.
    _topic: Arc<EventTopic>,
}

/// The subscriber went away: stop quietly.
struct Gone;

impl Follower {
    async fn follow(
        &self,
        after: Option<EventCursor>,
        mut feed: broadcast::Receiver<Arc<Option<ChannelEvent>>>,
        sink: &Sink,
    ) -> Result<(), ApiError> {
        self.live.feed_opened().await?;
        let store = &self.live.inner.store;
        let mut last = match after {
            Some(cursor) => cursor.sequence,
            None => crate::channel_events::last_sequence(store, &self.channel).await?,
        };
        loop {
            match self.read_log(&mut last, sink).await {
                Ok(()) => {}
                Err(Ok(Gone)) => return Ok(()),
                Err(Err(error)) => return Err(error),
            }
            // Follow the feed until an event is missing.
            loop {
                let received = tokio::select! {
                    received = feed.recv() => received,
                    () = sink.closed() => return Ok(()),
                };
                let event = match received {
                    Ok(news) => match &*news {
                        Some(event) => event.clone(),
                        None => break,
                    },
                    Err(RecvError::Lagged(_)) => break,
                    Err(RecvError::Closed) => return Ok(()),
                };
                if event.sequence <= last {
                    continue;
                }
                if event.sequence > last + 1 {
                    break;
                }
                last = event.sequence;
                if self.pass_on(event, sink).await.is_err() {
                    return Ok(());
                }
            }
        }
    }

    /// Passes on every event of the log after `last`, moving `last` along.
    async fn read_log(&self, last: &mut i64, sink: &Sink) -> Result<(), Result<Gone, ApiError>> {
        let store = &self.live.inner.store;
        loop {
            let page =
                (crate::channel_events::events_after(store, &self.channel, *last, None, LOG_PAGE)
                    .await)
                    .map_err(Err)?;
            let full = page.len() == LOG_PAGE;
            for event in page {
                *last = event.sequence;
                self.pass_on(event.into(), sink).await.map_err(Ok)?;
            }
            if !full {
                return Ok(());
            }
        }
    }

    async fn pass_on(&self, event: ChannelEvent, sink: &Sink) -> Result<(), Gone> {
        let wanted = (self.types.as_ref()).is_none_or(|types| types.contains(&event.kind));
        if wanted {
            sink.send(Ok(event)).await.map_err(|_| Gone)?;
        }
        Ok(())
    }
}
