//! The calling channel's webhook endpoints.

use async_graphql::{Context, Object, ID};

use super::types::WebhookEndpoint;
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::list_cost;
use crate::webhooks;

#[derive(Default)]
pub struct WebhookQuery;

#[Object]
impl WebhookQuery {
    /// The calling channel's webhook endpoints, oldest first (at most 20).
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "list_cost(20, child_complexity)")]
    async fn webhook_endpoints(&self, ctx: &Context<'_>) -> Result<Vec<WebhookEndpoint>, ApiError> {
        let channel = ctx.calling_channel("reading webhook endpoints")?;
        let endpoints = webhooks::webhook_endpoints(ctx.store(), channel).await?;
        Ok(endpoints.into_iter().map(WebhookEndpoint).collect())
    }

    /// One of the calling channel's webhook endpoints; NOT_FOUND for another's.
    #[tracing::instrument(skip(self, ctx))]
    async fn webhook_endpoint(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The endpoint's id.")] id: ID,
    ) -> Result<WebhookEndpoint, ApiError> {
        let channel = ctx.calling_channel("reading webhook endpoints")?;
        let id = global_id::webhook_id(&id)?;
        let endpoint = webhooks::webhook_endpoint_of(ctx.store(), channel, id).await?;
        Ok(WebhookEndpoint(endpoint))
    }
}
