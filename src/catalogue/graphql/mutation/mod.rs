//! The catalogue's mutation roots (operators), one per part.

mod cinemas;
mod door_keys;
mod halls;
mod movies;
mod seat_blocks;
mod showtime_cancel;
mod showtimes;
mod ticket_types;

pub use cinemas::CinemaMutation;
pub use door_keys::DoorKeyMutation;
pub use halls::HallMutation;
pub use movies::MovieMutation;
pub use seat_blocks::SeatBlockMutation;
pub use showtime_cancel::ShowtimeCancelMutation;
pub use showtimes::ShowtimeMutation;
pub use ticket_types::TicketTypeMutation;
