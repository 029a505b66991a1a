//! `webhook_deliveries`: each event's delivery to each endpoint, with its latest attempts,
//! deleted with its event (TTL `expiry`).

use bson::doc;

use super::documents::{AttemptDoc, DeliveryStatus, WebhookDeliveryDoc, ATTEMPTS_KEPT};
use crate::channel_events::EventDoc;
use crate::domain::ids::WebhookId;
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::store::codec::{date, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::documents::SCHEMA_VERSION;
use crate::store::{filters, names, Store, BACKGROUND};

#[derive(serde::Serialize, serde::Deserialize)]
struct DeliveryKey(i64, String);

impl Store {
    /// Records `attempt` at sending `event` to endpoint `endpoint`, and where the delivery
    /// stands after it (one upsert).
    pub(in crate::webhooks) async fn record_webhook_attempt(
        &self,
        endpoint: WebhookId,
        event: &EventDoc,
        attempt: &AttemptDoc,
        status: DeliveryStatus,
    ) -> Result<(), ApiError> {
        let id = WebhookDeliveryDoc::id_of(endpoint, &event.id);
        let update = doc! {
            "$setOnInsert": {
                "schemaVersion": SCHEMA_VERSION,
                "channel": &event.channel,
                "event": &event.id,
                "type": bson::to_bson(&event.kind)?,
                "expiresAt": date(event.expires_at),
            },
            "$set": { "status": bson::to_bson(&status)?, "lastAttemptAt": date(attempt.at) },
            "$push": { "attempts": { "$each": [bson::to_bson(attempt)?], "$slice": -ATTEMPTS_KEPT } },
        };
        self.bounded(
            Call::new(names::WEBHOOK_DELIVERIES, "update"),
            self.collection::<bson::Document>(names::WEBHOOK_DELIVERIES)
                // The whole shard key (`endpoint`, `sequence`: docs/sharding.md) beside `_id`,
                // which fixes both: an upsert on a sharded collection must name it. An
                // inserted record takes both from here.
                .update_one(
                    doc! { "_id": id, "endpoint": endpoint.oid(), "sequence": event.sequence },
                    update,
                )
                .upsert(true)
                .comment(BACKGROUND),
        )
        .await?;
        Ok(())
    }

    /// Endpoint `endpoint`'s deliveries, the latest event first (index `endpoint_sequence`).
    #[tracing::instrument(skip(self))]
    pub(in crate::webhooks) async fn webhook_deliveries(
        &self,
        endpoint: WebhookId,
        page: &PageRequest,
    ) -> Result<Page<WebhookDeliveryDoc>, ApiError> {
        self.find_page(
            names::WEBHOOK_DELIVERIES,
            "webhookDeliveries",
            doc! { "endpoint": endpoint.oid() },
            doc! { "endpoint": 1, "sequence": -1, "_id": -1 },
            None,
            page,
            |DeliveryKey(sequence, id)| {
                filters::after_descending(&["sequence", "_id"], &[sequence.into(), id.into()])
            },
            |delivery: &WebhookDeliveryDoc| DeliveryKey(delivery.sequence, delivery.id.clone()),
        )
        .await
    }
}
