//! A channel's webhook endpoints: made, deleted, asked to send an event again.

use std::sync::Arc;

use async_graphql::{Context, InputObject, Object, ID};

use super::types::{CreatedWebhookEndpoint, WebhookEndpoint};
use crate::channel_events::graphql::ChannelEventType;
use crate::channel_events::rules::EventType;
use crate::domain::global_id;
use crate::domain::input_caps;
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::webhooks;
use crate::webhooks::rules::WebhookTargets;

#[derive(Default)]
pub struct WebhookMutation;

/// A webhook endpoint to make.
#[derive(InputObject, Debug)]
pub struct CreateWebhookEndpointInput {
    /// Where to POST events: a public `https` URL (at most 2,048 characters).
    pub url: String,
    /// The event types to send; every type when absent or empty.
    pub types: Option<Vec<ChannelEventType>>,
}

#[Object]
impl WebhookMutation {
    /// Makes a webhook endpoint for the calling channel: every event appended to its log from
    /// now on (of `types`) is POSTed to `url` as JSON, in the log's order, signed in
    /// `Boxoffice-Signature` with the secret returned here once. At least once: a receiver
    /// deduplicates by the event's id. BAD_USER_INPUT for a URL that is not public `https`,
    /// or past 20 endpoints.
    // The URL is not a span field: it may be long (checked below) and carry a receiver's token.
    #[tracing::instrument(skip_all)]
    async fn create_webhook_endpoint(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Where, and which events.")] input: CreateWebhookEndpointInput,
    ) -> Result<CreatedWebhookEndpoint, ApiError> {
        let channel = ctx.calling_channel("making webhook endpoints")?;
        input_caps::optional_list("types", input.types.as_deref(), EventType::ALL.len())?;
        let types = input.types.unwrap_or_default();
        let (endpoint, secret) = webhooks::create_webhook_endpoint(
            ctx.store(),
            ctx.data_unchecked::<Arc<TicketSecret>>(),
            channel,
            &input.url,
            types.into_iter().map(Into::into).collect(),
            ctx.data_unchecked::<WebhookTargets>().allow_private,
        )
        .await?;
        Ok(CreatedWebhookEndpoint {
            endpoint: WebhookEndpoint(endpoint),
            secret: secret.as_str().to_owned(),
        })
    }

    /// Deletes one of the calling channel's webhook endpoints (NOT_FOUND when it has none
    /// such); true once done.
    #[tracing::instrument(skip(self, ctx))]
    async fn delete_webhook_endpoint(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The endpoint's id.")] id: ID,
    ) -> Result<bool, ApiError> {
        let channel = ctx.calling_channel("deleting webhook endpoints")?;
        let id = global_id::webhook_id(&id)?;
        webhooks::delete_webhook_endpoint(ctx.store(), channel, id).await?;
        Ok(true)
    }

    /// Asks for one event of the calling channel's log to be POSTed to an endpoint again, as
    /// soon as the endpoint is free (out of the log's order; its delivery records the attempt
    /// as a redelivery). NOT_FOUND for an unknown endpoint or an event no longer kept.
    #[tracing::instrument(skip(self, ctx))]
    async fn redeliver_webhook_event(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The endpoint's id.")] endpoint_id: ID,
        #[graphql(desc = "The event's id (`ChannelEvent.id`).")] event_id: ID,
    ) -> Result<bool, ApiError> {
        let channel = ctx.calling_channel("redelivering webhook events")?;
        let id = global_id::webhook_id(&endpoint_id)?;
        webhooks::redeliver_webhook_event(ctx.store(), channel, id, &event_id).await?;
        Ok(true)
    }
}
