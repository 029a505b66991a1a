//! The store's shared plumbing: the database client (`Store`, its lanes, timeouts and
//! transactions), the codec, the document shapes every feature reads (`documents`), the
//! collections' names (`names`) and the index assembly (`indexes`), the outbox the relay
//! drains (`outbox`), bulk inserts (`inserts`), updates sent together (`grouped_sets`), the command log and metrics, `explain`,
//! readiness and warm-up, and the test-only fault points (`faults`). Each feature's queries
//! and writes live in its own `store/` (`crate::<feature>::store`) as methods on `Store`; the
//! callers of a feature pass typed ids and get documents back, never a filter.

mod closing;
pub(crate) mod codec;
mod command_log;
pub(crate) mod command_metrics;
pub mod documents;
mod explain;
mod faults;
pub(crate) mod filters;
mod freed;
mod gate;
mod grouped_sets;
pub mod indexes;
mod inserts;
mod notes;
mod one_writer;
mod outbox;
mod readiness;
mod transactions;
mod warm_up;

use std::future::IntoFuture;
use std::sync::Arc;
use std::time::Duration;

use mongodb::options::{Acknowledgment, ClientOptions, ReadConcern, WriteConcern};
use mongodb::{Client, Collection, Database};

pub use codec::{created_at, new_id, now};
pub use command_log::{CommandLog, SentCommand};
pub use explain::Plan;
pub use faults::{CrashPoint, DelayPoint, FeedBreak, PausePoint};
#[cfg(feature = "test-hooks")]
pub use faults::{Faults, Pause};
pub use gate::Lane;
#[cfg(feature = "test-hooks")]
pub use gate::Occupied;
pub(crate) use inserts::only_duplicate_keys;
pub(crate) use one_writer::WriteTurn;
pub(crate) use outbox::push_entries;
pub use outbox::{new_entry, NotedOutboxes, OutboxKind, OutboxSource, PendingOutboxes};
pub use readiness::Readiness;

use crate::channel_events::rules::Retention;
use crate::error::ApiError;
use command_metrics::Call;

pub mod names;

/// The `comment` on the commands of background work a request does not wait for (the event
/// relay): the command log leaves them out, so a request's round trips are its own.
pub(crate) const BACKGROUND: &str = "boxoffice:background";

/// How the gateway talks to the database: how long it waits, and how durable a write must be
/// before it counts.
#[derive(Debug, Clone)]
pub struct DatabaseOptions {
    /// How long finding a server, and each operation, may take before the request is answered
    /// UNAVAILABLE.
    pub timeout: Duration,
    /// `w` of every write: `majority`, or a number of nodes.
    pub write_concern: WriteAcknowledgment,
    /// Whether a write must be in the journal before it is acknowledged.
    pub journal: bool,
    /// The read concern of every read (`majority`, `local`, `linearizable`).
    pub read_concern: String,
    /// Whether commands are recorded for [`Store::commands`] (round-trip and byte counts in
    /// tests). Off in production: the driver's command monitor decodes every reply. On by
    /// default when built with `test-hooks`.
    pub monitor_commands: bool,
    /// Connections for requests (see `gate`), and the ceiling of the door's limit on
    /// requests using the database at once; background work has [`BACKGROUND_POOL`] of its
    /// own.
    pub max_pool_size: u32,
    /// How long a request may wait at the door for a place (see `overload::door`).
    pub admission_wait: Duration,
    /// Whether the requests' connections are all opened at start, so a cold gateway meeting a
    /// crowd does not open them under it (the gateway: yes; tests, with a pool per test: no).
    pub open_connections_at_start: bool,
}

/// Connections of the background lane: the periodic passes, the event relay, webhook
/// deliveries, counters. Its change feeds (the live maps', the relay's) each hold one more while
/// they wait for changes, so the driver's pool for the lane is larger by [`FEEDS`].
pub const BACKGROUND_POOL: u32 = 4;

/// Connections a lane's driver pool has beyond its gate's permits: for the change streams
/// waiting on their `getMore`, and the commands that run past the gate (a cursor's later
/// batches, a transaction's commit), so that a command let through finds a connection.
const FEEDS: u32 = 4;

/// `w` of a write concern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteAcknowledgment {
    Majority,
    Nodes(u32),
}

impl Default for DatabaseOptions {
    /// What production wants on a replica set: writes on a majority and in the journal,
    /// majority reads, and a 2-second bound on waiting for the database.
    fn default() -> Self {
        DatabaseOptions {
            timeout: Duration::from_secs(2),
            write_concern: WriteAcknowledgment::Majority,
            journal: true,
            read_concern: "majority".to_owned(),
            monitor_commands: cfg!(feature = "test-hooks"),
            max_pool_size: 32,
            admission_wait: crate::overload::door::WAIT,
            open_connections_at_start: false,
        }
    }
}

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
                )),
            ),
            background: (
                background.database(database),
                Arc::new(gate::Gate::new(
                    Lane::Background,
                    BACKGROUND_POOL as usize,
                    settings.timeout,
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
    pub(crate) async fn write_turn(&self, id: bson::oid::ObjectId) -> one_writer::WriteTurn<'_> {
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

impl From<mongodb::error::Error> for ApiError {
    /// A database that cannot be reached or is not answering is UNAVAILABLE (the client may
    /// retry); any other failure is INTERNAL.
    fn from(error: mongodb::error::Error) -> Self {
        use mongodb::error::ErrorKind;
        /// Server errors that mean "not now": shutting down, stepping down, no primary.
        const NOT_NOW: [i32; 9] = [6, 7, 89, 91, 189, 10107, 11600, 11602, 13435];
        let unavailable = match &*error.kind {
            ErrorKind::ServerSelection { .. }
            | ErrorKind::Io(_)
            | ErrorKind::ConnectionPoolCleared { .. }
            | ErrorKind::Shutdown => true,
            ErrorKind::Command(command) => NOT_NOW.contains(&command.code),
            _ => false,
        };
        if unavailable {
            ApiError::unavailable_caused("the database is not answering", error)
        } else {
            ApiError::internal_caused("a database command failed", error)
        }
    }
}

impl From<bson::de::Error> for ApiError {
    fn from(error: bson::de::Error) -> Self {
        ApiError::internal_caused("decoding a document", error)
    }
}

impl From<bson::ser::Error> for ApiError {
    fn from(error: bson::ser::Error) -> Self {
        ApiError::internal_caused("encoding a document", error)
    }
}

impl Store {
    /// Runs a `find` that returns at most `limit` documents in one round trip: the batch size
    /// equals the limit, so the server closes the cursor with the first batch (no `getMore`, no
    /// `killCursors`). With a `projection`, only its fields are read.
    pub(crate) async fn find_limited<T>(
        &self,
        collection: &'static str,
        filter: bson::Document,
        sort: Option<bson::Document>,
        projection: Option<bson::Document>,
        limit: usize,
    ) -> Result<Vec<T>, ApiError>
    where
        T: serde::de::DeserializeOwned + Send + Sync,
    {
        use futures::TryStreamExt;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let limit = i64::try_from(limit)
            .map_err(|error| ApiError::internal_caused("a find limit", error))?;
        let documents = self.collection::<T>(collection);
        let mut find = documents
            .find(filter)
            .sort(sort.unwrap_or_default())
            .limit(limit)
            .batch_size(u32::try_from(limit).unwrap_or(u32::MAX));
        if let Some(projection) = projection {
            find = find.projection(projection);
        }
        self.bounded(Call::new(collection, "find"), async {
            find.await?.try_collect().await
        })
        .await
    }

    /// Which of `codes` are the `_id` of a document of `collection` (one `find` on `_id`,
    /// reading the ids only).
    pub(crate) async fn existing_codes(
        &self,
        collection: &'static str,
        codes: &[&str],
    ) -> Result<Vec<String>, ApiError> {
        let found: Vec<bson::Document> = self
            .find_limited(
                collection,
                bson::doc! { "_id": { "$in": codes } },
                None,
                Some(bson::doc! { "_id": 1 }),
                codes.len(),
            )
            .await?;
        Ok(found
            .iter()
            .filter_map(|doc| doc.get_str("_id").ok().map(str::to_owned))
            .collect())
    }

    /// Every document whose `_id` is in `ids`, in one `find({_id: {$in: ids}})`.
    pub(crate) async fn find_by_ids<T>(
        &self,
        collection: &'static str,
        ids: &[impl codec::StoredId],
    ) -> Result<Vec<T>, ApiError>
    where
        T: serde::de::DeserializeOwned + Send + Sync,
    {
        let limit = ids.len();
        let filter = bson::doc! { "_id": { "$in": codec::oids(ids) } };
        self.find_limited(collection, filter, None, None, limit)
            .await
    }

    /// The same, with the fields of `projection` only.
    pub(crate) async fn find_by_ids_projected<T>(
        &self,
        collection: &'static str,
        ids: &[impl codec::StoredId],
        projection: bson::Document,
    ) -> Result<Vec<T>, ApiError>
    where
        T: serde::de::DeserializeOwned + Send + Sync,
    {
        let limit = ids.len();
        let filter = bson::doc! { "_id": { "$in": codec::oids(ids) } };
        self.find_limited(collection, filter, None, Some(projection), limit)
            .await
    }

    /// One page of a keyset-paginated list: decodes `after` (a cursor of list `kind` holding the
    /// sort key `K`), fetches `first + 1` documents after it and gives each item its cursor.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn find_page<T, K>(
        &self,
        collection: &'static str,
        kind: &'static str,
        filter: bson::Document,
        sort: bson::Document,
        projection: Option<bson::Document>,
        page: &crate::domain::paging::PageRequest,
        after_filter: impl FnOnce(K) -> bson::Document,
        key_of: impl Fn(&T) -> K,
    ) -> Result<crate::domain::paging::Page<T>, ApiError>
    where
        T: serde::de::DeserializeOwned + Send + Sync,
        K: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
    {
        use crate::domain::{cursor, paging::Page};
        let after = page
            .after
            .as_deref()
            .map(|after| cursor::decode::<K>(kind, after))
            .transpose()?;
        let filter = filters::all_of(vec![filter, after.map(after_filter).unwrap_or_default()]);
        let docs = self
            .find_limited(collection, filter, Some(sort), projection, page.first + 1)
            .await?;
        Ok(Page::from_fetched(docs, page, |doc| {
            cursor::Cursor::new(kind, key_of(doc))
        }))
    }
}

/// Sizes of the database, as `dbStats` reports them.
#[derive(Debug, Clone, Copy, Default)]
pub struct DatabaseSize {
    pub objects: u64,
    /// Uncompressed size of the documents, in bytes.
    pub data_bytes: u64,
    /// Size on disk of the collections and indexes, in bytes.
    pub storage_bytes: u64,
}

impl Store {
    /// The database's size (for the demo loader's report).
    #[tracing::instrument(skip(self))]
    pub async fn size(&self) -> Result<DatabaseSize, ApiError> {
        let stats = self.db.run_command(bson::doc! { "dbStats": 1 }).await?;
        let number = |key: &str| -> u64 {
            match stats.get(key) {
                Some(bson::Bson::Int32(n)) => *n as u64,
                Some(bson::Bson::Int64(n)) => *n as u64,
                Some(bson::Bson::Double(n)) => *n as u64,
                _ => 0,
            }
        };
        Ok(DatabaseSize {
            objects: number("objects"),
            data_bytes: number("dataSize"),
            storage_bytes: number("storageSize") + number("indexSize"),
        })
    }
}

/// MongoDB's E11000: a unique index refused the write.
pub(crate) fn is_duplicate_key(error: &mongodb::error::Error) -> bool {
    use mongodb::error::{ErrorKind, WriteFailure};
    match &*error.kind {
        ErrorKind::Write(WriteFailure::WriteError(write)) => write.code == 11000,
        ErrorKind::Command(command) => command.code == 11000,
        _ => false,
    }
}
