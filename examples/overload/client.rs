//! One buyer: a loop of booking lifecycles through the GraphQL API, retrying what the gateway
//! refuses for now (503, 504, 429, no answer) with the same idempotency key, and moving on from
//! what the business refuses (seats taken, hold expired). Polite, as a well-behaved sales app,
//! or impatient, as the independent client of issue 48 (`Behaviour`).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use crate::record::{Outcome, Recorder};
use crate::seed::{Catalogue, CHANNELS};

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

/// How the clients of a run behave (`BENCH_CLIENT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    /// A well-behaved sales app, on all 8 channels: named seats it believes free, retries
    /// after `Retry-After` (× 1–1.5, or 100–500 ms without one), no pause between operations,
    /// replays one after the other on the same gateway.
    Polite,
    /// The independent client of issue 48, on 4 channels: named seats in a few contested runs,
    /// retries after 0.2–0.8 s whatever `Retry-After` says (as impatient apps do), 0–0.25 s
    /// between operations, and half of its replays sent at the same time as the first
    /// sending, to the other gateway.
    Impatient,
}

impl Behaviour {
    pub fn parse(text: &str) -> anyhow::Result<Behaviour> {
        match text {
            "polite" => Ok(Behaviour::Polite),
            "impatient" => Ok(Behaviour::Impatient),
            other => anyhow::bail!("BENCH_CLIENT={other:?}: polite or impatient"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Behaviour::Polite => "polite",
            Behaviour::Impatient => "impatient",
        }
    }

    /// How many of the seeded channels' keys the clients use.
    pub fn channels(self) -> usize {
        match self {
            Behaviour::Polite => CHANNELS,
            Behaviour::Impatient => 4,
        }
    }
}

/// Where a client sends its requests: its gateway, and the other one (the same with one
/// gateway), to which the impatient client sends its replays that go at the same time.
pub struct Route {
    pub gateway: String,
    pub other: String,
}

pub struct Client {
    /// Names this client's idempotency keys, unique in the run.
    name: String,
    behaviour: Behaviour,
    route: Route,
    sender: Sender,
    catalogue: Arc<Catalogue>,
    rng: SmallRng,
    /// Per showtime, the seats this client last saw taken (named in a SEAT_UNAVAILABLE, or
    /// its own), so that it names seats it believes free, as a buyer looking at a seat map.
    taken: Vec<HashSet<String>>,
    requests: u64,
}

/// What sends a request until it is answered and records its attempts: apart from the rest
/// of the client, so that two sendings of one request can run at once.
struct Sender {
    behaviour: Behaviour,
    http: reqwest::Client,
    authorization: String,
    recorder: Recorder,
    stop: Arc<AtomicBool>,
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
        behaviour: Behaviour,
        route: Route,
        key: &str,
        catalogue: Arc<Catalogue>,
        recorder: Recorder,
        stop: Arc<AtomicBool>,
    ) -> Client {
        let showtimes = catalogue.showtimes.len();
        Client {
            name: format!("c{index}-{}", rand::random::<u32>()),
            behaviour,
            route,
            sender: Sender {
                behaviour,
                // A connection pool of its own: each buyer is an independent client.
                http: reqwest::Client::new(),
                authorization: format!("Bearer {key}"),
                recorder,
                stop,
            },
            catalogue,
            rng: SmallRng::seed_from_u64(index as u64),
            taken: vec![HashSet::new(); showtimes],
            requests: 0,
        }
    }

    /// Books until told to stop: hold 2 seats, then release them (40%) or confirm them and
    /// cancel the order (60%), which gives the seats back, so a load can run for minutes on a
    /// 72-seat hall.
    pub async fn run(mut self) {
        while !self.sender.stopped() {
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

    /// Holds 2 seats: half the time the best pair, half the time two named seats (among those
    /// it believes free, or in the contested runs). Returns the hold's id and seats.
    async fn hold(&mut self, showtime: usize) -> Option<(Value, Vec<String>)> {
        let mut input = json!({ "showtimeId": self.catalogue.showtimes[showtime] });
        if self.rng.random_bool(0.5) {
            input["best"] = json!({ "count": 2 });
        } else {
            input["seats"] = json!(match self.behaviour {
                Behaviour::Polite => self.believed_free(showtime),
                Behaviour::Impatient => self.contested_pair(),
            });
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

    /// Two seats side by side in one of the contested runs, chosen at random: the impatient
    /// client wants the middle whatever it saw taken, so every client contends for them.
    fn contested_pair(&mut self) -> Vec<String> {
        let run = (self.catalogue.contested)
            .choose(&mut self.rng)
            .expect("the seed makes contested runs");
        let first = self.rng.random_range(0..run.len() - 1);
        run[first..first + 2].to_vec()
    }

    fn freed(&mut self, showtime: usize, seats: &[String]) {
        for seat in seats {
            self.taken[showtime].remove(seat);
        }
    }

    /// Sends one mutation with a fresh idempotency key until it is answered, and a third of
    /// the time once more with the same key, as a client that lost the first answer does;
    /// the second answer must be the first's. The impatient client first waits 0–0.25 s (a
    /// buyer between two taps), and sends half of its replays at the same time as the first
    /// (`at_once`). A seat change counts once, when first answered.
    async fn request(&mut self, query: &str, mut variables: Value, field: &str) -> Answer {
        if self.behaviour == Behaviour::Impatient {
            let pause = Duration::from_secs_f64(self.rng.random_range(0.0..0.25));
            tokio::time::sleep(pause).await;
        }
        self.requests += 1;
        let key = format!("{}-{}", self.name, self.requests);
        match variables.get_mut("input") {
            Some(input) => input["idempotencyKey"] = json!(key),
            None => variables["key"] = json!(key),
        }
        let body = json!({ "query": query, "variables": variables });
        let replay = self.rng.random_bool(1.0 / 3.0);
        if replay && self.behaviour == Behaviour::Impatient && self.rng.random_bool(0.5) {
            return self.at_once(&body, field).await;
        }
        let (sender, gateway) = (&self.sender, &self.route.gateway);
        let first = sender
            .until_answered(&mut self.rng, &body, field, gateway)
            .await;
        if let Answer::Data(_, at) = &first {
            sender.recorder.change(*at);
        }
        if !replay || matches!(first, Answer::Stopped) {
            return first;
        }
        let second = sender
            .until_answered(&mut self.rng, &body, field, gateway)
            .await;
        match (&first, &second) {
            (_, Answer::Stopped) => return first,
            (Answer::Data(a, _), Answer::Data(b, _)) if a == b => {}
            (Answer::Refused(_), Answer::Refused(_)) => {}
            (Answer::Refused(_), Answer::Data(_, at)) => {
                // Refused, then done by the same key: a replay that is not the first answer.
                sender.recorder.change(*at);
                sender.recorder.mismatch();
            }
            _ => sender.recorder.mismatch(),
        }
        second
    }

    /// Sends `body` to this client's gateway and, at the same time, to the other one, as an
    /// app that sent a request again before its first answer came: the key makes them one
    /// seat change, and both answers must be the same. The change counts once, when first
    /// answered.
    async fn at_once(&mut self, body: &Value, field: &str) -> Answer {
        // Each sending draws its pauses from its own generator, made from the client's.
        let mut mine = SmallRng::seed_from_u64(self.rng.random());
        let mut theirs = SmallRng::seed_from_u64(self.rng.random());
        let (sender, route) = (&self.sender, &self.route);
        let (first, second) = tokio::join!(
            sender.until_answered(&mut mine, body, field, &route.gateway),
            sender.until_answered(&mut theirs, body, field, &route.other),
        );
        let answer = match (first, second) {
            (Answer::Stopped, answer) | (answer, Answer::Stopped) => answer,
            (Answer::Data(a, at_a), Answer::Data(b, at_b)) => {
                if a != b {
                    sender.recorder.mismatch();
                }
                Answer::Data(a, at_a.min(at_b))
            }
            (Answer::Refused(error), Answer::Refused(_)) => Answer::Refused(error),
            (Answer::Data(data, at), Answer::Refused(_))
            | (Answer::Refused(_), Answer::Data(data, at)) => {
                // Done and refused under one key: one of them is not the key's answer.
                sender.recorder.mismatch();
                Answer::Data(data, at)
            }
        };
        if let Answer::Data(_, at) = &answer {
            sender.recorder.change(*at);
        }
        answer
    }
}

impl Sender {
    /// Sends `body` to `url` until the gateway gives an answer that is not "not now". The
    /// polite client waits between attempts what its `Retry-After` asks, spread over half as
    /// much again (so that a crowd refused at once does not come back at once), or 100–500 ms
    /// when it names no time; the impatient client 0.2–0.8 s whatever it asks.
    async fn until_answered(
        &self,
        rng: &mut SmallRng,
        body: &Value,
        field: &str,
        url: &str,
    ) -> Answer {
        loop {
            if self.stopped() {
                return Answer::Stopped;
            }
            let sent = Instant::now();
            let (outcome, payload, retry_after) = self.send(body, field, url).await;
            self.recorder.attempt(sent, outcome);
            match outcome {
                Outcome::Success => return Answer::Data(payload, Instant::now()),
                outcome if outcome.retried() => {
                    let pause = match (self.behaviour, retry_after) {
                        (Behaviour::Impatient, _) => {
                            Duration::from_secs_f64(rng.random_range(0.2..0.8))
                        }
                        (Behaviour::Polite, Some(after)) => {
                            after.mul_f64(rng.random_range(1.0..1.5))
                        }
                        (Behaviour::Polite, None) => {
                            Duration::from_millis(rng.random_range(100..=500))
                        }
                    };
                    tokio::time::sleep(pause).await;
                }
                _ => return Answer::Refused(payload),
            }
        }
    }

    /// One HTTP attempt: how it ended, the mutation's data (on success) or the first error,
    /// and the answer's `Retry-After` (whole seconds), if it has one.
    async fn send(
        &self,
        body: &Value,
        field: &str,
        url: &str,
    ) -> (Outcome, Value, Option<Duration>) {
        let sent = self
            .http
            .post(url)
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
