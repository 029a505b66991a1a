//! A channel's webhook endpoints: made (the secret shown once, never more than the cap), listed,
//! deleted, asked to send an event again, their deliveries read, and marked due when the
//! channel's log grows (by the channel events relay).

use super::rules::{cap_slots, check_url, WebhookSecret, MAX_ENDPOINTS_PER_CHANNEL};
use super::store::documents::{WebhookDeliveryDoc, WebhookEndpointDoc};
use crate::channel_events::rules::EventType;
use crate::domain::ids::WebhookId;
use crate::domain::paging::{Page, PageRequest};
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::store::documents::SCHEMA_VERSION;
use crate::store::{self, Store};

/// Makes an endpoint of `channel` that is sent the channel's events of `types` (all when
/// empty) appended from now on, and returns it with its signing secret (shown this once,
/// derived again by every gateway, stored nowhere).
#[tracing::instrument(skip(store, server_secret))]
pub async fn create_webhook_endpoint(
    store: &Store,
    server_secret: &TicketSecret,
    channel: &str,
    url: &str,
    types: Vec<EventType>,
    allow_private: bool,
) -> Result<(WebhookEndpointDoc, WebhookSecret), ApiError> {
    let url = check_url(url.trim(), allow_private)?;
    let mut types = types;
    types.sort_by_key(|kind| kind.as_str());
    types.dedup();
    let existing = store.webhook_endpoints(channel).await?;
    let slots: Vec<Option<u32>> = existing.iter().map(WebhookEndpointDoc::slot).collect();
    let mut endpoint = WebhookEndpointDoc {
        id: store::new_id(),
        schema_version: SCHEMA_VERSION,
        channel: channel.to_owned(),
        url: url.to_string(),
        types,
        created_at: store::now(),
        // From the end of the log as it is now: earlier events are read with `events`.
        delivered: crate::channel_events::last_sequence(store, channel).await?,
        due_at: None,
        lease: None,
        failures: 0,
        asked: 0,
        redeliver: Vec::new(),
        cap_slot: None,
    };
    // A slot another create took since the reading is tried no more; past the room the
    // reading left, none is (see `cap_slots`).
    for slot in cap_slots(&slots) {
        endpoint.cap_slot = Some(WebhookEndpointDoc::cap_slot_of(channel, slot));
        if store.insert_webhook_endpoint(&endpoint).await? {
            let secret = WebhookSecret::of(server_secret, endpoint.id);
            return Ok((endpoint, secret));
        }
    }
    Err(ApiError::bad_input(format!(
        "a channel has at most {MAX_ENDPOINTS_PER_CHANNEL} webhook endpoints: delete one first"
    )))
}

/// `channel`'s endpoints, oldest first (at most the cap).
pub async fn webhook_endpoints(
    store: &Store,
    channel: &str,
) -> Result<Vec<WebhookEndpointDoc>, ApiError> {
    store.webhook_endpoints(channel).await
}

/// Endpoint `id` of `channel`; NOT_FOUND when the channel has none such.
pub async fn webhook_endpoint_of(
    store: &Store,
    channel: &str,
    id: WebhookId,
) -> Result<WebhookEndpointDoc, ApiError> {
    (store.webhook_endpoint(channel, id).await?)
        .ok_or_else(|| ApiError::not_found(format!("the channel has no webhook endpoint {id}")))
}

/// Deletes endpoint `id` of `channel`; NOT_FOUND when it has none such.
#[tracing::instrument(skip(store))]
pub async fn delete_webhook_endpoint(
    store: &Store,
    channel: &str,
    id: WebhookId,
) -> Result<(), ApiError> {
    if store.delete_webhook_endpoint(channel, id).await? {
        Ok(())
    } else {
        Err(ApiError::not_found(format!(
            "the channel has no webhook endpoint {id}"
        )))
    }
}

/// Asks for event `event` (an id of the channel's log) to be sent to endpoint `id` again, out
/// of the log's order; NOT_FOUND for an unknown endpoint or an event the log no longer holds.
#[tracing::instrument(skip(store))]
pub async fn redeliver_webhook_event(
    store: &Store,
    channel: &str,
    id: WebhookId,
    event: &str,
) -> Result<(), ApiError> {
    if crate::channel_events::event_by_id(store, channel, event)
        .await?
        .is_none()
    {
        return Err(ApiError::not_found(format!(
            "the channel's event log holds no event {event:?}"
        )));
    }
    if !store.ask_redelivery(channel, id, event).await? {
        return Err(ApiError::not_found(format!(
            "the channel has no webhook endpoint {id}"
        )));
    }
    Ok(())
}

/// A page of endpoint `id`'s deliveries, the latest event first.
pub async fn webhook_deliveries(
    store: &Store,
    id: WebhookId,
    page: &PageRequest,
) -> Result<Page<WebhookDeliveryDoc>, ApiError> {
    store.webhook_deliveries(id, page).await
}
