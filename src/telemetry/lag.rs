//! How far behind the background tasks are, as gauges computed when `/metrics` is scraped.
//!
//! Each lag is a bound an on-call engineer can alert on: "everything older than this has been
//! done". `boxoffice_sweeper_lag_seconds` is the time since the start of the sweeper's last
//! successful pass: a pass releases every hold that had expired when it started, so no
//! expired hold has blocked its seats for longer than this (invariant 4 wants about one
//! `--sweep-interval-seconds`; alert at a few intervals). It is measured from the last
//! success rather than as the age of the oldest expired hold a pass found because it keeps
//! growing when passes fail or hang (the database is away, the loop is stuck), which is when
//! it matters, while an age found by a pass freezes at whatever the last pass saw; and a
//! healthy sweeper finds no expired hold older than one interval anyway.
//! `boxoffice_reconciler_lag_seconds` is the same for the reconciler (orders a crash left
//! PENDING or CANCELLING are settled within it, plus its 60 s grace for PENDING ones). The
//! reconciler and the projection pass over the whole deployment, each of N gateways every N
//! intervals or so (`background::every_shared`): their lag is the least over the gateways.
//! `boxoffice_sales_projection_lag_seconds` is the age of the oldest confirmed order the
//! projection found not yet counted and has not counted since, or, when it found none, the time
//! since its last successful pass began (orders confirmed since may be uncounted): the sales
//! figures reflect every order older than it. Before a task's first success, its lag counts
//! from the start of the process.

use std::future::Future;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::OnceLock;

use metrics::{describe_gauge, gauge, Unit};

/// A background task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// Returns expired holds' seats (`holds::sweeper`).
    Sweeper,
    /// Settles orders left between two writes (`orders::reconciler`).
    Reconciler,
    /// Counts orders into the sales figures (`sales`).
    SalesProjection,
}

impl Task {
    fn gauge(self) -> &'static str {
        match self {
            Task::Sweeper => "boxoffice_sweeper_lag_seconds",
            Task::Reconciler => "boxoffice_reconciler_lag_seconds",
            Task::SalesProjection => "boxoffice_sales_projection_lag_seconds",
        }
    }

    fn last_success(self) -> &'static AtomicI64 {
        static SWEEPER: AtomicI64 = AtomicI64::new(0);
        static RECONCILER: AtomicI64 = AtomicI64::new(0);
        static SALES: AtomicI64 = AtomicI64::new(0);
        match self {
            Task::Sweeper => &SWEEPER,
            Task::Reconciler => &RECONCILER,
            Task::SalesProjection => &SALES,
        }
    }
}

/// When the oldest unprojected confirmed order the projection found was created (Unix
/// milliseconds; `i64::MAX`: none).
static OLDEST_UNPROJECTED: AtomicI64 = AtomicI64::new(i64::MAX);

fn now_millis() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// When this process started counting (the lags' origin before a first success).
fn origin() -> i64 {
    static ORIGIN: OnceLock<i64> = OnceLock::new();
    *ORIGIN.get_or_init(now_millis)
}

/// Runs one pass of `task`; when it succeeds, its lag counts from the pass's start.
pub async fn pass<T, E>(task: Task, work: impl Future<Output = Result<T, E>>) -> Result<T, E> {
    origin();
    let started = now_millis();
    let result = work.await;
    if result.is_ok() {
        task.last_success().fetch_max(started, Ordering::Relaxed);
        if task == Task::SalesProjection {
            OLDEST_UNPROJECTED.store(i64::MAX, Ordering::Relaxed);
        }
    }
    result
}

/// The sales projection read orders to count; `oldest` is the creation time (Unix
/// milliseconds) of the oldest confirmed and uncounted one among them.
pub fn unprojected(oldest: Option<i64>) {
    if let Some(oldest) = oldest {
        OLDEST_UNPROJECTED.fetch_min(oldest, Ordering::Relaxed);
    }
}

/// The lag of `task` at `now`, in seconds.
fn lag(task: Task, now: i64) -> f64 {
    let since = match task.last_success().load(Ordering::Relaxed) {
        0 => origin(),
        at => at,
    };
    let since = match task {
        Task::SalesProjection => since.min(OLDEST_UNPROJECTED.load(Ordering::Relaxed)),
        _ => since,
    };
    (now - since).max(0) as f64 / 1000.0
}

/// Sets the lag gauges to their values now.
pub(super) fn publish() {
    let now = now_millis();
    for task in [Task::Sweeper, Task::Reconciler, Task::SalesProjection] {
        gauge!(task.gauge()).set(lag(task, now));
    }
}

pub(super) fn describe() {
    origin();
    describe_gauge!(
        Task::Sweeper.gauge(),
        Unit::Seconds,
        "Time since the start of the sweeper's last successful pass"
    );
    describe_gauge!(
        Task::Reconciler.gauge(),
        Unit::Seconds,
        "Time since the start of the reconciler's last successful pass"
    );
    describe_gauge!(
        Task::SalesProjection.gauge(),
        Unit::Seconds,
        "Age of the oldest confirmed order the sales figures may not count yet"
    );
}
