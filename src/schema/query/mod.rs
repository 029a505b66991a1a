//! The query roots, one per feature, merged into `Query` (and `FederatedQuery`).

mod entities;
mod node;

use async_graphql::MergedObject;

use super::boxed_member::Boxed;

use crate::catalogue::graphql::query::{
    CinemaQuery, DoorKeyQuery, MovieQuery, RegionQuery, ShowtimeQuery, TicketTypeQuery,
};

/// The query roots: [`Query`], every read of the API, and [`FederatedQuery`], the same with
/// the Apollo Federation entities. One list, so the two never differ but for those (a merged
/// object cannot hold `Query` itself: both would register the GraphQL name `Query`).
macro_rules! query_roots {
    ($($root:path),* $(,)?) => {
        /// Every read of the API.
        // Each member is `Boxed`: see `boxed_member`.
        #[derive(MergedObject, Default)]
        pub struct Query($(Boxed<$root>),*);

        /// [`Query`] with the Apollo Federation entities (`--federation`), still named `Query`.
        #[derive(MergedObject, Default)]
        #[graphql(name = "Query")]
        pub struct FederatedQuery($(Boxed<$root>),*, entities::EntityQuery);
    };
}

query_roots!(
    CinemaQuery,
    MovieQuery,
    ShowtimeQuery,
    node::NodeQuery,
    crate::orders::graphql::OrderQuery,
    crate::holds::graphql::HoldQuery,
    RegionQuery,
    crate::operators::graphql::AuditQuery,
    TicketTypeQuery,
    DoorKeyQuery,
    crate::channel_events::graphql::EventQuery,
    crate::webhooks::graphql::WebhookQuery,
    crate::seat_search::graphql::SeatSearchQuery,
    crate::want_to_see::graphql::WantToSeeQuery,
    crate::vouchers::graphql::VoucherQuery,
    crate::waiting_list::graphql::WaitingListQuery,
);
