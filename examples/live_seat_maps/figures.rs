//! busy: matching each event a subscriber got to the write that made it, and the figures.
//!
//! A write is named by the seats it changed and their new state ("A14,A15 HELD"): a hold's
//! answer lists its seats, its confirmation sells the same ones, and no seat is held or sold
//! twice in a run, so the name is unique. An event is named the same way from its changes.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::Value;

use crate::writes::Writes;

/// A write the gateway acknowledged, and when its HTTP answer came.
pub struct Ack {
    pub write: String,
    pub at: Instant,
}

/// An event a subscriber got, and when.
pub struct Seen {
    pub at: Instant,
    pub version: i64,
    pub snapshot: bool,
    pub write: String,
}

/// What one subscriber got after its first SNAPSHOT.
pub struct Subscriber {
    /// The first SNAPSHOT's version.
    pub version: i64,
    pub seen: Vec<Seen>,
    /// Why its connection or subscription ended, if it did.
    pub ended: Option<String>,
}

/// Seat labels (`[{ label }]`), sorted and joined.
pub fn labels(seats: &[Value]) -> String {
    let mut labels: Vec<&str> = seats.iter().filter_map(|s| s["label"].as_str()).collect();
    labels.sort_unstable();
    labels.join(",")
}

/// The write a CHANGES event shows ("" for a SNAPSHOT).
pub fn event_key(event: &Value) -> String {
    let Some(changes) = event["changes"].as_array().filter(|c| !c.is_empty()) else {
        return String::new();
    };
    let state = changes[0]["state"].as_str().unwrap_or("?");
    format!("{} {state}", labels(changes))
}

/// Prints the writes' and the deliveries' figures.
pub fn report(writes: &Writes, subscribers: &[Subscriber]) {
    let acked: HashMap<&str, Instant> = writes
        .acks
        .iter()
        .map(|ack| (ack.write.as_str(), ack.at))
        .collect();
    let holds = writes
        .acks
        .iter()
        .filter(|a| a.write.ends_with("HELD"))
        .count();
    println!(
        "clients, writes to the watched showtime: {} ({holds} holds + {} confirms; {} failed) \
         in {:.2} s: {:.1} writes/s",
        writes.acks.len(),
        writes.acks.len() - holds,
        writes.failed,
        writes.took.as_secs_f64(),
        writes.acks.len() as f64 / writes.took.as_secs_f64(),
    );
    let (mut delivered, mut resent, mut gaps, mut unmatched, mut ended) = (0, 0, 0, 0, 0);
    let mut latencies = Vec::new();
    // Per write: the last subscriber's delivery, and how many got it.
    let mut last: HashMap<&str, (Instant, usize)> = HashMap::new();
    let mut last_delivery = writes.started;
    for subscriber in subscribers {
        let mut version = subscriber.version;
        ended += usize::from(subscriber.ended.is_some());
        for seen in &subscriber.seen {
            last_delivery = last_delivery.max(seen.at);
            if seen.snapshot {
                resent += 1;
                version = seen.version;
                continue;
            }
            delivered += 1;
            if seen.version != version + 1 {
                gaps += 1;
            }
            version = seen.version;
            let Some((write, &ack)) = acked.get_key_value(seen.write.as_str()) else {
                unmatched += 1;
                continue;
            };
            latencies.push(signed_ms(seen.at, ack));
            let entry = last.entry(write).or_insert((seen.at, 0));
            entry.0 = entry.0.max(seen.at);
            entry.1 += 1;
        }
    }
    let expected = writes.acks.len() * subscribers.len();
    let span = last_delivery - writes.started;
    println!(
        "events: {delivered} CHANGES delivered of {expected} expected ({} missing); {resent} \
         SNAPSHOTs sent again; {gaps} version gaps; {unmatched} matching no write; {ended} \
         subscriptions ended",
        expected.saturating_sub(delivered),
    );
    println!(
        "events delivered per second (all subscribers, first write to last delivery, {:.2} s): \
         {:.0}",
        span.as_secs_f64(),
        delivered as f64 / span.as_secs_f64(),
    );
    if let Some(reason) = subscribers.iter().find_map(|s| s.ended.as_deref()) {
        println!("  a subscription ended: {reason}");
    }
    let negative = latencies.iter().filter(|&&l| l < 0.0).count();
    println!(
        "latency, HTTP answer → event at a subscriber, over {} (subscriber, event) pairs: {} \
         ({:.1}% negative: the event came first)",
        latencies.len(),
        spread(&mut latencies),
        100.0 * negative as f64 / latencies.len().max(1) as f64,
    );
    let mut to_last: Vec<f64> = last
        .iter()
        .map(|(write, (at, _))| signed_ms(*at, acked[write]))
        .collect();
    let incomplete = last
        .values()
        .filter(|(_, n)| *n < subscribers.len())
        .count();
    println!(
        "latency, HTTP answer → event at the last of the {} subscribers, over {} writes: {}{}",
        subscribers.len(),
        to_last.len(),
        spread(&mut to_last),
        if incomplete > 0 {
            format!(" ({incomplete} writes did not reach every subscriber)")
        } else {
            String::new()
        },
    );
}

/// `at` − `since`, in milliseconds, negative when `at` is earlier.
fn signed_ms(at: Instant, since: Instant) -> f64 {
    match at.checked_duration_since(since) {
        Some(after) => after.as_secs_f64() * 1000.0,
        None => -(since - at).as_secs_f64() * 1000.0,
    }
}

/// "p50 …, p99 …, max … (min …)" of `values`, in milliseconds.
fn spread(values: &mut [f64]) -> String {
    if values.is_empty() {
        return "none".into();
    }
    values.sort_unstable_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    format!(
        "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (min {:.2} ms)",
        at(0.5),
        at(0.99),
        values[values.len() - 1],
        values[0],
    )
}
