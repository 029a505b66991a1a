//! One buyer: a loop of booking lifecycles through the GraphQL API, retrying what the gateway
//! refuses for now (503, 504, 429, no answer) with the same idempotency key, as a well-behaved
//! sales app does, and moving on from what the business refuses (seats taken, hold expired).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use crate::record::{Outcome, Recorder};
use crate::seed::Catalogue;

const HOLD: &str =
    "mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) { id seats { label } } }";
const RELEASE: &str =
    "mutation ($hold: ID!, $key: String) { releaseHold(holdId: $hold, idempotencyKey: $key) }";
const CONFIRM: &str = "mutation ($hold: ID!, $key: String) { confirmHold(input: { holdId: $hold, \
    idempotencyKey: $key, customer: { name: \"李四\", contact: \"li@example.cn\" } }) { id } }";
const CANCEL: &str = "mutation ($order: ID!, $key: String) { cancelOrder(orderId: $order, \
    idempotencyKey: $key) { id status } }";

/// How long a client waits for an answer before it gives up on the attempt (and retries it).
const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

pub struct Client {
    /// Names this client's idempotency keys, unique in the run.
    name: String,
    http: reqwest::Client,
    url: String,
    authorization: String,
    catalogue: Arc<Catalogue>,
    recorder: Recorder,
    stop: Arc<AtomicBool>,
    rng: SmallRng,
    /// Per showtime, the seats this client last saw taken (named in a SEAT_UNAVAILABLE, or
    /// its own), so that it names seats it believes free, as a buyer looking at a seat map.
    taken: Vec<HashSet<String>>,
    requests: u64,
}

/// How a logical request (one idempotency key) ended.
enum Answer {
    /// The mutation's data, and when it came.
    Data(Value, Instant),
    /// Refused by the business (or an unexpected answer): its first error, if any.
    Refused(Value),
    /// The load ended first.
    Stopped,
}

impl Client {
    pub fn new(
        index: usize,
        url: String,
        key: &str,
        catalogue: Arc<Catalogue>,
        recorder: Recorder,
        stop: Arc<AtomicBool>,
    ) -> Client {
        let showtimes = catalogue.showtimes.len();
        Client {
            name: format!("c{index}-{}", rand::random::<u32>()),
            // A connection pool of its own: each buyer is an independent client.
            http: reqwest::Client::new(),
            url,
            authorization: format!("Bearer {key}"),
            catalogue,
            recorder,
            stop,
            rng: SmallRng::seed_from_u64(index as u64),
            taken: vec![HashSet::new(); showtimes],
            requests: 0,
        }
    }

    /// Books until told to stop: hold 2 seats, then release them (40%) or confirm them and
    /// cancel the order (60%), which gives the seats back, so a load can run for minutes on a
    /// 72-seat hall.
    pub async fn run(mut self) {
        while !self.stopped() {
            let showtime = self.rng.random_range(0..self.catalogue.showtimes.len());
            let Some((hold, seats)) = self.hold(showtime).await else {
                continue;
            };
            if self.rng.random_bool(0.4) {
                let variables = json!({ "hold": hold });
                if let Answer::Data(..) = self.request(RELEASE, variables, "releaseHold").await {
                    self.freed(showtime, &seats);
                }
            } else {
                let variables = json!({ "hold": hold });
                let Answer::Data(order, _) = self.request(CONFIRM, variables, "confirmHold").await
                else {
                    continue;
                };
                let variables = json!({ "order": order["id"] });
                if let Answer::Data(..) = self.request(CANCEL, variables, "cancelOrder").await {
                    self.freed(showtime, &seats);
                }
            }
        }
    }

    /// Holds 2 seats: half the time the best pair, half the time two named seats among those
    /// it believes free. Returns the hold's id and seats.
    async fn hold(&mut self, showtime: usize) -> Option<(Value, Vec<String>)> {
        let mut input = json!({ "showtimeId": self.catalogue.showtimes[showtime] });
        if self.rng.random_bool(0.5) {
            input["best"] = json!({ "count": 2 });
        } else {
            input["seats"] = json!(self.believed_free(showtime));
        }
        match self
            .request(HOLD, json!({ "input": input }), "holdSeats")
            .await
        {
            Answer::Data(hold, _) => {
                let seats: Vec<String> = (hold["seats"].as_array().into_iter().flatten())
                    .filter_map(|seat| seat["label"].as_str().map(str::to_owned))
                    .collect();
                self.taken[showtime].extend(seats.iter().cloned());
                Some((hold["id"].clone(), seats))
            }
            Answer::Refused(error) => {
                let named = error["extensions"]["seats"]
                    .as_array()
                    .into_iter()
                    .flatten();
                let seats = named.filter_map(|seat| seat.as_str().map(str::to_owned));
                self.taken[showtime].extend(seats);
                None
            }
            Answer::Stopped => None,
        }
    }

    /// Two seats it has not seen taken; any two once it believes fewer are free (what it saw
    /// is stale by then).
    fn believed_free(&mut self, showtime: usize) -> Vec<String> {
        let seats = &self.catalogue.seats;
        let taken = &mut self.taken[showtime];
        let mut free: Vec<&String> = seats.iter().filter(|s| !taken.contains(*s)).collect();
        if free.len() < 2 {
            taken.clear();
            free = seats.iter().collect();
        }
        free.choose_multiple(&mut self.rng, 2)
            .map(|s| (*s).clone())
            .collect()
    }

    fn freed(&mut self, showtime: usize, seats: &[String]) {
        for seat in seats {
            self.taken[showtime].remove(seat);
        }
    }

    /// Sends one mutation with a fresh idempotency key until it is answered, and a third of
    /// the time once more with the same key, as a client that lost the first answer does;
    /// the second answer must be the first's. A seat change counts once, when first answered.
    async fn request(&mut self, query: &str, mut variables: Value, field: &str) -> Answer {
        self.requests += 1;
        let key = format!("{}-{}", self.name, self.requests);
        match variables.get_mut("input") {
            Some(input) => input["idempotencyKey"] = json!(key),
            None => variables["key"] = json!(key),
        }
        let body = json!({ "query": query, "variables": variables });
        let replay = self.rng.random_bool(1.0 / 3.0);
        let first = self.until_answered(&body, field).await;
        if let Answer::Data(_, at) = &first {
            self.recorder.change(*at);
        }
        if !replay || matches!(first, Answer::Stopped) {
            return first;
        }
        let second = self.until_answered(&body, field).await;
        match (&first, &second) {
            (_, Answer::Stopped) => return first,
            (Answer::Data(a, _), Answer::Data(b, _)) if a == b => {}
            (Answer::Refused(_), Answer::Refused(_)) => {}
            (Answer::Refused(_), Answer::Data(_, at)) => {
                // Refused, then done by the same key: a replay that is not the first answer.
                self.recorder.change(*at);
                self.recorder.mismatch();
            }
            _ => self.recorder.mismatch(),
        }
        second
    }

    /// Sends `body` until the gateway gives an answer that is not "not now", waiting between
    /// attempts what its `Retry-After` asks, spread over half as much again (so that a crowd
    /// refused at once does not come back at once), or 100–500 ms when it names no time.
    async fn until_answered(&mut self, body: &Value, field: &str) -> Answer {
        loop {
            if self.stopped() {
                return Answer::Stopped;
            }
            let sent = Instant::now();
            let (outcome, payload, retry_after) = self.send(body, field).await;
            self.recorder.attempt(sent, outcome);
            match outcome {
                Outcome::Success => return Answer::Data(payload, Instant::now()),
                outcome if outcome.retried() => {
                    let pause = match retry_after {
                        Some(after) => after.mul_f64(self.rng.random_range(1.0..1.5)),
                        None => Duration::from_millis(self.rng.random_range(100..=500)),
                    };
                    tokio::time::sleep(pause).await;
                }
                _ => return Answer::Refused(payload),
            }
        }
    }

    /// One HTTP attempt: how it ended, the mutation's data (on success) or the first error,
    /// and the answer's `Retry-After` (whole seconds), if it has one.
    async fn send(&self, body: &Value, field: &str) -> (Outcome, Value, Option<Duration>) {
        let sent = self
            .http
            .post(&self.url)
            .header("authorization", &self.authorization)
            .json(body)
            .timeout(CLIENT_TIMEOUT)
            .send()
            .await;
        let failed = |error: reqwest::Error| {
            let outcome = if error.is_timeout() {
                Outcome::ClientTimeout
            } else {
                Outcome::ConnectionError
            };
            (outcome, Value::Null, None)
        };
        let response = match sent {
            Ok(response) => response,
            Err(error) => return failed(error),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok()?.parse().ok())
            .map(Duration::from_secs);
        let bytes = match response.bytes().await {
            Ok(bytes) => bytes,
            Err(error) => return failed(error),
        };
        let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let error = answer["errors"][0].clone();
        let outcome = match status {
            503 => Outcome::Unavailable,
            504 => Outcome::GatewayTimeout,
            429 => Outcome::RateLimited,
            200 if error.is_null() && !answer["data"][field].is_null() => {
                return (Outcome::Success, answer["data"][field].clone(), None);
            }
            // The codes of the statuses above, should a build answer them with a 200.
            200 => match error["extensions"]["code"].as_str() {
                Some("UNAVAILABLE") => Outcome::Unavailable,
                Some("REQUEST_TIMEOUT") => Outcome::GatewayTimeout,
                Some("RATE_LIMITED") => Outcome::RateLimited,
                Some("INTERNAL") | None => Outcome::Other,
                Some(_) => Outcome::Business,
            },
            _ => Outcome::Other,
        };
        (outcome, error, retry_after)
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}
