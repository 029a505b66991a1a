//! The ticket types a price matrix may name.

use async_graphql::{Context, Object};

use crate::catalogue::graphql::types::TicketType;
use crate::catalogue::MAX_DEFINED_TICKET_TYPES;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::list_cost;

#[derive(Default)]
pub struct TicketTypeQuery;

#[Object]
impl TicketTypeQuery {
    /// Every ticket type: the built-in ones (ADULT, CHILD, STUDENT, SENIOR), then those
    /// operators defined, by code (at most 104 in all).
    #[graphql(complexity = "list_cost((4 + MAX_DEFINED_TICKET_TYPES), child_complexity)")]
    #[tracing::instrument(skip(self, ctx))]
    async fn ticket_types(&self, ctx: &Context<'_>) -> Result<Vec<TicketType>, ApiError> {
        let defined = ctx.store().list_ticket_types().await?;
        Ok(TicketType::built_ins()
            .into_iter()
            .chain(defined.into_iter().map(TicketType::from))
            .collect())
    }
}
