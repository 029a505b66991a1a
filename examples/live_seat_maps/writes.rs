//! busy: the HTTP clients that hold and confirm seats, each write with the instant its answer
//! came.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::clients::Endpoint;
use crate::figures::{self, Ack};

const HOLD: &str = "mutation ($id: ID!) {
    holdSeats(input: { showtimeId: $id, best: { count: 2 } }) { id seats { label } } }";
const CONFIRM: &str = "mutation ($id: ID!) {
    confirmHold(input: { holdId: $id, customer: { name: \"n\", contact: \"c\" } }) { id } }";

/// busy: hold + confirm pairs in all, written by `BENCH_WRITERS` HTTP clients at once (64
/// unless set: the machine busy; 1 shows the fan-out's latency on a machine that is not).
const PAIRS: usize = 384;

fn writers() -> usize {
    std::env::var("BENCH_WRITERS")
        .ok()
        .and_then(|writers| writers.parse().ok())
        .filter(|writers| (1..=PAIRS).contains(writers) && PAIRS.is_multiple_of(*writers))
        .unwrap_or(64)
}

/// The writes of one run.
pub struct Writes {
    pub acks: Vec<Ack>,
    pub failed: usize,
    pub started: Instant,
    pub took: Duration,
}

/// `writers()` clients at once, each doing its share of the pairs on `showtime`.
pub async fn write_all(endpoint: &Endpoint, showtime: &str) -> anyhow::Result<Writes> {
    let started = Instant::now();
    let (writers, pairs_per_writer) = (writers(), PAIRS / writers());
    let writers: Vec<_> = (0..writers)
        .map(|_| {
            let (endpoint, showtime) = (endpoint.clone(), showtime.to_owned());
            tokio::spawn(async move {
                let mut acks = Vec::new();
                for _ in 0..pairs_per_writer {
                    acks.extend(pair(&endpoint, &showtime).await?);
                }
                anyhow::Ok(acks)
            })
        })
        .collect();
    let mut acks = Vec::new();
    for writer in writers {
        acks.extend(writer.await??);
    }
    let took = started.elapsed();
    Ok(Writes {
        failed: PAIRS * 2 - acks.len(),
        acks,
        started,
        took,
    })
}

/// One hold of the best 2 seats and its confirmation: the writes that succeeded, each with
/// the instant its answer came.
pub async fn pair(endpoint: &Endpoint, showtime: &str) -> anyhow::Result<Vec<Ack>> {
    let (answer, at) = post(endpoint, HOLD, json!({ "id": showtime })).await?;
    let hold = &answer["data"]["holdSeats"];
    let (Some(id), Some(seats)) = (hold["id"].as_str(), hold["seats"].as_array()) else {
        eprintln!("a hold failed: {answer}");
        return Ok(Vec::new());
    };
    let labels = figures::labels(seats);
    let mut acks = vec![Ack {
        write: format!("{labels} HELD"),
        at,
    }];
    let (answer, at) = post(endpoint, CONFIRM, json!({ "id": id })).await?;
    if answer["data"]["confirmHold"]["id"].is_string() {
        acks.push(Ack {
            write: format!("{labels} SOLD"),
            at,
        });
    } else {
        eprintln!("a confirm failed: {answer}");
    }
    Ok(acks)
}

async fn post(
    endpoint: &Endpoint,
    query: &str,
    variables: Value,
) -> anyhow::Result<(Value, Instant)> {
    let body = json!({ "query": query, "variables": variables });
    let response = endpoint
        .client
        .post(&endpoint.http)
        .header("authorization", &endpoint.auth)
        .json(&body)
        .send()
        .await?;
    let bytes = response.bytes().await?;
    let at = Instant::now();
    Ok((serde_json::from_slice(&bytes)?, at))
}
