//! What each request carries for the features' resolvers: the settings every request of a
//! gateway shares (`RequestSettings`: the features' policies, locks, queues and handlers) and
//! the request's own data (the store, fresh loaders, the caller), attached by `prepare`.

use std::sync::Arc;

use async_graphql::Request;

use crate::catalogue::rules::limits::CatalogueRules;
use crate::counters::graphql::Tallies;
use crate::domain::paging::PageLimits;
use crate::graphql::context::Caller;
use crate::graphql::loaders::Loaders;
use crate::holds::rules::HoldPolicy;
use crate::holds::ShowtimeLocks;
use crate::idempotency::KeyPolicy;
use crate::store::Store;

/// Settings every request of a gateway shares.
#[derive(Debug, Clone)]
pub struct RequestSettings {
    pub pages: PageLimits,
    pub hold_policy: HoldPolicy,
    pub key_policy: KeyPolicy,
    pub catalogue_rules: CatalogueRules,
    pub showtime_locks: Arc<ShowtimeLocks>,
    /// The showtimes' queues of confirmations, written a batch at a time.
    pub confirmations: Arc<crate::orders::Confirmations>,
    pub ticket_secret: Arc<crate::domain::ticket_codes::TicketSecret>,
    pub admission_window: crate::admissions::AdmissionWindow,
    pub webhook_targets: crate::webhooks::rules::WebhookTargets,
    /// The process's approximate counters (`counters::Tally`).
    pub tally: Arc<crate::counters::Tally>,
    /// Who is told when a hold ends (`assembly::hold_endings`).
    pub hold_endings: crate::holds::HoldEndings,
}

/// Attaches a request's data: the store, fresh loaders (no cache across requests; the
/// counters' among them), the settings and the caller.
pub fn prepare(
    request: Request,
    store: &Store,
    settings: RequestSettings,
    caller: &Caller,
) -> Request {
    let loaders = Loaders::new(store);
    let tallies = Tallies::new(store, &loaders);
    request
        .data(store.clone())
        .data(loaders)
        .data(tallies)
        .data(settings.pages)
        .data(settings.hold_policy)
        .data(settings.key_policy)
        .data(settings.catalogue_rules)
        .data(settings.showtime_locks)
        .data(settings.confirmations)
        .data(settings.ticket_secret)
        .data(settings.admission_window)
        .data(settings.webhook_targets)
        .data(settings.tally)
        .data(settings.hold_endings)
        .data(caller.clone())
}
