//! The mutation roots, one per domain, merged into `Mutation`.

mod holds;
mod orders;
mod showtimes;

use async_graphql::MergedObject;

/// Every write of the API. Seat writes need a sales channel's API key, catalogue writes an
/// operator's.
#[derive(MergedObject, Default)]
pub struct Mutation(
    holds::HoldMutation,
    orders::OrderMutation,
    showtimes::ShowtimeMutation,
);
