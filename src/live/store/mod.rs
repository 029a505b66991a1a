//! The live feeds' store code: the change feed.

mod change_feed;

pub use change_feed::{ChangeFeed, FeedEvent, FeedOpenError, FeedPosition};
