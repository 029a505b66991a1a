//! The mutation roots, one per feature, merged into `Mutation`.

use async_graphql::MergedObject;

use super::boxed_member::Boxed;

use crate::catalogue::graphql::mutation::{
    CinemaMutation, DoorKeyMutation, HallMutation, MovieMutation, SeatBlockMutation,
    ShowtimeCancelMutation, ShowtimeMutation, TicketTypeMutation,
};

/// Every write of the API. Booking writes need a sales channel's API key; catalogue writes an
/// operator's.
// Each member is `Boxed`: see `boxed_member`.
#[derive(MergedObject, Default)]
pub struct Mutation(
    Boxed<crate::checkout::graphql::HoldSeatsMutation>,
    Boxed<crate::holds::graphql::HoldMutation>,
    Boxed<crate::orders::graphql::OrderMutation>,
    Boxed<ShowtimeMutation>,
    Boxed<SeatBlockMutation>,
    Boxed<ShowtimeCancelMutation>,
    Boxed<CinemaMutation>,
    Boxed<HallMutation>,
    Boxed<MovieMutation>,
    Boxed<TicketTypeMutation>,
    Boxed<crate::admissions::graphql::AdmissionMutation>,
    Boxed<DoorKeyMutation>,
    Boxed<crate::webhooks::graphql::WebhookMutation>,
    Boxed<crate::want_to_see::graphql::WantToSeeMutation>,
    Boxed<crate::vouchers::graphql::VoucherMutation>,
    Boxed<crate::concessions::graphql::ConcessionMutation>,
    Boxed<crate::orders::graphql::ItemCollectionMutation>,
    Boxed<crate::waiting_list::graphql::WaitingListMutation>,
);
