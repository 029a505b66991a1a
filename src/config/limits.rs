//! The request limits' flags: query shape, bodies and batches, time, load, rates, live.

use clap::Args;

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
