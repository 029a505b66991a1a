//! `WebhookEndpoint`, its deliveries and their attempts.

use async_graphql::connection::Connection;
use async_graphql::{Context, Enum, Object, SimpleObject, ID};
use chrono::{DateTime, Utc};

use crate::channel_events::graphql::ChannelEventType;
use crate::domain::cursor::Cursor;
use crate::domain::global_id::GlobalId;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{connection, page_cost};
use crate::webhooks;
use crate::webhooks::store::documents::{self, WebhookDeliveryDoc, WebhookEndpointDoc};

/// A URL the calling channel's events are POSTed to, signed, in the log's order.
pub struct WebhookEndpoint(pub WebhookEndpointDoc);

/// A URL the calling channel's events are POSTed to, signed, in the log's order.
#[Object]
impl WebhookEndpoint {
    /// Its id.
    async fn id(&self) -> ID {
        ID(GlobalId::WebhookEndpoint(self.0.id).encode())
    }

    /// Where events are POSTed.
    async fn url(&self) -> &str {
        &self.0.url
    }

    /// The event types sent; every type when empty.
    async fn types(&self) -> Vec<ChannelEventType> {
        self.0.types.iter().map(|kind| (*kind).into()).collect()
    }

    /// When the channel made it.
    async fn created_at(&self) -> DateTime<Utc> {
        self.0.created_at
    }

    /// Failed attempts in a row at the next event (0 when it is keeping up).
    async fn failures(&self) -> i32 {
        self.0.failures
    }

    /// When the next event is tried again, while the endpoint is failing.
    async fn next_attempt_at(&self) -> Option<DateTime<Utc>> {
        self.0.due_at.filter(|_| self.0.failures > 0)
    }

    /// Its deliveries, the latest event first: each event sent or being tried, with its
    /// attempts.
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn deliveries(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "How many deliveries (default 20, at most the configured cap).")]
        first: Option<i32>,
        #[graphql(desc = "The `cursor` of the last delivery of the previous page.")] after: Option<
            String,
        >,
    ) -> Result<Connection<Cursor, WebhookDelivery>, ApiError> {
        let page = ctx.page(first, after)?;
        // Boxed: see `graphql::types`.
        let deliveries =
            Box::pin(webhooks::webhook_deliveries(ctx.store(), self.0.id, &page)).await?;
        Ok(connection(deliveries, WebhookDelivery))
    }
}

/// Where an event's delivery stands.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
#[graphql(remote = "crate::webhooks::store::documents::DeliveryStatus")]
pub enum DeliveryStatus {
    /// Tried and not taken yet: it is tried again after a backoff.
    Pending,
    /// The endpoint answered 2xx.
    Delivered,
    /// Given up on: the event left the retention before the endpoint took it.
    Failed,
}

/// One event's delivery to one endpoint.
pub struct WebhookDelivery(pub WebhookDeliveryDoc);

/// One event's delivery to one endpoint.
#[Object]
impl WebhookDelivery {
    /// The event's id (as `ChannelEvent.id` and the `Boxoffice-Event-Id` header).
    async fn event_id(&self) -> ID {
        ID(self.0.event.clone())
    }

    /// The event's type.
    #[graphql(name = "type")]
    async fn kind(&self) -> ChannelEventType {
        self.0.kind.into()
    }

    /// Where it stands: PENDING while tried, DELIVERED once taken, FAILED once given up.
    async fn status(&self) -> DeliveryStatus {
        self.0.status.into()
    }

    /// Its latest attempts (at most 20), oldest first.
    async fn attempts(&self) -> Vec<WebhookAttempt> {
        self.0.attempts.iter().map(WebhookAttempt::from).collect()
    }
}

/// One POST of an event.
#[derive(SimpleObject)]
pub struct WebhookAttempt {
    /// When it was sent.
    pub at: DateTime<Utc>,
    /// The HTTP status the endpoint answered; null when it did not answer.
    pub status_code: Option<i32>,
    /// Why there was no answer (a timeout, a refused connection, a refused address).
    pub error: Option<String>,
    /// How long it took, in milliseconds.
    pub duration_ms: i64,
    /// Sent again because the channel asked (`redeliverWebhookEvent`).
    pub redelivery: bool,
}

impl From<&documents::AttemptDoc> for WebhookAttempt {
    fn from(attempt: &documents::AttemptDoc) -> Self {
        WebhookAttempt {
            at: attempt.at,
            status_code: attempt.status_code,
            error: attempt.error.clone(),
            duration_ms: attempt.duration_ms,
            redelivery: attempt.redelivery,
        }
    }
}

/// A webhook endpoint just made, with its signing secret.
#[derive(SimpleObject)]
pub struct CreatedWebhookEndpoint {
    /// The endpoint.
    pub endpoint: WebhookEndpoint,
    /// The signing secret (`whsec_…`), shown this once: keep it to verify the
    /// `Boxoffice-Signature` header of every POST.
    pub secret: String,
}
