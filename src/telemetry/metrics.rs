//! The process's figures in the Prometheus text format (`GET /metrics`), through the `metrics`
//! facade. The recorder is process-global: [`install`] sets it once (later calls return the
//! same handle), and the recording functions below are what the other layers call, one line
//! each, so that every metric name and label lives here.
//!
//! Metric names (see the README): `boxoffice_graphql_requests_total{operation}`,
//! `boxoffice_graphql_errors_total{operation,code}`,
//! `boxoffice_graphql_request_duration_seconds{operation}`,
//! `boxoffice_mongodb_commands_total{collection,command,outcome}`,
//! `boxoffice_mongodb_command_duration_seconds{collection,command}`,
//! `boxoffice_holds_placed_total`, `boxoffice_orders_confirmed_total`,
//! `boxoffice_orders_cancelled_total`, `boxoffice_tickets_admitted_total`,
//! `boxoffice_items_collected_total`,
//! `boxoffice_events_appended_total`, `boxoffice_webhook_deliveries_total{outcome}`,
//! `boxoffice_webhook_lag_seconds`, `boxoffice_webhook_backlog_seconds`,
//! `boxoffice_event_relay_lag_seconds`, `boxoffice_holds_expired_total{by}`,
//! `boxoffice_rate_limited_total{kind}`, `boxoffice_overload_refusals_total{reason}`,
//! `boxoffice_db_connection_wait_duration_seconds{lane}`, `boxoffice_requests_in_flight`, and the gauges of [`super::lag`] and of the live hub.

use std::collections::HashSet;
use std::sync::{OnceLock, RwLock};
use std::time::Duration;

use metrics::{counter, describe_counter, describe_gauge, describe_histogram, histogram, Unit};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Histogram buckets, in seconds: 0.5 ms to 10 s (a request's timeout).
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The most distinct operation names a process labels; later new names count as `other`, so
/// clients naming each request differently cannot grow the exposition without bound.
const MAX_OPERATION_NAMES: usize = 256;

/// The longest operation name used as a label.
const MAX_OPERATION_NAME_CHARS: usize = 64;

/// How often histogram samples are folded in when nobody scrapes.
const UPKEEP: Duration = Duration::from_secs(5);

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Installs the process's Prometheus recorder (once; later calls return the same handle), and
/// starts its upkeep the first time it is called on a Tokio runtime.
pub fn install() -> &'static PrometheusHandle {
    let handle = HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets_for_metric(Matcher::Suffix("duration_seconds".into()), &BUCKETS)
            .expect("buckets are not empty")
            .build_recorder();
        let handle = recorder.handle();
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("another metrics recorder is installed: /metrics will stay empty");
        }
        describe();
        handle
    });
    static UPKEEP_STARTED: OnceLock<()> = OnceLock::new();
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        UPKEEP_STARTED.get_or_init(|| {
            let handle = handle.clone();
            runtime.spawn(async move {
                let mut ticks = tokio::time::interval(UPKEEP);
                loop {
                    ticks.tick().await;
                    handle.run_upkeep();
                }
            });
        });
    }
    handle
}

fn describe() {
    describe_counter!(
        "boxoffice_graphql_requests_total",
        "GraphQL operations answered, by operation name (`none`: refused before parsing)"
    );
    describe_counter!(
        "boxoffice_graphql_errors_total",
        "Errors in GraphQL answers, by operation name and extensions.code"
    );
    describe_histogram!(
        "boxoffice_graphql_request_duration_seconds",
        Unit::Seconds,
        "Time to run a GraphQL operation, limits and schema"
    );
    describe_counter!(
        "boxoffice_mongodb_commands_total",
        "MongoDB calls of the store, by collection, command and outcome"
    );
    describe_histogram!(
        "boxoffice_mongodb_command_duration_seconds",
        Unit::Seconds,
        "Time of a MongoDB call of the store (a find with its getMores), as its caller waited"
    );
    describe_counter!("boxoffice_holds_placed_total", "Holds placed");
    describe_counter!(
        "boxoffice_forwarded_writes_total",
        "Writes of showtimes another gateway owns, sent to it, by outcome"
    );
    describe_counter!(
        "boxoffice_events_handed_total",
        "Live relay rounds' events of channels another gateway appends, by outcome"
    );
    describe_counter!("boxoffice_orders_confirmed_total", "Orders confirmed");
    describe_counter!(
        "boxoffice_tickets_admitted_total",
        "Tickets admitted at the door"
    );
    describe_counter!(
        "boxoffice_items_collected_total",
        "Orders whose products were collected at the counter"
    );
    describe_counter!(
        "boxoffice_events_appended_total",
        "Channel events appended to the event log by this process's relay"
    );
    describe_counter!(
        "boxoffice_webhook_deliveries_total",
        "Webhook POSTs, by outcome (sent: answered 2xx; failed: anything else)"
    );
    describe_histogram!(
        "boxoffice_webhook_lag_seconds",
        Unit::Seconds,
        "From an event's change to its webhook POST"
    );
    describe_gauge!(
        "boxoffice_webhook_backlog_seconds",
        Unit::Seconds,
        "How long past its due time the longest-waiting webhook endpoint with events to \
         deliver has waited, at this gateway's last look (0: none due)"
    );
    describe_histogram!(
        "boxoffice_event_relay_lag_seconds",
        Unit::Seconds,
        "From a seat change to its events' append to the channels' logs (per relay round, \
         its oldest change)"
    );
    describe_counter!(
        "boxoffice_orders_cancelled_total",
        "Cancellations accepted (the order moved to CANCELLING, once per order)"
    );
    describe_counter!(
        "boxoffice_holds_expired_total",
        "Expired holds whose seats were returned, by who did it (sweeper, on_time, next_hold)"
    );
    describe_counter!(
        "boxoffice_rate_limited_total",
        "Requests and subscriptions refused RATE_LIMITED, by kind (channel, anonymous)"
    );
    describe_counter!(
        "boxoffice_overload_refusals_total",
        "Work refused rather than started past its deadline, by reason (admission: refused at \
         the door, the turn too far off; admission_wait: no place within the wait in line; \
         both before any command; in_flight: the memory ceiling, before \
         the body is read; connection_wait: no database connection before the deadline; \
         no_time_left: the request's time could not finish its next command; showtime_queue: \
         too many waiting on one showtime)"
    );
    describe_histogram!(
        "boxoffice_db_connection_wait_duration_seconds",
        Unit::Seconds,
        "Time a database command waited for a connection of its lane (requests, background)"
    );
    describe_gauge!(
        "boxoffice_admission_limit",
        "How many requests this process now lets use the database at once (it follows the \
         database's latency, up to --db-max-pool-size), when scraped"
    );
    describe_gauge!(
        "boxoffice_admission_probe_limit",
        "How many requests this process lets use the database at once in a probe slot (its \
         part of the probe of all gateways), when scraped"
    );
    describe_gauge!(
        "boxoffice_admission_baseline_seconds",
        "The database's latency the admission limit compares with (the lowest of its recent \
         probes; before the first, the average): the limit shrinks once commands take \
         TOLERANCE (3) times as long (overload::limit), when scraped"
    );
    describe_gauge!(
        "boxoffice_requests_in_flight",
        "GraphQL requests this process is running (the admission cap's count), when scraped"
    );
    describe_gauge!(
        "boxoffice_live_connections",
        "Open GraphQL WebSocket connections"
    );
    describe_gauge!(
        "boxoffice_live_subscriptions",
        "Seat-map and order subscriptions served"
    );
    super::lag::describe();
}

/// The label of an operation name: the name itself when it is at most 64 characters of
/// `[A-Za-z0-9_]` and one of the first 256 names this process saw, `other` when it is not,
/// `anonymous` when there is none.
pub fn operation_label(name: Option<&str>) -> String {
    static SEEN: OnceLock<RwLock<HashSet<String>>> = OnceLock::new();
    let Some(name) = name.filter(|name| !name.is_empty()) else {
        return "anonymous".to_owned();
    };
    let sane = name.len() <= MAX_OPERATION_NAME_CHARS
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !sane {
        return "other".to_owned();
    }
    let seen = SEEN.get_or_init(Default::default);
    if seen.read().expect("operation names lock").contains(name) {
        return name.to_owned();
    }
    let mut seen = seen.write().expect("operation names lock");
    if seen.len() < MAX_OPERATION_NAMES || seen.contains(name) {
        seen.insert(name.to_owned());
        name.to_owned()
    } else {
        "other".to_owned()
    }
}

/// An operation answered: its label (see [`operation_label`]), how long it ran, and the code
/// of each error of its answer.
pub fn graphql_operation<'a>(
    operation: &str,
    took: Duration,
    codes: impl IntoIterator<Item = &'a str>,
) {
    let operation = operation.to_owned();
    counter!("boxoffice_graphql_requests_total", "operation" => operation.clone()).increment(1);
    histogram!("boxoffice_graphql_request_duration_seconds", "operation" => operation.clone())
        .record(took.as_secs_f64());
    graphql_errors(&operation, codes);
}

/// Errors of an operation's answer (a subscription's later events), by code.
pub fn graphql_errors<'a>(operation: &str, codes: impl IntoIterator<Item = &'a str>) {
    for code in codes {
        counter!(
            "boxoffice_graphql_errors_total",
            "operation" => operation.to_owned(),
            "code" => code.to_owned()
        )
        .increment(1);
    }
}

/// A request refused before its operation was parsed (authentication, body, batch, rate
/// limits): counted under the operation `none`.
pub fn graphql_refused(code: &str) {
    counter!("boxoffice_graphql_requests_total", "operation" => "none").increment(1);
    counter!(
        "boxoffice_graphql_errors_total",
        "operation" => "none",
        "code" => code.to_owned()
    )
    .increment(1);
}

/// A MongoDB command finished (`succeeded` or not) after `took`.
pub fn mongodb_command(
    collection: &'static str,
    command: &'static str,
    succeeded: bool,
    took: Duration,
) {
    let outcome = if succeeded { "succeeded" } else { "failed" };
    counter!(
        "boxoffice_mongodb_commands_total",
        "collection" => collection,
        "command" => command,
        "outcome" => outcome
    )
    .increment(1);
    histogram!(
        "boxoffice_mongodb_command_duration_seconds",
        "collection" => collection,
        "command" => command
    )
    .record(took.as_secs_f64());
}

/// A hold was placed.
pub fn hold_placed() {
    counter!("boxoffice_holds_placed_total").increment(1);
}

/// A hold was released by its channel.
pub fn hold_released() {
    counter!("boxoffice_holds_released_total").increment(1);
}

/// A hold was refused on this process's view of its showtime's seats, with no read
/// (`holds::seen`).
pub fn hold_refused_on_view() {
    counter!("boxoffice_holds_refused_on_view_total").increment(1);
}

/// An order was confirmed.
pub fn order_confirmed() {
    counter!("boxoffice_orders_confirmed_total").increment(1);
}

/// A ticket was admitted at the door.
pub fn ticket_admitted() {
    counter!("boxoffice_tickets_admitted_total").increment(1);
}

/// An order's products were collected at the counter.
pub fn items_collected() {
    counter!("boxoffice_items_collected_total").increment(1);
}

/// The event relay appended `count` events to the channels' logs.
pub fn events_appended(count: usize) {
    if count > 0 {
        counter!("boxoffice_events_appended_total").increment(count as u64);
    }
}

/// A write of a showtime another gateway owns was sent to it: `answered`, `unreached`
/// (served here instead) or `lost` (sent, and no answer came).
pub fn forwarded(outcome: &'static str) {
    counter!("boxoffice_forwarded_writes_total", "outcome" => outcome).increment(1);
}

/// A live relay round's events of channels another gateway appends: `handed` to it, or
/// `appended_here` (it could not be reached).
pub fn events_handed(outcome: &'static str) {
    counter!("boxoffice_events_handed_total", "outcome" => outcome).increment(1);
}

/// A webhook POST was made: `delivered` when the endpoint answered 2xx; `lag` from the
/// event's change to the POST.
pub fn webhook_attempt(delivered: bool, lag: chrono::Duration) {
    let outcome = if delivered { "sent" } else { "failed" };
    counter!("boxoffice_webhook_deliveries_total", "outcome" => outcome).increment(1);
    histogram!("boxoffice_webhook_lag_seconds")
        .record(lag.num_milliseconds().max(0) as f64 / 1000.0);
}

/// The longest-waiting due webhook endpoint this gateway found has waited `behind` past
/// its due time (zero when none is due).
pub fn webhook_backlog(behind: chrono::Duration) {
    metrics::gauge!("boxoffice_webhook_backlog_seconds")
        .set(behind.num_milliseconds().max(0) as f64 / 1000.0);
}

/// A relay round appended events whose oldest change was `lag` ago.
pub fn event_relay_lag(lag: chrono::Duration) {
    histogram!("boxoffice_event_relay_lag_seconds")
        .record(lag.num_milliseconds().max(0) as f64 / 1000.0);
}

/// A cancellation was accepted.
pub fn order_cancelled() {
    counter!("boxoffice_orders_cancelled_total").increment(1);
}

/// Who returned an expired hold's seats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expirer {
    /// The sweeper, within its interval.
    Sweeper,
    /// The live hub, at `expiresAt`, for a watched showtime.
    OnTime,
    /// A new hold that wanted its seats.
    NextHold,
}

/// An expired hold's seats were returned to sale.
pub fn hold_expired(by: Expirer) {
    let by = match by {
        Expirer::Sweeper => "sweeper",
        Expirer::OnTime => "on_time",
        Expirer::NextHold => "next_hold",
    };
    counter!("boxoffice_holds_expired_total", "by" => by).increment(1);
}

/// Whose rate limit refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limited {
    /// A sales channel's.
    Channel,
    /// An anonymous client address's.
    Anonymous,
}

/// A request or subscription was refused RATE_LIMITED.
pub fn rate_limited(kind: Limited) {
    let kind = match kind {
        Limited::Channel => "channel",
        Limited::Anonymous => "anonymous",
    };
    counter!("boxoffice_rate_limited_total", "kind" => kind).increment(1);
}

/// Work refused for overload (see `crate::overload`), by reason.
pub fn overload_refused(reason: &'static str) {
    counter!("boxoffice_overload_refusals_total", "reason" => reason).increment(1);
}

/// How long a command of `lane` waited for a database connection.
pub fn db_connection_wait(lane: &'static str, waited: Duration) {
    histogram!("boxoffice_db_connection_wait_duration_seconds", "lane" => lane)
        .record(waited.as_secs_f64());
}

/// What the door of the requests' lane is, read when scraped.
#[derive(Debug, Clone, Copy)]
pub struct Admission {
    pub limit: usize,
    pub probe_limit: usize,
    pub baseline: Duration,
}

/// The GraphQL requests in flight and the door's limits, read when scraped.
pub fn requests_in_flight(count: usize, admission: Admission) {
    metrics::gauge!("boxoffice_requests_in_flight").set(count as f64);
    metrics::gauge!("boxoffice_admission_limit").set(admission.limit as f64);
    metrics::gauge!("boxoffice_admission_probe_limit").set(admission.probe_limit as f64);
    metrics::gauge!("boxoffice_admission_baseline_seconds").set(admission.baseline.as_secs_f64());
}

/// The live hub's figures, read when scraped: open WebSocket connections and subscriptions.
pub fn live(connections: usize, subscriptions: usize) {
    metrics::gauge!("boxoffice_live_connections").set(connections as f64);
    metrics::gauge!("boxoffice_live_subscriptions").set(subscriptions as f64);
}

/// The exposition: the lags computed now, then every figure in the Prometheus text format.
pub fn render() -> String {
    let handle = install();
    super::lag::publish();
    handle.render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_names_are_bounded() {
        assert_eq!(operation_label(None), "anonymous");
        assert_eq!(operation_label(Some("")), "anonymous");
        assert_eq!(operation_label(Some("HoldSeats_2")), "HoldSeats_2");
        assert_eq!(operation_label(Some("hold-seats")), "other");
        assert_eq!(operation_label(Some(&"a".repeat(65))), "other");
        assert_eq!(operation_label(Some(&"a".repeat(64))), "a".repeat(64));
    }
}
