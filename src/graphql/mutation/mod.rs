//! The mutation roots, one per feature, merged into `Mutation`.

use async_graphql::MergedObject;

use crate::catalogue::graphql::mutation::{
    CinemaMutation, DoorKeyMutation, HallMutation, MovieMutation, SeatBlockMutation,
    ShowtimeCancelMutation, ShowtimeMutation, TicketTypeMutation,
};

/// Every write of the API. Booking writes need a sales channel's API key; catalogue writes an
/// operator's.
#[derive(MergedObject, Default)]
pub struct Mutation(
    crate::holds::graphql::HoldMutation,
    crate::orders::graphql::OrderMutation,
    ShowtimeMutation,
    SeatBlockMutation,
    ShowtimeCancelMutation,
    CinemaMutation,
    HallMutation,
    MovieMutation,
    TicketTypeMutation,
    crate::admissions::graphql::AdmissionMutation,
    DoorKeyMutation,
    crate::webhooks::graphql::WebhookMutation,
    crate::want_to_see::graphql::WantToSeeMutation,
);
