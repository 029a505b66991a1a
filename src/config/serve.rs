//! What `serve` takes: where it listens and how it meets the other gateways, and the flags of
//! the catalogue, the channels' event logs and the process (the booking policy's and the
//! request limits' are in `booking` and `limits`).

use std::net::SocketAddr;

use clap::Args;

use super::{BookingArgs, Limits};
use crate::domain::ticket_codes::TicketSecret;

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

pub(super) fn parse_ticket_secret(text: &str) -> Result<TicketSecret, String> {
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
    /// that share of every rate limit, and of the requests' pool its share of the requests
    /// they all have in flight or waiting (said in its record).
    #[arg(long, env = "BOXOFFICE_GATEWAY_HEARTBEAT_MS", default_value_t = 2000, value_parser = clap::value_parser!(u64).range(50..=600_000))]
    pub gateway_heartbeat_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

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
