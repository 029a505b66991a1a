//! The task that reads the process's change feed and hands each change to the hub. When the
//! feed breaks (the database restarted, a network hiccup), it opens it again from where it
//! was, so nothing is missed; only when the database no longer knows that position does it
//! open from now and tell every subscriber to read its map again.

use std::sync::Weak;
use std::time::Duration;

use super::store::{FeedOpenError, FeedPosition};
use super::Inner;

const FIRST_RETRY: Duration = Duration::from_millis(100);
const LAST_RETRY: Duration = Duration::from_secs(5);

/// Runs until the hub is dropped.
pub(super) async fn run(hub: Weak<Inner>) {
    let mut position: Option<FeedPosition> = None;
    // Whether changes may have been missed since the feed was last open.
    let mut lost = false;
    let mut was_open = false;
    let mut retry = FIRST_RETRY;
    loop {
        let Some(store) = hub.upgrade().map(|hub| hub.store.clone()) else {
            return;
        };
        let mut feed = match store.open_change_feed(position.as_ref()).await {
            Ok(feed) => feed,
            Err(FeedOpenError::PositionLost(error)) => {
                tracing::warn!(%error, "the change feed cannot resume: live subscribers get fresh maps");
                position = None;
                lost = true;
                continue;
            }
            Err(FeedOpenError::Failed(error)) => {
                tracing::warn!(%error, retry_ms = retry.as_millis() as u64, "opening the change feed failed");
                tokio::time::sleep(retry).await;
                retry = (retry * 2).min(LAST_RETRY);
                continue;
            }
        };
        retry = FIRST_RETRY;
        // Reopened from now after having been open: what happened in between is unknown.
        lost |= was_open && position.is_none();
        position = feed.position().or(position);
        {
            let Some(hub) = hub.upgrade() else { return };
            if std::mem::take(&mut lost) {
                hub.reset_all();
            }
            hub.feed_open.send_replace(true);
        }
        was_open = true;
        tracing::debug!("the change feed is open");
        loop {
            let event = tokio::select! {
                event = feed.next() => event,
                broken = store.change_feed_broken() => {
                    drop(feed);
                    close(&hub);
                    if broken.lose_position {
                        position = None;
                    }
                    broken.closed().await;
                    break;
                }
            };
            match event {
                Ok(event) => {
                    position = feed.position().or(position);
                    let Some(hub) = hub.upgrade() else { return };
                    hub.dispatch(event);
                }
                Err(error) => {
                    tracing::warn!(%error, "the change feed broke; resuming it");
                    position = feed.position().or(position);
                    close(&hub);
                    break;
                }
            }
        }
    }
}

fn close(hub: &Weak<Inner>) {
    if let Some(hub) = hub.upgrade() {
        hub.feed_open.send_replace(false);
    }
}
