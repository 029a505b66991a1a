//! The mutation roots, one per domain, merged into `Mutation`.

mod holds;
mod orders;

use async_graphql::MergedObject;

/// Every write of the API. Writes need a sales channel's API key.
#[derive(MergedObject, Default)]
pub struct Mutation(holds::HoldMutation, orders::OrderMutation);
