//! The query roots, one per domain, merged into `Query`.

mod audit;
mod cinemas;
mod door_keys;
mod events;
mod holds;
mod movies;
mod node;
mod orders;
mod regions;
mod seat_search;
mod showtimes;
mod ticket_types;
mod webhooks;

use async_graphql::MergedObject;

pub(crate) use events::event_types;

/// Every read of the API.
#[derive(MergedObject, Default)]
pub struct Query(
    cinemas::CinemaQuery,
    movies::MovieQuery,
    showtimes::ShowtimeQuery,
    node::NodeQuery,
    orders::OrderQuery,
    holds::HoldQuery,
    regions::RegionQuery,
    audit::AuditQuery,
    ticket_types::TicketTypeQuery,
    door_keys::DoorKeyQuery,
    events::EventQuery,
    webhooks::WebhookQuery,
    seat_search::SeatSearchQuery,
);
