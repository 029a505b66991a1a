//! The store's shared plumbing: the database client (`Store`, its lanes, timeouts and
//! transactions), the codec, the document shapes several features read (`documents`), the
//! collections' names (`names`) and the indexes each feature declares (`indexes`), the outbox
//! the relay drains (`outbox`), bulk inserts (`inserts`), updates sent together
//! (`grouped_sets`), the command log and metrics, `explain`, the options (`options`), the
//! errors (`errors`), the shared reads (`reads`), readiness and warm-up, and the test-only fault
//! points (`faults`). Each feature's queries and writes live in its own `store/`
//! (`crate::<feature>::store`) as methods on `Store`, with its own shapes and indexes; the
//! callers of a feature pass typed ids and get documents back, never a filter.

mod closing;
pub(crate) mod codec;
mod command_log;
pub(crate) mod command_metrics;
pub mod documents;
mod errors;
mod explain;
mod faults;
pub(crate) mod filters;
mod final_records;
mod freed;
mod freed_marks;
pub(crate) use final_records::FinalRecords;
mod gate;
mod grouped_sets;
pub mod indexes;
mod inserts;
mod notes;
mod one_writer;
mod options;
mod outbox;
mod readiness;
mod reads;
mod transactions;
mod warm_up;

use std::future::IntoFuture;
use std::sync::Arc;
use std::time::Duration;

use mongodb::options::{Acknowledgment, ClientOptions, ReadConcern, WriteConcern};
use mongodb::{Client, Collection, Database};

pub use codec::{created_at, new_id, now};
pub use command_log::{CommandLog, SentCommand};
pub(crate) use errors::is_duplicate_key;
pub use explain::Plan;
pub use faults::{CrashPoint, DelayPoint, FeedBreak, PausePoint};
#[cfg(feature = "test-hooks")]
pub use faults::{Faults, Pause};
pub use freed_marks::{FreedMark, FreedSince};
pub use gate::Lane;
#[cfg(feature = "test-hooks")]
pub use gate::Occupied;
pub(crate) use inserts::only_duplicate_keys;
pub(crate) use one_writer::WriteTurn;
use options::FEEDS;
pub use options::{DatabaseOptions, WriteAcknowledgment, BACKGROUND_POOL};
pub(crate) use outbox::push_entries;
pub use outbox::{new_entry, NotedOutboxes, OutboxKind, OutboxSource, PendingOutboxes};
pub use readiness::Readiness;
pub use reads::DatabaseSize;

use crate::channel_events::rules::Retention;
use crate::error::ApiError;
use command_metrics::Call;

pub mod names;
pub mod shard_keys;

/// The `comment` on the commands of background work a request does not wait for (the event
/// relay): the command log leaves them out, so a request's round trips are its own.
pub(crate) const BACKGROUND: &str = "boxoffice:background";

/// A handle on the database; cheap to clone.
#[derive(Clone)]
pub struct Store {
    db: Database,
    /// The permits of this handle's lane: one per pooled connection.
    gate: Arc<gate::Gate>,
    /// The other lane's database and gate, for [`Store::background`] and back.
    lanes: Arc<Lanes>,
    timeout: Duration,
    commands: Arc<CommandLog>,
    /// Documents this process gave events that the relay has not taken yet.
    outbox: Arc<PendingOutboxes>,
    /// Showtimes whose seats this process freed, for the waiting lists (`freed`).
    freed: Arc<notes::Notes<std::collections::HashSet<crate::domain::ids::ShowtimeId>>>,
    /// When this process last freed seats of each showtime (`freed_marks`).
    freed_marks: Arc<freed_marks::FreedMarks>,
    /// Records this process knows to be final: answered idempotency keys (`final_records`).
    final_records: Arc<final_records::FinalRecords>,
    /// Showtimes a party just joined the line of through this process (`freed`).
    joined: Arc<notes::Notes<std::collections::HashSet<crate::domain::ids::ShowtimeId>>>,
    /// The documents this process writes, one write at a time each (`one_writer`).
    writers: Arc<one_writer::OneWriter>,
    /// `$set` updates waiting to be sent together (`grouped_sets`).
    sets: Arc<grouped_sets::SetQueues>,
    /// How long channels' events are kept.
    event_retention: Retention,
    /// Changes leave no events (the event log benchmark measures the gateway without it).
    #[cfg(feature = "test-hooks")]
    without_events: bool,
    #[cfg(feature = "test-hooks")]
    faults: Arc<Faults>,
}

impl Store {
    /// Connects to `uri` with the default options and uses database `database`.
    pub async fn connect(uri: &str, database: &str) -> Result<Self, ApiError> {
        Store::connect_with(uri, database, &DatabaseOptions::default()).await
    }

    /// Connects to `uri` and uses database `database`. With `monitor_commands`, every command
    /// this handle sends can be recorded in [`Store::commands`], so tests can count round
    /// trips per request.
    #[tracing::instrument(skip(uri))]
    pub async fn connect_with(
        uri: &str,
        database: &str,
        settings: &DatabaseOptions,
    ) -> Result<Self, ApiError> {
        let mut options = ClientOptions::parse(uri).await?;
        options
            .app_name
            .get_or_insert_with(|| "boxoffice".to_owned());
        // The gate's permits decide how many commands run at once; the pool only has to hold
        // them.
        options.max_pool_size = Some(settings.max_pool_size + FEEDS);
        options.min_pool_size = settings
            .open_connections_at_start
            .then_some(settings.max_pool_size);
        options.server_selection_timeout = Some(settings.timeout);
        options.connect_timeout = Some(settings.timeout);
        options.write_concern = Some(
            WriteConcern::builder()
                .w(match settings.write_concern {
                    WriteAcknowledgment::Majority => Acknowledgment::Majority,
                    WriteAcknowledgment::Nodes(n) => Acknowledgment::Nodes(n),
                })
                .journal(settings.journal)
                .build(),
        );
        options.read_concern = Some(ReadConcern::custom(settings.read_concern.clone()));
        let commands = Arc::new(CommandLog::default());
        options.command_event_handler =
            command_metrics::handler(&commands, settings, Lane::Requests);
        let client = Client::with_options(options.clone())?;
        options.max_pool_size = Some(BACKGROUND_POOL + FEEDS);
        options.min_pool_size = None;
        options.command_event_handler =
            command_metrics::handler(&commands, settings, Lane::Background);
        let background = Client::with_options(options)?;
        let lanes = Arc::new(Lanes {
            requests: (
                client.database(database),
                Arc::new(gate::Gate::new(
                    Lane::Requests,
                    settings.max_pool_size as usize,
                    settings.admission_wait,
                    settings.latency_probes,
                )),
            ),
            background: (
                background.database(database),
                Arc::new(gate::Gate::new(
                    Lane::Background,
                    BACKGROUND_POOL as usize,
                    settings.timeout,
                    false,
                )),
            ),
        });
        Ok(Store {
            db: lanes.requests.0.clone(),
            gate: Arc::clone(&lanes.requests.1),
            lanes,
            timeout: settings.timeout,
            commands,
            outbox: Arc::default(),
            freed: Arc::default(),
            freed_marks: Arc::default(),
            final_records: Arc::default(),
            joined: Arc::default(),
            sets: Arc::default(),
            writers: Arc::default(),
            event_retention: Retention::default(),
            #[cfg(feature = "test-hooks")]
            without_events: false,
            #[cfg(feature = "test-hooks")]
            faults: Arc::default(),
        })
    }

    /// The same database through the background lane's connections: for work no request
    /// waits for, which must never take the connections requests need.
    pub fn background(&self) -> Store {
        let (db, gate) = &self.lanes.background;
        Store {
            db: db.clone(),
            gate: Arc::clone(gate),
            ..self.clone()
        }
    }

    /// Takes `count` connections of this handle's lane until the guard is dropped, without a
    /// command: a pool with no connection free (tests of overload).
    #[cfg(feature = "test-hooks")]
    pub fn occupy_connections(&self, count: usize) -> gate::Occupied {
        self.gate.occupy(count)
    }

    /// Takes every place at the requests' door until the guard is dropped: a gateway whose
    /// limit is reached (tests of admission).
    #[cfg(feature = "test-hooks")]
    pub fn occupy_admission(&self) -> gate::Occupied {
        self.lanes.requests.1.occupy_door()
    }

    /// Connections of this handle's lane in use now.
    pub fn connections_in_use(&self) -> usize {
        self.gate.in_use()
    }

    /// Requests waiting at the requests' door: those finishing a purchase, and the others.
    pub fn admission_waiting(&self) -> (usize, usize) {
        self.lanes.requests.1.admission_waiting()
    }

    /// How many requests the door now lets use the database at once (it follows the
    /// database's latency, up to the requests' pool).
    pub fn admission_limit(&self) -> usize {
        self.lanes.requests.1.admission_limit()
    }

    /// `gateways` live gateways share this database: the door's probes of its latency are
    /// this one's part of them, as is the limit's growth, and of the requests' pool it takes
    /// `share` (`overload::limit::pool_share`).
    pub fn set_gateways(&self, gateways: u32, share: f64) {
        (self.lanes.requests.1).set_gateways(gateways as usize, share);
    }

    /// How many of this gateway's requests were in flight or waiting at its door, on average
    /// since the last call: what it wants of the database, said in its heartbeat.
    pub fn take_request_demand(&self) -> f64 {
        self.lanes.requests.1.take_demand()
    }

    /// How many commands this gateway's requests may have in flight at once: its part of the
    /// requests' pool (`--db-max-pool-size`) among the live gateways.
    pub fn request_connections(&self) -> usize {
        self.lanes.requests.1.permits()
    }

    /// How many requests the door lets use the database at most while it probes the
    /// database's latency: its part of the probe, from the live gateways.
    pub fn admission_probe_limit(&self) -> usize {
        self.lanes.requests.1.admission_probe_limit()
    }

    /// The latency the door's limit compares the database's with (its lowest recent probe;
    /// before the first, the average).
    pub fn admission_baseline(&self) -> std::time::Duration {
        self.lanes.requests.1.admission_baseline()
    }

    /// The same database, keeping channels' events for `retention`.
    pub fn with_event_retention(&self, retention: Retention) -> Store {
        Store {
            event_retention: retention,
            ..self.clone()
        }
    }

    /// The same database, where changes leave no events: what the gateway costs without its
    /// event log (benchmarks only; `test-hooks` builds).
    #[cfg(feature = "test-hooks")]
    pub fn without_event_log(&self) -> Store {
        Store {
            without_events: true,
            ..self.clone()
        }
    }

    /// `entries`, or none when this store's changes leave no events (tests that say so).
    pub(crate) fn events_to_keep<'a>(
        &self,
        entries: &'a [documents::OutboxEntryDoc],
    ) -> &'a [documents::OutboxEntryDoc] {
        if self.keeps_events() {
            entries
        } else {
            &[]
        }
    }

    /// Whether changes leave their events.
    pub(crate) fn keeps_events(&self) -> bool {
        #[cfg(feature = "test-hooks")]
        return !self.without_events;
        #[cfg(not(feature = "test-hooks"))]
        true
    }

    /// How long channels' events are kept.
    pub fn event_retention(&self) -> Retention {
        self.event_retention
    }

    /// The same database with another operation timeout (the demo loader's bulk writes and
    /// index builds take longer than a request's operations).
    pub fn with_timeout(&self, timeout: Duration) -> Store {
        Store {
            timeout,
            ..self.clone()
        }
    }

    /// Runs one driver operation within the operation timeout: a database that does not
    /// answer in time is UNAVAILABLE, like one that cannot be reached. `call` names it for
    /// its figures (`command_metrics`).
    pub(crate) async fn bounded<T>(
        &self,
        call: Call,
        operation: impl IntoFuture<Output = mongodb::error::Result<T>>,
    ) -> Result<T, ApiError> {
        Ok(self.bounded_raw(call, operation).await??)
    }

    /// [`Store::bounded`], keeping the driver's error for the caller to look into.
    pub(crate) async fn bounded_raw<T>(
        &self,
        call: Call,
        operation: impl IntoFuture<Output = mongodb::error::Result<T>>,
    ) -> Result<mongodb::error::Result<T>, ApiError> {
        // Made before the wait: the driver's futures are boxed and small, its builders are not,
        // and whatever this function holds across an await makes every caller's future larger.
        let operation = operation.into_future();
        let pass = self.gate.enter(self.timeout).await?;
        let started = std::time::Instant::now();
        let answer = tokio::time::timeout(pass.budget, operation)
            .await
            .map_err(|_| {
                self.gate.timed_out();
                ApiError::unavailable(format!(
                    "the database did not answer within {} ms",
                    pass.budget.as_millis()
                ))
            });
        let took = started.elapsed();
        self.gate.took(took);
        call.record(matches!(answer, Ok(Ok(_))), took);
        answer
    }

    /// The records this process knows to be final (`final_records`).
    pub(crate) fn final_records(&self) -> &FinalRecords {
        &self.final_records
    }

    /// The commands sent so far (for round-trip accounting).
    pub fn commands(&self) -> &CommandLog {
        &self.commands
    }

    /// Test hooks that make bookings crash or pause at chosen points.
    #[cfg(feature = "test-hooks")]
    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    /// The database, for store code that runs a command no collection method sends
    /// (`explain`).
    pub(crate) fn db(&self) -> &Database {
        &self.db
    }

    /// The database name.
    pub fn database_name(&self) -> &str {
        self.db.name()
    }

    /// Pings the server: the health check.
    #[tracing::instrument(skip(self))]
    pub async fn ping(&self) -> Result<(), ApiError> {
        self.bounded(
            Call::new("none", "ping"),
            self.db.run_command(bson::doc! { "ping": 1 }),
        )
        .await?;
        Ok(())
    }

    /// Drops the whole database (tests and `demo --reset`).
    #[tracing::instrument(skip(self))]
    pub async fn drop_database(&self) -> Result<(), ApiError> {
        self.db.drop().await?;
        Ok(())
    }

    /// Waits for this process's turn to write document `id` (`one_writer`): hot documents'
    /// writes go to the database one at a time per process.
    pub(crate) async fn write_turn(&self, id: bson::oid::ObjectId) -> one_writer::WriteTurn {
        self.writers.turn(id).await
    }

    pub(crate) fn collection<T: Send + Sync>(&self, name: &str) -> Collection<T> {
        self.db.collection(name)
    }
}

/// The two lanes of one connection: each a database handle on a client (a pool) of its own,
/// and the gate in front of it.
struct Lanes {
    requests: (Database, Arc<gate::Gate>),
    background: (Database, Arc<gate::Gate>),
}
