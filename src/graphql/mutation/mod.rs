//! The mutation roots, one per domain, merged into `Mutation`.

mod cinemas;
mod halls;
mod holds;
mod movies;
mod orders;

use async_graphql::MergedObject;

/// Every write of the API: sales need a sales channel's API key, catalogue writes an
/// operator's.
#[derive(MergedObject, Default)]
pub struct Mutation(
    holds::HoldMutation,
    orders::OrderMutation,
    cinemas::CinemaMutation,
    halls::HallMutation,
    movies::MovieMutation,
);
