//! What the commands besides `serve` take: `channel` (and its webhooks), `operator`, `demo`.

use clap::{Args, Subcommand, ValueEnum};

use super::serve::parse_ticket_secret;
use crate::domain::ticket_codes::TicketSecret;

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
