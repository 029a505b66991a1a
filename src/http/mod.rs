//! HTTP: the axum routes. `POST /graphql` runs operations (with body-size and batch limits),
//! `GET /graphql` runs queries or upgrades to a WebSocket for subscriptions (`websocket`),
//! `GET /` serves the GraphiQL playground with the example operations, `GET /seats/{id}` the
//! seat picker, `GET /door/{id}` the door page, `GET /dashboard` the operators' sales
//! dashboard, `GET /health` checks the database (`/health/live`, `/health/ready` for probes),
//! `GET /metrics` gives the Prometheus figures. Every answer carries an `x-request-id`.

mod auth;
mod body;
mod dashboard_page;
mod door_page;
mod forward;
mod graceful;
mod graphql_get;
mod graphql_route;
mod health;
mod json_lists;
pub mod listener;
mod media;
mod metrics_route;
mod page_assets;
mod persisted_queries;
mod playground;
mod rate_limit;
mod relay_handoff;
mod reply;
pub mod request_id;
mod seat_picker;
mod websocket;

pub use websocket::FanOut;

pub use auth::KnownKeys;
pub use graceful::serve_until_shutdown;
pub use rate_limit::RateLimiter;

use std::sync::Arc;

use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::Router;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;

use crate::config::Limits;
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ErrorCode;
use crate::holds::rules::HoldPolicy;
use crate::holds::ShowtimeLocks;
use crate::idempotency::KeyPolicy;
use crate::live::Live;
use crate::schema::{RequestSettings, ServedSchema};
use crate::store::Store;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    /// Federated or not (`--federation`: `AppState::with_federation`).
    pub schema: ServedSchema,
    pub store: Store,
    pub limits: Limits,
    pub hold_policy: HoldPolicy,
    pub key_policy: KeyPolicy,
    /// What operators may write (hall sizes, the cleaning gap).
    pub catalogue_rules: crate::catalogue::rules::limits::CatalogueRules,
    /// Shared by every request of this process.
    pub showtime_locks: Arc<ShowtimeLocks>,
    /// Shared by every request of this process: its showtimes' confirmations, batched.
    pub confirmations: Arc<crate::orders::Confirmations>,
    pub rate_limiter: Arc<RateLimiter>,
    /// Anonymous clients' buckets, by address.
    pub anonymous_limiter: Arc<RateLimiter>,
    /// Where a trusted proxy names the client's address; else the peer's address counts.
    pub client_ip_header: Option<axum::http::HeaderName>,
    /// Origins allowed to call from a browser (CORS); none by default.
    pub cors_origins: Vec<axum::http::HeaderValue>,
    /// Automatic persisted queries, shared by every request of this process.
    pub persisted_queries: Arc<persisted_queries::PersistedQueries>,
    pub known_keys: Arc<KnownKeys>,
    /// The cap on GraphQL requests in flight (`--max-in-flight`).
    pub admission: crate::overload::Admission,
    /// The live hub: the change feed and its subscribers.
    pub live: Live,
    /// Subscriptions shared by subscribers asking the same thing (None: each runs its own,
    /// for the benchmark's comparison).
    pub fan_out: Option<Arc<websocket::FanOut>>,
    /// One permit per open WebSocket connection (`max_live_connections`).
    pub live_connections: Arc<tokio::sync::Semaphore>,
    /// Asked for on SIGTERM or Ctrl-C; counts the requests in flight.
    pub shutdown: crate::shutdown::Shutdown,
    /// How many gateway processes share each rate limit (the `gateways` heartbeat sets it).
    pub share: Arc<crate::domain::rate_limit::Share>,
    /// What ticket codes are derived from (random unless configured).
    pub ticket_secret: Arc<TicketSecret>,
    /// When a showtime's tickets admit at the door.
    pub admission_window: crate::admissions::AdmissionWindow,
    /// Whether webhook endpoints may be `http` and internal (tests and the demo).
    pub webhooks_allow_private: bool,
    /// Appends the events this process's changes leave to the channels' logs, as they are
    /// made (running from the moment the state is made inside a runtime).
    pub relay: Arc<crate::channel_events::EventRelay>,
    /// This process's changes to the approximate counters, written once a second.
    pub tally: Arc<crate::counters::Tally>,
    /// Who is told when a hold ends (`assembly::hold_endings`).
    pub hold_endings: crate::holds::HoldEndings,
    /// The gateways that own other showtimes' writes (`forward`); alone unless
    /// `with_peers`.
    pub peers: Arc<crate::gateways::Peers>,
}

impl AppState {
    pub fn new(store: Store, limits: Limits, hold_policy: HoldPolicy) -> Self {
        crate::telemetry::metrics::install();
        let share = Arc::<crate::domain::rate_limit::Share>::default();
        let clock = Arc::new(crate::domain::clock::SystemClock);
        let limiter = |rate| RateLimiter::shared(rate, clock.clone(), Arc::clone(&share));
        let relay = crate::assembly::event_relay(&store);
        // No state without its relay: changes would leave their events on their documents
        // (every later write rewriting a larger one) until a background pass took them.
        let runtime = tokio::runtime::Handle::try_current()
            .expect("AppState::new runs inside a Tokio runtime: it starts the event relay");
        runtime.spawn(Arc::clone(&relay).run());
        let tally = crate::counters::started(&store);
        AppState {
            tally,
            hold_endings: crate::assembly::hold_endings(),
            webhooks_allow_private: false,
            relay,
            schema: ServedSchema::new(limits.query(), false),
            live: crate::assembly::live(&store, limits.live_buffer),
            fan_out: Some(Arc::default()),
            store,
            limits,
            hold_policy,
            key_policy: KeyPolicy::default(),
            catalogue_rules: Default::default(),
            showtime_locks: Arc::default(),
            confirmations: Arc::default(),
            rate_limiter: Arc::new(limiter(limits.channel_rate())),
            anonymous_limiter: Arc::new(limiter(limits.anonymous_rate())),
            client_ip_header: None,
            cors_origins: Vec::new(),
            persisted_queries: Arc::new(persisted_queries::PersistedQueries::new(
                limits.persisted_queries,
            )),
            known_keys: Arc::default(),
            admission: crate::overload::Admission::new(limits.max_in_flight),
            live_connections: Arc::new(tokio::sync::Semaphore::new(limits.max_live_connections)),
            shutdown: crate::shutdown::Shutdown::default(),
            share,
            ticket_secret: Arc::new(TicketSecret::random()),
            admission_window: Default::default(),
            peers: Arc::new(crate::gateways::Peers::alone()),
        }
    }

    /// The same state sending the writes of showtimes `peers` names to their owners.
    pub fn with_peers(self, peers: Arc<crate::gateways::Peers>) -> Self {
        AppState { peers, ..self }.handing_events_to_peers()
    }

    /// The relay hands each channel's events to the live gateway that appends them
    /// (`channel_events::handoff`), signed with this state's secret (set again whenever the
    /// peers or the secret change).
    fn handing_events_to_peers(self) -> Self {
        self.relay.hand_to(Arc::new(relay_handoff::PeerAppenders {
            peers: Arc::clone(&self.peers),
            secret: Arc::clone(&self.ticket_secret),
        }));
        self
    }

    /// The same state running each subscription on its own, shared or not (what
    /// `examples/live_seat_maps` compares sharing with).
    pub fn without_shared_subscriptions(self) -> Self {
        AppState {
            fan_out: None,
            ..self
        }
    }

    /// The same state admitting tickets in `window` around their showtime's start.
    pub fn with_admission_window(
        self,
        admission_window: crate::admissions::AdmissionWindow,
    ) -> Self {
        AppState {
            admission_window,
            ..self
        }
    }

    /// The same state serving the schema as an Apollo Federation subgraph when `federation`.
    pub fn with_federation(self, federation: bool) -> Self {
        AppState {
            schema: ServedSchema::new(self.limits.query(), federation),
            ..self
        }
    }

    /// The same state, letting webhook endpoints be `http` and internal when `allow`.
    pub fn with_webhooks_allowing_private(self, allow: bool) -> Self {
        AppState {
            webhooks_allow_private: allow,
            ..self
        }
    }

    /// The same state deriving ticket codes from `secret`.
    pub fn with_ticket_secret(self, secret: TicketSecret) -> Self {
        AppState {
            ticket_secret: Arc::new(secret),
            ..self
        }
        .handing_events_to_peers()
    }

    /// The same state with rate limits timed by `clock` (tests drive a manual one), each this
    /// process's part of the limits `share` divides; the buckets start afresh.
    pub fn with_clock(
        self,
        clock: Arc<dyn crate::domain::clock::Clock>,
        share: Arc<crate::domain::rate_limit::Share>,
    ) -> Self {
        let limiter = |rate| RateLimiter::shared(rate, Arc::clone(&clock), Arc::clone(&share));
        AppState {
            rate_limiter: Arc::new(limiter(self.limits.channel_rate())),
            anonymous_limiter: Arc::new(limiter(self.limits.anonymous_rate())),
            share,
            ..self
        }
    }

    /// The same state, naming clients by `header` (set by a trusted proxy).
    pub fn with_client_ip_header(self, header: Option<axum::http::HeaderName>) -> Self {
        AppState {
            client_ip_header: header,
            ..self
        }
    }

    /// The same state, letting pages of `origins` call from a browser.
    pub fn with_cors_origins(self, origins: Vec<axum::http::HeaderValue>) -> Self {
        AppState {
            cors_origins: origins,
            ..self
        }
    }

    /// The same state with another idempotency-key policy.
    pub fn with_key_policy(self, key_policy: KeyPolicy) -> Self {
        AppState { key_policy, ..self }
    }

    /// The same state with other catalogue rules.
    pub fn with_catalogue_rules(
        self,
        catalogue_rules: crate::catalogue::rules::limits::CatalogueRules,
    ) -> Self {
        AppState {
            catalogue_rules,
            ..self
        }
    }

    /// What each request is prepared with.
    pub fn settings(&self) -> RequestSettings {
        RequestSettings {
            pages: self.limits.pages(),
            hold_policy: self.hold_policy,
            key_policy: self.key_policy,
            catalogue_rules: self.catalogue_rules,
            showtime_locks: Arc::clone(&self.showtime_locks),
            confirmations: Arc::clone(&self.confirmations),
            ticket_secret: Arc::clone(&self.ticket_secret),
            admission_window: self.admission_window,
            webhook_targets: crate::webhooks::rules::WebhookTargets {
                allow_private: self.webhooks_allow_private,
            },
            tally: Arc::clone(&self.tally),
            hold_endings: self.hold_endings.clone(),
        }
    }
}

/// Serves the gateway on `listener` until `shutdown` resolves, knowing each connection's peer
/// address (anonymous clients are rate-limited by it: a server without it limits none).
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let service = router.into_make_service_with_connect_info::<std::net::SocketAddr>();
    axum::serve(listener, service)
        .with_graceful_shutdown(shutdown)
        .await
}

/// The gateway's routes.
pub fn app(state: AppState) -> Router {
    let mut router = Router::new()
        .route(
            "/graphql",
            post(graphql_route::graphql).get(graphql_get::graphql_get),
        )
        .route("/", get(playground::page))
        .route("/playground/examples.json", get(playground::examples))
        .route("/playground/vendor/{file}", get(playground::vendor))
        .route("/seats", get(seat_picker::page))
        .route("/seats/{showtime}", get(seat_picker::page))
        .route("/seats/assets/{file}", get(seat_picker::asset))
        .route("/door/{cinema}", get(door_page::page))
        .route("/door/assets/{file}", get(door_page::asset))
        .route("/dashboard", get(dashboard_page::page))
        .route("/dashboard/assets/{file}", get(dashboard_page::asset))
        .route("/health", get(health::health))
        .route("/health/live", get(health::live))
        .route("/health/ready", get(health::ready))
        .route("/metrics", get(metrics_route::metrics))
        .route(
            "/internal/events",
            post(relay_handoff::handed_events).layer(axum::extract::DefaultBodyLimit::max(
                relay_handoff::MOST_BYTES,
            )),
        );
    // Browsers may call from the configured origins only; with none, no CORS headers at all,
    // so no other site's page can read an answer.
    if !state.cors_origins.is_empty() {
        use axum::http::{header, Method};
        router = router.layer(
            tower_http::cors::CorsLayer::new()
                .allow_origin(state.cors_origins.clone())
                .allow_methods([Method::GET, Method::POST])
                .allow_headers([header::CONTENT_TYPE, header::AUTHORIZATION])
                .max_age(std::time::Duration::from_secs(600)),
        );
    }
    // Outermost first: the request id, then the request's span (carrying it), then the panic
    // catcher (so a panic is logged inside the span and its 500 carries the id too).
    router
        .layer(axum::middleware::from_fn_with_state(
            state.shutdown.clone(),
            graceful::count_in_flight,
        ))
        .layer(CatchPanicLayer::custom(panicked))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(request_span)
                .on_failure(failed),
        )
        .layer(axum::middleware::from_fn(request_id::propagate))
        .with_state(state)
}

/// The root span of a request: its id, method and path (never the query string, which may
/// carry variables), at INFO so that every log line of the request carries the id.
fn request_span(request: &axum::extract::Request) -> tracing::Span {
    tracing::info_span!(
        "request",
        request_id = %request_id::of(request),
        method = %request.method(),
        path = %request.uri().path(),
    )
}

/// A failed answer, logged: every 5xx but 503. A 503 refuses work for overload or a missing
/// database; under a crowd there are thousands a second, so they are counted
/// (`boxoffice_overload_refusals_total`, `boxoffice_graphql_errors_total`) and not logged one
/// by one (issue 34's gateway logged 4,981 lines in one collapse; ours, 22,996 in 15 s).
fn failed(
    class: tower_http::classify::ServerErrorsFailureClass,
    latency: std::time::Duration,
    _span: &tracing::Span,
) {
    use tower_http::classify::ServerErrorsFailureClass;
    if let ServerErrorsFailureClass::StatusCode(StatusCode::SERVICE_UNAVAILABLE) = class {
        return;
    }
    tracing::error!(classification = %class, latency_ms = latency.as_millis(), "response failed");
}

/// A request whose handling panicked: 500 with a GraphQL error coded INTERNAL, never a dropped
/// connection. What panicked is logged, not shown.
fn panicked(panic: Box<dyn std::any::Any + Send + 'static>) -> axum::response::Response {
    let detail = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("a panic without a message");
    tracing::error!(detail, "a request panicked");
    reply::refused(
        media::Media::Json,
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal error".into(),
        ErrorCode::Internal,
    )
}
