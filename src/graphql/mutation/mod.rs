//! The mutation roots, one per domain, merged into `Mutation`.

mod cinemas;
mod door_keys;
mod halls;
mod movies;
mod seat_blocks;
mod showtime_cancel;
mod showtimes;
mod ticket_types;

use async_graphql::MergedObject;

/// Every write of the API. Booking writes need a sales channel's API key; catalogue writes an
/// operator's.
#[derive(MergedObject, Default)]
pub struct Mutation(
    crate::holds::graphql::HoldMutation,
    crate::orders::graphql::OrderMutation,
    showtimes::ShowtimeMutation,
    seat_blocks::SeatBlockMutation,
    showtime_cancel::ShowtimeCancelMutation,
    cinemas::CinemaMutation,
    halls::HallMutation,
    movies::MovieMutation,
    ticket_types::TicketTypeMutation,
    crate::admissions::graphql::AdmissionMutation,
    door_keys::DoorKeyMutation,
    crate::webhooks::graphql::WebhookMutation,
    crate::want_to_see::graphql::WantToSeeMutation,
);
