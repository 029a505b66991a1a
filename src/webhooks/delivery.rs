//! Delivering channels' events to their webhook endpoints: at least once, in the log's order
//! per endpoint, shared by every gateway without two sending to one endpoint at once.
//!
//! The relay marks a channel's endpoints due when it appends to the channel's log. Each
//! gateway polls for due endpoints ([`POLL`]) and takes one with a lease (a token and an
//! expiry, [`LEASE`]): every write of the delivery carries the token in its filter, and the
//! lease is renewed before a POST when a third of it has passed since the last write, and every
//! third of it while a POST is in flight, so a gateway that stalled past its lease (another took
//! the endpoint over) finds out before it sends anything more, and stops. The lease is short
//! (5 s), so the endpoints of a gateway that died move to another within seconds; a POST may
//! take longer (10 s), which is why it is renewed during the POST rather than made longer. An endpoint's `delivered` moves past an event only once the
//! endpoint answered 2xx, so a gateway killed mid-delivery leaves the event to the next one
//! (the receiver deduplicates by the event's id). A failure holds the endpoint's later events
//! back (order) and retries after an exponential backoff with jitter, until the event leaves
//! the retention; then it is given up (FAILED) and the next is sent. Each endpoint is
//! delivered by its own task, so a slow or dead one holds up nobody else.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::Utc;

use super::rules::{backoff, WebhookSecret};
use super::sender::{Sender, Sent};
use super::store::documents::{AttemptDoc, DeliveryStatus, WebhookEndpointDoc};
use crate::channel_events::rules::{ChannelEvent, EXPIRY_SLACK};
use crate::channel_events::EventDoc;
use crate::domain::ids::{ResourceId, WebhookId};
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::store::{self, PausePoint, Store};

/// How often a gateway looks for due endpoints.
pub const POLL: Duration = Duration::from_millis(250);
/// How long a gateway keeps an endpoint without writing.
pub const LEASE: Duration = Duration::from_secs(5);
/// Events read from the log at a time.
const BATCH: usize = 50;
/// Endpoints one gateway delivers to at once.
const CONCURRENT_ENDPOINTS: usize = 64;

/// A gateway's deliveries.
pub struct Deliverer {
    store: Store,
    sender: Sender,
    secret: Arc<TicketSecret>,
    lease: Duration,
    /// Endpoints this gateway is delivering to now.
    busy: Mutex<HashSet<WebhookId>>,
}

impl Deliverer {
    pub fn new(store: Store, sender: Sender, secret: Arc<TicketSecret>) -> Arc<Self> {
        Deliverer::with_lease(store, sender, secret, LEASE)
    }

    /// A deliverer holding endpoints for `lease` (the tests shorten it).
    pub fn with_lease(
        store: Store,
        sender: Sender,
        secret: Arc<TicketSecret>,
        lease: Duration,
    ) -> Arc<Self> {
        Arc::new(Deliverer {
            // Deliveries are background work: they must not take requests' connections.
            store: store.background(),
            sender,
            secret,
            lease,
            busy: Mutex::default(),
        })
    }

    /// Starts a delivery task for each due endpoint this gateway is not delivering to yet;
    /// how many it started.
    pub async fn start_due(self: &Arc<Self>) -> Result<usize, ApiError> {
        let free = CONCURRENT_ENDPOINTS.saturating_sub(self.busy.lock().expect("busy").len());
        if free == 0 {
            return Ok(0);
        }
        let now = Utc::now();
        let due = self.store.due_webhook_endpoints(now, free).await?;
        // Oldest due first: how far behind the deliveries are.
        let oldest = due.first().and_then(|endpoint| endpoint.due_at);
        crate::telemetry::metrics::webhook_backlog(
            oldest.map_or(chrono::Duration::zero(), |at| now - at),
        );
        let mut started = 0;
        for endpoint in due {
            if !self.busy.lock().expect("busy").insert(endpoint.id) {
                continue;
            }
            started += 1;
            let deliverer = Arc::clone(self);
            tokio::spawn(async move {
                let id = endpoint.id;
                if let Err(error) = deliverer.deliver(endpoint).await {
                    tracing::warn!(%error, endpoint = %id, "a webhook delivery failed");
                }
                deliverer.busy.lock().expect("busy").remove(&id);
            });
        }
        Ok(started)
    }

    /// Delivers what endpoint `endpoint` has due, if this gateway can take it; how many
    /// events it delivered.
    pub async fn deliver(&self, endpoint: WebhookEndpointDoc) -> Result<usize, ApiError> {
        let token: ResourceId = store::new_id();
        let now = store::now();
        let until = now + self.lease_chrono();
        let Some(endpoint) = (self.store)
            .take_webhook_endpoint(endpoint.id, token, now, until)
            .await?
        else {
            return Ok(0);
        };
        let mut run = Run {
            deliverer: self,
            endpoint: &endpoint,
            token,
            written: Instant::now(),
            failures: endpoint.failures,
        };
        run.deliver().await
    }

    fn lease_chrono(&self) -> chrono::Duration {
        chrono::Duration::from_std(self.lease).expect("a short lease")
    }
}

/// One gateway's turn at one endpoint, under one lease.
struct Run<'a> {
    deliverer: &'a Deliverer,
    endpoint: &'a WebhookEndpointDoc,
    token: ResourceId,
    /// When the lease was last confirmed by a write.
    written: Instant,
    /// Failed attempts in a row at the next event.
    failures: i32,
}

/// Why a run stops.
enum Stop {
    /// Another gateway holds the endpoint now.
    Fenced,
    /// The endpoint failed: it waits for its retry.
    Deferred,
}

impl Run<'_> {
    async fn deliver(&mut self) -> Result<usize, ApiError> {
        let store = &self.deliverer.store;
        let (id, channel) = (self.endpoint.id, self.endpoint.channel.as_str());
        for event in &self.endpoint.redeliver {
            if let Some(found) = crate::channel_events::event_by_id(store, channel, event).await? {
                if let Err(_stop) = self.send(&found, true).await? {
                    return Ok(0);
                }
            }
            if !store.forget_redelivery(id, self.token, event).await? {
                return Ok(0);
            }
        }
        let (mut done, mut sent) = (self.endpoint.delivered, 0);
        loop {
            let events =
                crate::channel_events::events_after(store, channel, done, None, BATCH).await?;
            if events.is_empty() {
                store.pause_point(PausePoint::WebhookBeforeRelease).await;
                store
                    .release_webhook_endpoint(id, self.token, self.endpoint.asked)
                    .await?;
                return Ok(sent);
            }
            for event in &events {
                let wanted =
                    self.endpoint.types.is_empty() || self.endpoint.types.contains(&event.kind);
                if wanted {
                    match self.send(event, false).await? {
                        Ok(()) => sent += 1,
                        Err(_stop) => return Ok(sent),
                    }
                }
                done = event.sequence;
            }
            // Events of other types are passed over in one write.
            if !self.advance(done).await? {
                return Ok(sent);
            }
        }
    }

    /// Sends `event` once and records the attempt; on a failure, defers the endpoint.
    async fn send(
        &mut self,
        event: &EventDoc,
        redelivery: bool,
    ) -> Result<Result<(), Stop>, ApiError> {
        let store = &self.deliverer.store;
        store.pause_point(PausePoint::WebhookBeforeSend).await;
        // The fence: a lease not confirmed lately is renewed before anything is sent.
        if self.written.elapsed() > self.deliverer.lease / 3 {
            let until = store::now() + self.deliverer.lease_chrono();
            if !store
                .renew_webhook_lease(self.endpoint.id, self.token, until)
                .await?
            {
                return Ok(Err(Stop::Fenced));
            }
            self.written = Instant::now();
        }
        let secret = WebhookSecret::of(&self.deliverer.secret, self.endpoint.id);
        let payload = ChannelEvent::from(event.clone()).payload();
        let body = serde_json::to_vec(&payload).expect("JSON of an event");
        let at = store::now();
        let post = (self.deliverer.sender).post(
            &self.endpoint.url,
            &event.id,
            body,
            &secret,
            at.timestamp(),
        );
        let Some(sent) = self.renewing(post).await? else {
            // Another gateway has the endpoint now: it sends this event again (at least once).
            return Ok(Err(Stop::Fenced));
        };
        crate::telemetry::metrics::webhook_attempt(sent.delivered(), at - event.at);
        let expired = store::now() + EXPIRY_SLACK >= event.expires_at;
        let status = match (sent.delivered(), expired) {
            (true, _) => DeliveryStatus::Delivered,
            (false, false) => DeliveryStatus::Pending,
            (false, true) => DeliveryStatus::Failed,
        };
        let attempt = attempt(&sent, at, redelivery);
        store
            .record_webhook_attempt(self.endpoint.id, event, &attempt, status)
            .await?;
        if redelivery || status != DeliveryStatus::Pending {
            // Sent, or given up on: the endpoint is done with it.
            if !redelivery && !self.advance(event.sequence).await? {
                return Ok(Err(Stop::Fenced));
            }
            return Ok(Ok(()));
        }
        self.failures += 1;
        let failures = self.failures;
        let jitter = 0.8 + 0.4 * rand::random::<f64>();
        let delay = backoff(failures as u32, jitter);
        let retry_at = store::now() + chrono::Duration::from_std(delay).expect("at most an hour");
        store
            .defer_webhook_endpoint(self.endpoint.id, self.token, failures, retry_at)
            .await?;
        Ok(Err(Stop::Deferred))
    }

    /// Runs `post`, renewing the lease every third of it meanwhile; `None` when a renewal
    /// finds the lease taken over (the POST is dropped: the new holder sends the event).
    async fn renewing(
        &mut self,
        post: impl std::future::Future<Output = Sent>,
    ) -> Result<Option<Sent>, ApiError> {
        let mut post = std::pin::pin!(post);
        loop {
            let renew_at = self.written + self.deliverer.lease / 3;
            tokio::select! {
                sent = &mut post => return Ok(Some(sent)),
                () = tokio::time::sleep_until(renew_at.into()) => {
                    let until = store::now() + self.deliverer.lease_chrono();
                    let store = &self.deliverer.store;
                    if !store
                        .renew_webhook_lease(self.endpoint.id, self.token, until)
                        .await?
                    {
                        return Ok(None);
                    }
                    self.written = Instant::now();
                }
            }
        }
    }

    /// Records the endpoint done with the log up to `sequence`; false when fenced.
    async fn advance(&mut self, sequence: i64) -> Result<bool, ApiError> {
        let until = store::now() + self.deliverer.lease_chrono();
        let store = &self.deliverer.store;
        let advanced = store
            .advance_webhook_endpoint(self.endpoint.id, self.token, sequence, until)
            .await?;
        if advanced {
            self.written = Instant::now();
            self.failures = 0;
        }
        Ok(advanced)
    }
}

fn attempt(sent: &Sent, at: chrono::DateTime<Utc>, redelivery: bool) -> AttemptDoc {
    AttemptDoc {
        at,
        status_code: sent.status.map(i32::from),
        error: sent.error.clone(),
        duration_ms: sent.took.as_millis() as i64,
        redelivery,
    }
}
