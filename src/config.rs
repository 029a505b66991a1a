//! Settings from command-line flags and environment variables (clap).

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::domain::paging::PageLimits;
use crate::domain::rate_limit::RateLimit;
use crate::domain::ticket_codes::TicketSecret;
use crate::graphql::QueryLimits;
use crate::holds::rules::HoldPolicy;
use crate::idempotency::KeyPolicy;
use crate::store::{DatabaseOptions, WriteAcknowledgment};

/// Boxoffice: a GraphQL gateway for cinema ticketing on MongoDB.
#[derive(Debug, Parser)]
#[command(name = "boxoffice", version, about)]
pub struct Cli {
    #[command(flatten)]
    pub database: DatabaseArgs,
    #[command(flatten)]
    pub telemetry: crate::telemetry::TelemetryArgs,
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per process: the size of the `serve` variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the GraphQL API and the playground.
    Serve(ServeArgs),
    /// Generate demo data into the database.
    Demo(DemoArgs),
    /// Manage sales channels.
    #[command(subcommand)]
    Channel(ChannelCommand),
    /// Manage operators (cinema chains and the platform, who write the catalogue).
    #[command(subcommand)]
    Operator(OperatorCommand),
    /// Print the schema (SDL).
    Schema,
}

#[derive(Debug, Subcommand)]
pub enum ChannelCommand {
    /// Create a channel and print its API key (shown this once; only its hash is stored).
    Create {
        /// The channel's code, used in prices and filters, e.g. "maoyan".
        #[arg(long)]
        code: String,
        /// Its display name, e.g. "猫眼电影".
        #[arg(long)]
        name: String,
        /// Its own rate limit, in operations a second (default: the gateway's
        /// `--channel-requests-per-second`).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        requests_per_second: Option<u32>,
        /// Its own burst (default: twice its `--requests-per-second`).
        #[arg(long, requires = "requests_per_second", value_parser = clap::value_parser!(u32).range(1..))]
        burst: Option<u32>,
    },
    /// A channel's webhook endpoints.
    #[command(subcommand)]
    Webhook(WebhookCommand),
}

#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// Make a webhook endpoint for a channel and print its signing secret (shown this once;
    /// derived from the ticket secret, which must be the deployment's).
    Add {
        /// The channel's code, e.g. "maoyan".
        #[arg(long)]
        channel: String,
        /// Where its events are POSTed: a public https URL.
        #[arg(long)]
        url: String,
        /// The event types to send, comma-separated (all when absent), e.g.
        /// `ORDER_CONFIRMED,ORDER_CANCELLED`.
        #[arg(long, value_delimiter = ',')]
        types: Vec<String>,
        /// Allow an http or internal URL (tests and the demo).
        #[arg(long)]
        allow_private: bool,
        /// The deployment's ticket secret, from which every gateway derives the endpoint's
        /// signing secret.
        #[arg(long, env = "BOXOFFICE_TICKET_SECRET", hide_env_values = true, value_parser = parse_ticket_secret)]
        ticket_secret: TicketSecret,
    },
}

#[derive(Debug, Subcommand)]
pub enum OperatorCommand {
    /// Create an operator and print its API key (shown this once; only its hash is stored).
    Create {
        /// The operator's code, e.g. "wanda".
        #[arg(long)]
        code: String,
        /// Its display name, e.g. "万达电影".
        #[arg(long)]
        name: String,
        /// The cinemas it may write (their ids, as the API gives them, comma-separated).
        #[arg(long, value_delimiter = ',', required_unless_present = "all")]
        cinemas: Vec<String>,
        /// Every cinema: the platform operator, who also reads the audit log.
        #[arg(long, conflicts_with = "cinemas")]
        all: bool,
    },
}

/// Where the data lives.
#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// MongoDB connection string (a replica set or Atlas in production).
    #[arg(
        long,
        env = "MONGODB_URI",
        default_value = "mongodb://127.0.0.1:27017",
        global = true
    )]
    pub mongodb_uri: String,
    /// Database name.
    #[arg(
        long,
        env = "BOXOFFICE_DATABASE",
        default_value = "boxoffice",
        global = true
    )]
    pub database: String,
    /// How long finding a server, and each database operation of a request, may take, in
    /// milliseconds; past it the request is answered UNAVAILABLE (HTTP 503).
    #[arg(long, env = "BOXOFFICE_DB_TIMEOUT_MS", default_value_t = 2000, global = true, value_parser = clap::value_parser!(u64).range(50..=600_000))]
    pub db_timeout_ms: u64,
    /// Database connections a gateway process opens for requests (the driver's pool; its own
    /// default is 10): the ceiling of how many requests it lets use the database at once. The
    /// limit itself follows the database's latency (`overload::limit`), so several gateways
    /// on one database settle together without this being set by hand. Background passes,
    /// the event relay and the change feeds have a small pool of their own.
    #[arg(long, env = "BOXOFFICE_DB_MAX_POOL_SIZE", default_value_t = 32, global = true, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub db_max_pool_size: u32,
    /// How long a request may wait for its turn to use the database, in milliseconds: one
    /// whose turn would come later (by how long places are held and how many wait) is refused
    /// at once with 503 and `Retry-After`, having sent no command.
    #[arg(long, env = "BOXOFFICE_ADMISSION_WAIT_MS", default_value_t = 1000, global = true, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub admission_wait_ms: u64,
    /// Write concern `w` of every write: `majority`, or a number of nodes.
    #[arg(long, env = "BOXOFFICE_WRITE_CONCERN", default_value = "majority", global = true, value_parser = parse_write_concern)]
    pub write_concern: WriteAcknowledgment,
    /// Whether writes must reach the journal before they are acknowledged (`true`/`false`).
    #[arg(long, env = "BOXOFFICE_WRITE_JOURNAL", default_value_t = true, global = true, action = clap::ArgAction::Set)]
    pub write_journal: bool,
    /// Read concern of every read: `majority`, `local` or `linearizable`.
    #[arg(long, env = "BOXOFFICE_READ_CONCERN", default_value = "majority", global = true, value_parser = ["majority", "local", "linearizable"])]
    pub read_concern: String,
}

impl DatabaseArgs {
    /// How the store connects.
    pub fn options(&self) -> DatabaseOptions {
        DatabaseOptions {
            timeout: Duration::from_millis(self.db_timeout_ms),
            write_concern: self.write_concern.clone(),
            journal: self.write_journal,
            read_concern: self.read_concern.clone(),
            monitor_commands: false,
            max_pool_size: self.db_max_pool_size,
            admission_wait: Duration::from_millis(self.admission_wait_ms),
            open_connections_at_start: true,
        }
    }
}

fn parse_write_concern(value: &str) -> Result<WriteAcknowledgment, String> {
    match value {
        "majority" => Ok(WriteAcknowledgment::Majority),
        number => match number.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(WriteAcknowledgment::Nodes(n)),
            _ => Err(format!(
                "`{value}` is neither `majority` nor a number of nodes (1 or more)"
            )),
        },
    }
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "BOXOFFICE_BIND", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// Load the small demo data set when the catalogue is empty.
    #[arg(long, env = "BOXOFFICE_DEMO_DATA")]
    pub demo_data: bool,
    #[command(flatten)]
    pub limits: Limits,
    #[command(flatten)]
    pub booking: BookingArgs,
    #[command(flatten)]
    pub catalogue: CatalogueArgs,
    #[command(flatten)]
    pub process: ProcessArgs,
    #[command(flatten)]
    pub events: EventArgs,
    /// The header in which a trusted reverse proxy names the client's address (e.g.
    /// `X-Forwarded-For`; its last address counts, the one the proxy added). Without it, the
    /// peer address of the connection names the client.
    #[arg(long, env = "BOXOFFICE_CLIENT_IP_HEADER")]
    pub client_ip_header: Option<axum::http::HeaderName>,
    /// Web origins whose pages may call the API from a browser (CORS), e.g.
    /// `https://tickets.example.com`; comma-separated. None by default: no cross-origin calls.
    #[arg(long, env = "BOXOFFICE_CORS_ORIGINS", value_delimiter = ',')]
    pub cors_origins: Vec<axum::http::HeaderValue>,
    /// The secret ticket codes and pickup codes are derived from: 32 bytes or more in
    /// base64url, the same for every gateway of a deployment (`openssl rand -base64 32 | tr
    /// '+/' '-_'`). Without it a random one is made at start-up: codes then verify on this
    /// process only, until it stops. Never logged.
    #[arg(long, env = "BOXOFFICE_TICKET_SECRET", hide_env_values = true, value_parser = parse_ticket_secret)]
    pub ticket_secret: Option<TicketSecret>,
    /// Where the other gateways of this database reach this one, to send it the writes of the
    /// showtimes it owns (`http://10.0.0.7:8080`; see docs/deployment.md). By default the
    /// address it listens on, when that is a specific one; with `0.0.0.0` and no URL it takes
    /// no other gateway's writes (and still sends them theirs). `none`: it neither sends nor
    /// takes any. Needs `--ticket-secret`, which signs what gateways send each other.
    #[arg(long, env = "BOXOFFICE_PEER_URL", value_parser = parse_peer_url)]
    pub peer_url: Option<PeerUrl>,
    /// The database is a sharded cluster: before serving, check its collections' shard keys
    /// against the design (docs/sharding.md) and refuse to start, naming the collection, on
    /// another key; warn for a collection the design shards that is not. Checked too when the
    /// server says it is `mongos`.
    #[arg(long, env = "BOXOFFICE_SHARDED")]
    pub sharded: bool,
    /// Serve the schema as an Apollo Federation v2 subgraph: `_service` and `_entities`, with
    /// `@key(fields: "id")` on Cinema, Movie, Showtime and Order (orders only to their
    /// channel: the router must pass `Authorization` on).
    #[arg(long, env = "BOXOFFICE_FEDERATION")]
    pub federation: bool,
}

/// `--peer-url`: a URL, or `none`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerUrl {
    At(String),
    None,
}

impl PeerUrl {
    /// The URL this gateway advertises listening on `bound`, when it forwards at all (None
    /// inside: it forwards but takes nothing), or None when it does not forward.
    pub fn advertised(given: Option<&PeerUrl>, bound: SocketAddr) -> Option<Option<String>> {
        match given {
            Some(PeerUrl::None) => None,
            Some(PeerUrl::At(url)) => Some(Some(url.clone())),
            None if bound.ip().is_unspecified() => Some(None),
            None => Some(Some(format!("http://{bound}"))),
        }
    }
}

fn parse_peer_url(text: &str) -> Result<PeerUrl, String> {
    if text == "none" {
        return Ok(PeerUrl::None);
    }
    let url = reqwest::Url::parse(text).map_err(|error| format!("`{text}`: {error}"))?;
    let plain = matches!(url.scheme(), "http" | "https")
        && url.host().is_some()
        && url.path() == "/"
        && url.query().is_none()
        && url.username().is_empty()
        && url.password().is_none();
    if !plain {
        return Err(format!(
            "`{text}`: an http(s) URL of a host and port, without path, query or user              (`http://10.0.0.7:8080`), or `none`"
        ));
    }
    Ok(PeerUrl::At(text.trim_end_matches('/').to_owned()))
}

fn parse_ticket_secret(text: &str) -> Result<TicketSecret, String> {
    TicketSecret::parse(text).map_err(|error| error.to_string())
}

/// The channels' event logs.
#[derive(Debug, Clone, Copy, Args)]
pub struct EventArgs {
    /// How long each channel's events are kept, in hours: a channel may read on (or
    /// subscribe again) from any cursor this young.
    #[arg(long, env = "BOXOFFICE_EVENT_RETENTION_HOURS", default_value_t = 168, value_parser = clap::value_parser!(i64).range(1..=2160))]
    pub event_retention_hours: i64,
    /// Let webhook endpoints be `http` and point at private, loopback or internal addresses
    /// (tests and the demo only: in production every endpoint is a public `https` URL).
    #[arg(long, env = "BOXOFFICE_WEBHOOKS_ALLOW_PRIVATE")]
    pub webhooks_allow_private: bool,
    /// How long a gateway keeps a webhook endpoint to itself without a write, in
    /// milliseconds: another takes it over only after this (its gateway died or stalled). The
    /// gateway renews it every third of it, also while a POST is in flight, so a dead gateway's
    /// endpoints move within about this long.
    #[arg(long, env = "BOXOFFICE_WEBHOOK_LEASE_MS", default_value_t = 5_000, value_parser = clap::value_parser!(u64).range(1_000..=600_000))]
    pub webhook_lease_ms: u64,
}

impl EventArgs {
    pub fn webhook_lease(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.webhook_lease_ms)
    }

    pub fn retention(&self) -> crate::channel_events::rules::Retention {
        crate::channel_events::rules::Retention::hours(self.event_retention_hours)
            .expect("clap checks the range")
    }
}

/// What operators may write.
#[derive(Debug, Clone, Copy, Args)]
pub struct CatalogueArgs {
    /// The most seats a hall's layout may have (1 to 1,000).
    #[arg(long, env = "BOXOFFICE_MAX_HALL_SEATS", default_value_t = 1000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=crate::domain::layout::MAX_CAPACITY as u64))]
    pub max_hall_seats: usize,
    /// Minutes a hall needs for cleaning after a showtime ends before the next may start.
    #[arg(long, env = "BOXOFFICE_CLEANING_GAP_MINUTES", default_value_t = 15, value_parser = clap::value_parser!(u32).range(0..=240))]
    pub cleaning_gap_minutes: u32,
}

impl Default for CatalogueArgs {
    fn default() -> Self {
        CatalogueArgs {
            max_hall_seats: 1000,
            cleaning_gap_minutes: 15,
        }
    }
}

impl CatalogueArgs {
    pub fn rules(&self) -> crate::catalogue::rules::limits::CatalogueRules {
        crate::catalogue::rules::limits::CatalogueRules {
            max_hall_seats: self.max_hall_seats,
            cleaning_gap: chrono::TimeDelta::minutes(i64::from(self.cleaning_gap_minutes)),
        }
    }
}

/// The booking policy and the pace of the passes that keep it: how many seats a hold takes
/// and how long it lasts, how often expired holds are swept and the sales figures caught up,
/// how long an idempotency key is leased, and the admission window.
#[derive(Debug, Clone, Copy, Args)]
pub struct BookingArgs {
    /// The most seats one hold may take (1 to 10).
    #[arg(long, env = "BOXOFFICE_MAX_SEATS_PER_HOLD", default_value_t = 6, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=crate::domain::list_caps::MAX_SEATS_PER_HOLD as u64))]
    pub max_seats_per_hold: usize,
    /// How long a hold lasts, in seconds.
    #[arg(long, env = "BOXOFFICE_HOLD_TTL_SECONDS", default_value_t = crate::holds::rules::HOLD_SECONDS)]
    pub hold_ttl_seconds: u64,
    /// How much longer a hold lasts once `extendHold` extended it (once per hold), in seconds.
    #[arg(long, env = "BOXOFFICE_HOLD_EXTENSION_SECONDS", default_value_t = crate::holds::rules::EXTENSION_SECONDS, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub hold_extension_seconds: u64,
    /// How often expired holds are returned to sale, in seconds.
    #[arg(long, env = "BOXOFFICE_SWEEP_INTERVAL_SECONDS", default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..))]
    pub sweep_interval_seconds: u64,
    /// How often the sales figures catch up with confirmed and cancelled orders, in
    /// milliseconds.
    #[arg(long, env = "BOXOFFICE_SALES_INTERVAL_MS", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(10..))]
    pub sales_interval_ms: u64,
    /// How long a request with an idempotency key keeps the key after its last heartbeat, in
    /// milliseconds: a retry takes the key over only once this has passed (the first attempt
    /// died or stalled). It renews the lease every third of it.
    #[arg(long, env = "BOXOFFICE_KEY_LEASE_MS", default_value_t = 3000, value_parser = clap::value_parser!(u64).range(300..=600_000))]
    pub key_lease_ms: u64,
    /// How long before a showtime's start its tickets start to admit at the door, in minutes.
    #[arg(long, env = "BOXOFFICE_ADMISSION_OPENS_MINUTES", default_value_t = 60, value_parser = clap::value_parser!(u32).range(0..=1440))]
    pub admission_opens_minutes: u32,
    /// How long after a showtime's start its tickets still admit, in minutes.
    #[arg(long, env = "BOXOFFICE_ADMISSION_CLOSES_MINUTES", default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=1440))]
    pub admission_closes_minutes: u32,
}

impl Default for BookingArgs {
    fn default() -> Self {
        BookingArgs {
            max_seats_per_hold: 6,
            hold_ttl_seconds: crate::holds::rules::HOLD_SECONDS,
            hold_extension_seconds: crate::holds::rules::EXTENSION_SECONDS,
            sweep_interval_seconds: 15,
            sales_interval_ms: 1000,
            key_lease_ms: 3000,
            admission_opens_minutes: 60,
            admission_closes_minutes: 30,
        }
    }
}

impl BookingArgs {
    /// How often the background tasks run.
    pub fn intervals(&self) -> crate::background::Intervals {
        crate::background::Intervals {
            sweep: std::time::Duration::from_secs(self.sweep_interval_seconds.max(1)),
            sales: std::time::Duration::from_millis(self.sales_interval_ms.max(10)),
            offer_policy: self.hold_policy(),
        }
    }

    pub fn key_policy(&self) -> KeyPolicy {
        KeyPolicy {
            lease: Duration::from_millis(self.key_lease_ms),
            ..KeyPolicy::default()
        }
    }

    /// When tickets admit at the door.
    pub fn admission_window(&self) -> crate::admissions::AdmissionWindow {
        crate::admissions::AdmissionWindow {
            opens_before: chrono::Duration::minutes(self.admission_opens_minutes.into()),
            closes_after: chrono::Duration::minutes(self.admission_closes_minutes.into()),
        }
    }

    pub fn hold_policy(&self) -> HoldPolicy {
        HoldPolicy {
            max_seats: self.max_seats_per_hold,
            ttl: std::time::Duration::from_secs(self.hold_ttl_seconds),
            extension: std::time::Duration::from_secs(self.hold_extension_seconds),
        }
    }
}

/// Request limits.
#[derive(Debug, Clone, Copy, Args)]
pub struct Limits {
    /// Deepest query nesting accepted.
    #[arg(long, env = "BOXOFFICE_MAX_DEPTH", default_value_t = 12)]
    pub max_depth: usize,
    /// Highest query complexity accepted (a connection costs `first` × its nodes' cost).
    #[arg(long, env = "BOXOFFICE_MAX_COMPLEXITY", default_value_t = 50_000)]
    pub max_complexity: usize,
    /// Largest `first` of any connection.
    #[arg(long, env = "BOXOFFICE_MAX_PAGE_SIZE", default_value_t = 100)]
    pub max_page_size: usize,
    /// Most lexical tokens in a query (counted before it is parsed).
    #[arg(long, env = "BOXOFFICE_MAX_TOKENS", default_value_t = 2000)]
    pub max_tokens: usize,
    /// Most aliases in a query.
    #[arg(long, env = "BOXOFFICE_MAX_ALIASES", default_value_t = 15)]
    pub max_aliases: usize,
    /// Most directives in a query.
    #[arg(long, env = "BOXOFFICE_MAX_DIRECTIVES", default_value_t = 50)]
    pub max_directives: usize,
    /// How deep a query may nest: brackets in its text (selection sets, lists, input objects,
    /// arguments), values in its variables, and selection sets with its fragments expanded.
    /// Checked before the query is parsed, so it bounds the parser's recursion too.
    #[arg(long, env = "BOXOFFICE_MAX_NESTING", default_value_t = 32, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub max_nesting: usize,
    /// How many automatic persisted queries (sent once with their SHA-256, then by hash) a
    /// gateway process remembers; the oldest go first.
    #[arg(long, env = "BOXOFFICE_PERSISTED_QUERIES", default_value_t = 1000)]
    pub persisted_queries: usize,
    /// Whether the schema answers introspection (`__schema`, `__type`): the playground needs
    /// it; `false` turns it off.
    #[arg(long, env = "BOXOFFICE_INTROSPECTION", default_value_t = true, action = clap::ArgAction::Set)]
    pub introspection: bool,
    /// Largest request body, in bytes.
    #[arg(long, env = "BOXOFFICE_MAX_BODY_BYTES", default_value_t = 64 * 1024)]
    pub max_body_bytes: usize,
    /// Most operations in one batched request.
    #[arg(long, env = "BOXOFFICE_MAX_BATCH", default_value_t = 10)]
    pub max_batch: usize,
    /// How long a request may run, in milliseconds; past it, it is stopped where it is and
    /// answered REQUEST_TIMEOUT (HTTP 504). A write stopped so has its idempotency key given
    /// up at once: retry it with the key.
    #[arg(long, env = "BOXOFFICE_REQUEST_TIMEOUT_MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub request_timeout_ms: u64,
    /// Most GraphQL requests (over HTTP) a gateway process holds at once, whatever they are
    /// doing (a ceiling for memory: how many use the database at once follows its latency);
    /// past it a request is refused at once, before its body is read, with 503 UNAVAILABLE
    /// and `Retry-After`.
    #[arg(long, env = "BOXOFFICE_MAX_IN_FLIGHT", default_value_t = 512, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub max_in_flight: usize,
    /// Operations a second a channel may run on average, per gateway process, unless its
    /// record sets its own limit.
    #[arg(long, env = "BOXOFFICE_CHANNEL_REQUESTS_PER_SECOND", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub channel_requests_per_second: u32,
    /// Operations a channel may run at once after a quiet spell.
    #[arg(long, env = "BOXOFFICE_CHANNEL_BURST", default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..))]
    pub channel_burst: u32,
    /// Operations a second an anonymous client (one address) may run, per gateway process.
    #[arg(long, env = "BOXOFFICE_ANONYMOUS_REQUESTS_PER_SECOND", default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub anonymous_requests_per_second: u32,
    /// Operations an anonymous client may run at once after a quiet spell.
    #[arg(long, env = "BOXOFFICE_ANONYMOUS_BURST", default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    pub anonymous_burst: u32,
    /// Most WebSocket connections (subscriptions) a gateway process keeps open; past it, an
    /// upgrade is refused with 503 UNAVAILABLE.
    #[arg(long, env = "BOXOFFICE_MAX_LIVE_CONNECTIONS", default_value_t = 10_000, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_live_connections: usize,
    /// Most operations (subscriptions) running at once on one WebSocket connection; past it,
    /// a `subscribe` is refused with SUBSCRIPTION_LIMIT.
    #[arg(long, env = "BOXOFFICE_MAX_SUBSCRIPTIONS_PER_CONNECTION", default_value_t = 20, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_subscriptions_per_connection: usize,
    /// How long a WebSocket connection may take to send `connection_init`, in milliseconds;
    /// past it, it is closed with 4408.
    #[arg(long, env = "BOXOFFICE_LIVE_INIT_TIMEOUT_MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(10..))]
    pub live_init_timeout_ms: u64,
    /// How long a WebSocket connection may stay open with no subscription and no message, in
    /// milliseconds; past it, it is closed (1000, "idle").
    #[arg(long, env = "BOXOFFICE_LIVE_IDLE_TIMEOUT_MS", default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(10..))]
    pub live_idle_timeout_ms: u64,
    /// How many seat-map changes of one showtime a subscriber may fall behind before it is
    /// sent a fresh whole map instead of the changes it missed.
    #[arg(long, env = "BOXOFFICE_LIVE_BUFFER", default_value_t = 256, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=65_536))]
    pub live_buffer: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 12,
            max_complexity: 50_000,
            max_page_size: 100,
            max_tokens: 2000,
            max_aliases: 15,
            max_directives: 50,
            max_nesting: 32,
            persisted_queries: 1000,
            introspection: true,
            max_body_bytes: 64 * 1024,
            max_batch: 10,
            request_timeout_ms: 10_000,
            max_in_flight: 512,
            channel_requests_per_second: 1000,
            channel_burst: 2000,
            anonymous_requests_per_second: 100,
            anonymous_burst: 200,
            max_live_connections: 10_000,
            max_subscriptions_per_connection: 20,
            live_init_timeout_ms: 10_000,
            live_idle_timeout_ms: 60_000,
            live_buffer: 256,
        }
    }
}

impl Limits {
    pub fn query(&self) -> QueryLimits {
        QueryLimits {
            max_depth: self.max_depth,
            max_complexity: self.max_complexity,
            max_tokens: self.max_tokens,
            max_aliases: self.max_aliases,
            max_directives: self.max_directives,
            max_nesting: self.max_nesting,
            introspection: self.introspection,
        }
    }

    /// The default rate limit of a channel.
    pub fn channel_rate(&self) -> RateLimit {
        RateLimit {
            per_second: self.channel_requests_per_second,
            burst: self.channel_burst,
        }
    }

    /// The rate limit of an anonymous client.
    pub fn anonymous_rate(&self) -> RateLimit {
        RateLimit {
            per_second: self.anonymous_requests_per_second,
            burst: self.anonymous_burst,
        }
    }

    pub fn pages(&self) -> PageLimits {
        PageLimits {
            max_first: self.max_page_size,
        }
    }
}

/// How a gateway process stops, and how it finds the others on its database.
#[derive(Debug, Clone, Copy, Args)]
pub struct ProcessArgs {
    /// After SIGTERM or Ctrl-C, how long requests in flight (and WebSocket connections, closed
    /// with 1001) may take to finish, in milliseconds; past it they are dropped and the process
    /// exits anyway.
    #[arg(long, env = "BOXOFFICE_SHUTDOWN_GRACE_MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    pub shutdown_grace_ms: u64,
    /// How often this process records itself alive in the `gateways` collection and counts the
    /// live gateways (those seen within three of these), in milliseconds. Each process takes
    /// that share of every rate limit.
    #[arg(long, env = "BOXOFFICE_GATEWAY_HEARTBEAT_MS", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(50..=600_000))]
    pub gateway_heartbeat_ms: u64,
}

impl ProcessArgs {
    /// The grace of a graceful stop.
    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_millis(self.shutdown_grace_ms)
    }

    /// The gateway heartbeat's interval.
    pub fn heartbeat(&self) -> Duration {
        Duration::from_millis(self.gateway_heartbeat_ms)
    }
}

/// How much demo data to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Scale {
    /// 40 cinemas, 3 days: a few seconds.
    Small,
    /// 500 cinemas, 2 days.
    Medium,
    /// The seed document's national scale: 5,000 cinemas × 8 halls × 6 showtimes, 1 day.
    National,
}

#[derive(Debug, Clone, Args)]
pub struct DemoArgs {
    /// Preset size.
    #[arg(long, value_enum, default_value_t = Scale::Small)]
    pub scale: Scale,
    /// Number of cinemas (overrides the preset).
    #[arg(long)]
    pub cinemas: Option<usize>,
    /// Days of showtimes from today (overrides the preset).
    #[arg(long)]
    pub days: Option<u32>,
    /// Random seed: the same seed makes the same catalogue.
    #[arg(long, default_value_t = 2015)]
    pub seed: u64,
    /// Drop the database first.
    #[arg(long)]
    pub reset: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_concern_is_majority_or_a_number_of_nodes() {
        assert_eq!(
            parse_write_concern("majority"),
            Ok(WriteAcknowledgment::Majority)
        );
        assert_eq!(parse_write_concern("2"), Ok(WriteAcknowledgment::Nodes(2)));
        for bad in ["0", "-1", "all", ""] {
            assert!(parse_write_concern(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_peer_url_is_a_plain_http_address_or_none() {
        assert_eq!(parse_peer_url("none"), Ok(PeerUrl::None));
        assert_eq!(
            parse_peer_url("http://10.0.0.7:8080/"),
            Ok(PeerUrl::At("http://10.0.0.7:8080".into()))
        );
        for bad in [
            "",
            "10.0.0.7:8080",
            "ftp://a:1",
            "http://a:1/graphql",
            "http://u:p@a:1",
        ] {
            assert!(parse_peer_url(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_gateway_advertises_where_it_listens_unless_that_is_anywhere() {
        let specific: SocketAddr = "10.0.0.7:8080".parse().unwrap();
        let anywhere: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        let given = PeerUrl::At("http://gw1:8080".into());
        assert_eq!(
            PeerUrl::advertised(None, specific),
            Some(Some("http://10.0.0.7:8080".into()))
        );
        assert_eq!(PeerUrl::advertised(None, anywhere), Some(None));
        assert_eq!(
            PeerUrl::advertised(Some(&given), anywhere),
            Some(Some("http://gw1:8080".into()))
        );
        assert_eq!(PeerUrl::advertised(Some(&PeerUrl::None), specific), None);
    }
}
