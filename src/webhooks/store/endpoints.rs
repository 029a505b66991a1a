//! `webhook_endpoints`: a channel's endpoints, and the leased, fenced writes of the gateway
//! delivering to one. Every write of a delivery carries the lease's token in its filter: a
//! gateway whose lease lapsed (it stalled, another took over) writes nothing, and stops.

use bson::{doc, Document};
use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use mongodb::options::ReturnDocument;

use super::documents::WebhookEndpointDoc;
use crate::domain::ids::{ResourceId, WebhookId};
use crate::error::ApiError;
use crate::store::codec::{date, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::{is_duplicate_key, names, Store, BACKGROUND};
use crate::webhooks::rules::MAX_ENDPOINTS_PER_CHANNEL;

impl Store {
    /// Makes an endpoint; false when its cap slot is another endpoint's (a racing create
    /// took it).
    #[tracing::instrument(skip(self, endpoint), fields(endpoint = %endpoint.id))]
    pub(in crate::webhooks) async fn insert_webhook_endpoint(
        &self,
        endpoint: &WebhookEndpointDoc,
    ) -> Result<bool, ApiError> {
        let inserted = self
            .bounded_raw(
                Call::new(names::WEBHOOK_ENDPOINTS, "insert"),
                self.collection::<WebhookEndpointDoc>(names::WEBHOOK_ENDPOINTS)
                    .insert_one(endpoint),
            )
            .await?;
        match inserted {
            Ok(_) => Ok(true),
            // The id is new, so only the slot can be taken.
            Err(error) if is_duplicate_key(&error) => Ok(false),
            Err(error) => Err(error.into()),
        }
    }

    /// `channel`'s endpoints, oldest first (index `channel`).
    #[tracing::instrument(skip(self))]
    pub(in crate::webhooks) async fn webhook_endpoints(
        &self,
        channel: &str,
    ) -> Result<Vec<WebhookEndpointDoc>, ApiError> {
        self.find_limited(
            names::WEBHOOK_ENDPOINTS,
            doc! { "channel": channel },
            Some(doc! { "channel": 1, "_id": 1 }),
            None,
            MAX_ENDPOINTS_PER_CHANNEL + 1,
        )
        .await
    }

    /// Endpoint `id` of `channel`, if it has it.
    #[tracing::instrument(skip(self))]
    pub(in crate::webhooks) async fn webhook_endpoint(
        &self,
        channel: &str,
        id: WebhookId,
    ) -> Result<Option<WebhookEndpointDoc>, ApiError> {
        self.bounded(
            Call::new(names::WEBHOOK_ENDPOINTS, "find"),
            self.collection::<WebhookEndpointDoc>(names::WEBHOOK_ENDPOINTS)
                .find_one(doc! { "_id": id.oid(), "channel": channel }),
        )
        .await
    }

    /// Deletes endpoint `id` of `channel`; false when it has none such.
    #[tracing::instrument(skip(self))]
    pub(in crate::webhooks) async fn delete_webhook_endpoint(
        &self,
        channel: &str,
        id: WebhookId,
    ) -> Result<bool, ApiError> {
        let deleted = self
            .bounded(
                Call::new(names::WEBHOOK_ENDPOINTS, "delete"),
                self.collection::<Document>(names::WEBHOOK_ENDPOINTS)
                    .delete_one(doc! { "_id": id.oid(), "channel": channel }),
            )
            .await?;
        Ok(deleted.deleted_count == 1)
    }

    /// Asks for event `event` to be sent to endpoint `id` of `channel` again; false when the
    /// channel has no such endpoint.
    #[tracing::instrument(skip(self))]
    pub(in crate::webhooks) async fn ask_redelivery(
        &self,
        channel: &str,
        id: WebhookId,
        event: &str,
    ) -> Result<bool, ApiError> {
        let asked = self
            .bounded(
                Call::new(names::WEBHOOK_ENDPOINTS, "update"),
                self.collection::<Document>(names::WEBHOOK_ENDPOINTS)
                    .update_one(
                        doc! { "_id": id.oid(), "channel": channel },
                        doc! {
                            "$addToSet": { "redeliver": event },
                            "$min": { "dueAt": date(crate::store::now()) },
                            "$inc": { "asked": 1 },
                        },
                    ),
            )
            .await?;
        Ok(asked.matched_count == 1)
    }

    /// The channels that have an endpoint (one `distinct`, index `channel`): the relay marks
    /// only their endpoints due.
    pub(in crate::webhooks) async fn channels_with_webhooks(
        &self,
    ) -> Result<Vec<String>, ApiError> {
        let found = self
            .bounded(
                Call::new(names::WEBHOOK_ENDPOINTS, "distinct"),
                self.collection::<Document>(names::WEBHOOK_ENDPOINTS)
                    .distinct("channel", doc! {})
                    .comment(BACKGROUND),
            )
            .await?;
        Ok(found
            .into_iter()
            .filter_map(|channel| channel.as_str().map(str::to_owned))
            .collect())
    }

    /// Marks the endpoints of `channels` due now (events were appended to their logs), except
    /// those waiting to retry a failure, whose time stays.
    pub(in crate::webhooks) async fn mark_endpoints_due(
        &self,
        channels: &[String],
    ) -> Result<(), ApiError> {
        self.bounded(
            Call::new(names::WEBHOOK_ENDPOINTS, "update"),
            self.collection::<Document>(names::WEBHOOK_ENDPOINTS)
                .update_many(
                    doc! { "channel": { "$in": channels }, "failures": 0 },
                    doc! {
                        "$min": { "dueAt": date(crate::store::now()) },
                        "$inc": { "asked": 1 },
                    },
                )
                .comment(BACKGROUND),
        )
        .await?;
        Ok(())
    }

    /// Endpoints due by `now` (index `due`), at most `limit`.
    pub(in crate::webhooks) async fn due_webhook_endpoints(
        &self,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<WebhookEndpointDoc>, ApiError> {
        let endpoints = self.collection::<WebhookEndpointDoc>(names::WEBHOOK_ENDPOINTS);
        self.bounded(Call::new(names::WEBHOOK_ENDPOINTS, "find"), async {
            endpoints
                .find(doc! { "dueAt": { "$lte": date(now) } })
                .sort(doc! { "dueAt": 1 })
                .limit(limit as i64)
                .comment(BACKGROUND)
                .await?
                .try_collect()
                .await
        })
        .await
    }

    /// Takes endpoint `id` for delivery under lease `token` until `until`, if it is due by
    /// `now` and nobody holds a live lease on it; the endpoint as taken.
    pub(in crate::webhooks) async fn take_webhook_endpoint(
        &self,
        id: WebhookId,
        token: ResourceId,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Option<WebhookEndpointDoc>, ApiError> {
        let filter = doc! {
            "_id": id.oid(),
            "dueAt": { "$lte": date(now) },
            "$or": [
                { "lease": { "$exists": false } },
                { "lease.until": { "$lt": date(now) } },
            ],
        };
        let update = doc! { "$set": { "lease": { "token": token.oid(), "until": date(until) } } };
        self.bounded(
            Call::new(names::WEBHOOK_ENDPOINTS, "findAndModify"),
            self.collection::<WebhookEndpointDoc>(names::WEBHOOK_ENDPOINTS)
                .find_one_and_update(filter, update)
                .return_document(ReturnDocument::After)
                .comment(BACKGROUND),
        )
        .await
    }

    /// One write of the holder of lease `token` on endpoint `id`; false when it no longer
    /// holds it (fenced).
    pub(in crate::webhooks) async fn leased_webhook_write(
        &self,
        id: WebhookId,
        token: ResourceId,
        extra: Document,
        update: Document,
    ) -> Result<bool, ApiError> {
        let mut filter = doc! { "_id": id.oid(), "lease.token": token.oid() };
        filter.extend(extra);
        let written = self
            .bounded(
                Call::new(names::WEBHOOK_ENDPOINTS, "update"),
                self.collection::<Document>(names::WEBHOOK_ENDPOINTS)
                    .update_one(filter, update)
                    .comment(BACKGROUND),
            )
            .await?;
        Ok(written.matched_count == 1)
    }

    /// Extends lease `token` on endpoint `id` to `until`; false when it was lost.
    pub(in crate::webhooks) async fn renew_webhook_lease(
        &self,
        id: WebhookId,
        token: ResourceId,
        until: DateTime<Utc>,
    ) -> Result<bool, ApiError> {
        let update = doc! { "$set": { "lease.until": date(until) } };
        self.leased_webhook_write(id, token, Document::new(), update)
            .await
    }

    /// Records that endpoint `id` is done with the log up to `sequence` (and with
    /// `redelivered`, if given), extending the lease to `until`; false when fenced.
    pub(in crate::webhooks) async fn advance_webhook_endpoint(
        &self,
        id: WebhookId,
        token: ResourceId,
        sequence: i64,
        until: DateTime<Utc>,
    ) -> Result<bool, ApiError> {
        let update = doc! {
            "$max": { "delivered": sequence },
            "$set": { "failures": 0, "lease.until": date(until) },
        };
        self.leased_webhook_write(id, token, Document::new(), update)
            .await
    }

    /// Drops the redelivery of event `event` from endpoint `id`'s list; false when fenced.
    pub(in crate::webhooks) async fn forget_redelivery(
        &self,
        id: WebhookId,
        token: ResourceId,
        event: &str,
    ) -> Result<bool, ApiError> {
        let update = doc! { "$pull": { "redeliver": event } };
        self.leased_webhook_write(id, token, Document::new(), update)
            .await
    }

    /// Records a failed attempt at endpoint `id`'s next event: `failures` in a row, the next
    /// try at `retry_at`; the lease is given up.
    pub(in crate::webhooks) async fn defer_webhook_endpoint(
        &self,
        id: WebhookId,
        token: ResourceId,
        failures: i32,
        retry_at: DateTime<Utc>,
    ) -> Result<bool, ApiError> {
        let update = doc! {
            "$set": { "failures": failures, "dueAt": date(retry_at) },
            "$unset": { "lease": "" },
        };
        self.leased_webhook_write(id, token, Document::new(), update)
            .await
    }

    /// Gives up lease `token` on endpoint `id`, with nothing left to send: it is no longer
    /// due, unless something was asked of it since it was `asked` that often (events
    /// appended, a redelivery), which the next delivery takes.
    pub(in crate::webhooks) async fn release_webhook_endpoint(
        &self,
        id: WebhookId,
        token: ResourceId,
        asked: i64,
    ) -> Result<(), ApiError> {
        let done = doc! { "$unset": { "lease": "", "dueAt": "" } };
        // Absent in endpoints nothing was asked of yet: not greater matches them too.
        let unchanged = doc! { "asked": { "$not": { "$gt": asked } } };
        if !self
            .leased_webhook_write(id, token, unchanged, done)
            .await?
        {
            let release = doc! { "$unset": { "lease": "" } };
            self.leased_webhook_write(id, token, Document::new(), release)
                .await?;
        }
        Ok(())
    }
}
