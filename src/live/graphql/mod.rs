//! Live seat maps in the schema: `SeatMap` (also a field of `Showtime`), `SeatMapEvent`, and
//! `Subscription.seatMapChanged`.

pub mod seat_map;
mod seat_map_event;
mod subscription;

pub use seat_map::{SeatMap, Viewer};
pub use seat_map_event::SeatMapEvent;
pub use subscription::{live, SeatMapSubscription};
