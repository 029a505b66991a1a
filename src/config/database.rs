//! Where the data lives: the flags every command takes to reach the database.

use clap::Args;

use crate::store::WriteAcknowledgment;

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
    /// Database connections the live gateways together use for requests (the driver's pool;
    /// its own default is 10): the ceiling of how many commands they keep in flight at once,
    /// each gateway its part (its share of the requests all of them have in flight or
    /// waiting, said in their heartbeats; 2 at least).
    /// The limit itself follows the database's latency (`overload::limit`), so several
    /// gateways on one database settle together without this being set by hand. Background
    /// passes, the event relay and the change feeds have a small pool of their own.
    #[arg(long, env = "BOXOFFICE_DB_MAX_POOL_SIZE", default_value_t = 32, global = true, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub db_max_pool_size: u32,
    /// How long a request may wait for its turn to use the database, in milliseconds: one
    /// whose turn would come later (by how long places are held and how many wait) is refused
    /// at once with 503 and `Retry-After`, having sent no command.
    #[arg(long, env = "BOXOFFICE_ADMISSION_WAIT_MS", default_value_t = 2000, global = true, value_parser = clap::value_parser!(u64).range(1..=60_000))]
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
}
