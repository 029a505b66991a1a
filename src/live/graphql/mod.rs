//! Live seat maps in the schema: `SeatMap` (also a field of `Showtime`), `SeatMapEvent`, and
//! `Subscription.seatMapChanged`; and `Subscription.channelEvents`, which follows a channel's
//! log on the live hub.

mod channel_events;
pub mod seat_map;
mod seat_map_event;
mod subscription;

pub use channel_events::ChannelEventSubscription;
pub use seat_map::{SeatMap, Viewer};
pub use seat_map_event::SeatMapEvent;
pub use subscription::{live, SeatMapSubscription};
