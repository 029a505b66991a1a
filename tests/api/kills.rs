//! Gateway processes killed (SIGKILL) while clients hold, confirm, release and cancel through
//! them, every request carrying an idempotency key and re-sent to the other gateway until it
//! gets an answer. Afterwards every key still answers what its client was told, and no seat
//! is held by a hold no client knows.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use boxoffice::config::BookingArgs;
use serde_json::{json, Value};

use crate::processes::GatewayProcess;
use crate::sale::{sale_in_hall, Sale, HOLD};

const CLIENTS: usize = 24;
const MAX_STEPS: usize = 40;
const ROWS: [&str; 6] = ["SSSSSSSSSS"; 6];
const KILLS: usize = 4;
const KILL_EVERY: Duration = Duration::from_millis(600);
/// A client gives up on a request after this long (the test then fails).
const GIVE_UP: Duration = Duration::from_secs(60);

const CONFIRM: &str = "mutation ($hold: ID!, $key: String) { confirmHold(input: {
    holdId: $hold, customer: { name: \"赵六\", contact: \"13600000000\" }, idempotencyKey: $key }) {
    id status seats { label } } }";
const RELEASE: &str =
    "mutation ($id: ID!, $key: String) { releaseHold(holdId: $id, idempotencyKey: $key) }";
const CANCEL: &str = "mutation ($id: ID!, $key: String) {
    cancelOrder(orderId: $id, idempotencyKey: $key) { id status } }";

/// Two gateway processes over the sale's database; a killed one is replaced at a new address.
struct Gateways {
    uri: String,
    database: String,
    running: Mutex<Vec<(String, Option<GatewayProcess>)>>,
}

impl Gateways {
    fn start(uri: &str, database: &str) -> Gateways {
        let gateways = Gateways {
            uri: uri.to_owned(),
            database: database.to_owned(),
            running: Mutex::new(Vec::new()),
        };
        for _ in 0..2 {
            let process = gateways.launch();
            let url = process.url();
            gateways.running.lock().unwrap().push((url, Some(process)));
        }
        gateways
    }

    fn launch(&self) -> GatewayProcess {
        GatewayProcess::start(&self.uri, &self.database, &["--key-lease-ms", "1000"])
    }

    fn url(&self, n: usize) -> String {
        let running = self.running.lock().unwrap();
        running[n % running.len()].0.clone()
    }

    /// Kills gateway `n` and starts another in its place.
    fn kill_and_replace(&self, n: usize) {
        if let Some(mut old) = self.running.lock().unwrap()[n].1.take() {
            old.kill();
        }
        let process = self.launch();
        self.running.lock().unwrap()[n] = (process.url(), Some(process));
    }
}

/// One keyed request a client made, and the answer it was finally given.
struct Answered {
    key: String,
    query: &'static str,
    variables: Value,
    answer: Value,
}

struct Client {
    sale: Arc<Sale>,
    gateways: Arc<Gateways>,
    http: reqwest::Client,
    answered: Vec<Answered>,
    /// Set when the gateways stop being killed: clients then finish.
    done: Arc<AtomicBool>,
    /// Requests that had to be sent again (a killed gateway, a 503).
    resent: Arc<AtomicUsize>,
}

impl Client {
    /// Sends the request with its key until a gateway answers it, switching gateways after a
    /// failure (a killed gateway's connection error, or a 503).
    async fn send(
        &mut self,
        n: usize,
        key: String,
        query: &'static str,
        variables: Value,
    ) -> Value {
        let mut variables = variables;
        variables["key"] = json!(key);
        hold_key_inside_input(query, &mut variables);
        let started = Instant::now();
        for attempt in n.. {
            assert!(started.elapsed() < GIVE_UP, "{key} got no answer");
            let url = self.gateways.url(attempt);
            let sent = self
                .http
                .post(url)
                .bearer_auth(self.sale.key_of_client(n))
                .json(&json!({ "query": query, "variables": variables }))
                .send()
                .await;
            let Ok(response) = sent else {
                self.resent.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let status = response.status().as_u16();
            let Ok(body) = response.json::<Value>().await else {
                self.resent.fetch_add(1, Ordering::Relaxed);
                continue;
            };
            assert_ne!(status, 500, "{key}: {body}");
            if status == 503 {
                self.resent.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
            self.answered.push(Answered {
                key,
                query,
                variables,
                answer: body.clone(),
            });
            return body;
        }
        unreachable!()
    }

    /// Until the killing stops: holds a pair, then confirms it (and cancels every other
    /// order) or releases it.
    async fn run(mut self, n: usize) -> Vec<Answered> {
        for step in 0..MAX_STEPS {
            if self.done.load(Ordering::Relaxed) {
                break;
            }
            let input = if n.is_multiple_of(3) {
                json!({ "showtimeId": self.sale.showtime, "best": { "count": 2 } })
            } else {
                let row = char::from(b'A' + ((n + step) % ROWS.len()) as u8);
                let column = (n * 2 + step) % 9 + 1;
                json!({ "showtimeId": self.sale.showtime,
                        "seats": [format!("{row}{column}"), format!("{row}{}", column + 1)] })
            };
            let held = self
                .send(
                    n,
                    format!("hold-{n}-{step}"),
                    HOLD,
                    json!({ "input": input }),
                )
                .await;
            let Some(hold) = held["data"]["holdSeats"]["id"].as_str().map(str::to_owned) else {
                assert_eq!(
                    held["errors"][0]["extensions"]["code"], "SEAT_UNAVAILABLE",
                    "{held}"
                );
                continue;
            };
            if (n + step).is_multiple_of(2) {
                let released = self
                    .send(
                        n,
                        format!("release-{n}-{step}"),
                        RELEASE,
                        json!({ "id": hold }),
                    )
                    .await;
                assert!(released["data"]["releaseHold"].is_array(), "{released}");
                continue;
            }
            let confirmed = self
                .send(
                    n,
                    format!("confirm-{n}-{step}"),
                    CONFIRM,
                    json!({ "hold": hold }),
                )
                .await;
            let order = &confirmed["data"]["confirmHold"];
            assert_eq!(order["status"], "CONFIRMED", "{confirmed}");
            if step % 2 == 1 {
                let id = order["id"].clone();
                let cancelled = self
                    .send(n, format!("cancel-{n}-{step}"), CANCEL, json!({ "id": id }))
                    .await;
                assert_eq!(
                    cancelled["data"]["cancelOrder"]["status"], "CANCELLED",
                    "{cancelled}"
                );
            }
        }
        self.answered
    }
}

/// A hold request's key travels inside its input, not as a `$key` variable.
fn hold_key_inside_input(query: &str, variables: &mut Value) {
    if query == HOLD {
        let key = variables["key"].take();
        variables["input"]["idempotencyKey"] = key;
        variables.as_object_mut().unwrap().remove("key");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gateways_killed_mid_booking_leave_one_answer_per_key_and_no_seat_lost() {
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &ROWS).await);
    let uri = crate::helpers::mongodb_uri();
    let database = sale.app.store.database_name().to_owned();
    let gateways = Arc::new(
        tokio::task::spawn_blocking(move || Gateways::start(&uri, &database))
            .await
            .unwrap(),
    );
    let (done, resent) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicUsize::new(0)),
    );
    let killer = {
        let (gateways, done) = (Arc::clone(&gateways), Arc::clone(&done));
        tokio::spawn(async move {
            for kill in 0..KILLS {
                tokio::time::sleep(KILL_EVERY).await;
                let gateways = Arc::clone(&gateways);
                tokio::task::spawn_blocking(move || gateways.kill_and_replace(kill % 2))
                    .await
                    .unwrap();
            }
            done.store(true, Ordering::Relaxed);
        })
    };
    let clients: Vec<_> = (0..CLIENTS)
        .map(|n| {
            let client = Client {
                sale: Arc::clone(&sale),
                gateways: Arc::clone(&gateways),
                http: reqwest::Client::builder()
                    .timeout(Duration::from_secs(30))
                    .build()
                    .unwrap(),
                answered: Vec::new(),
                done: Arc::clone(&done),
                resent: Arc::clone(&resent),
            };
            tokio::spawn(client.run(n))
        })
        .collect();
    let mut answered = Vec::new();
    for client in clients {
        answered.extend(client.await.unwrap());
    }
    killer.await.unwrap();
    let resent = resent.load(Ordering::Relaxed);
    let taken_over = mongodb::Client::with_uri_str(crate::helpers::mongodb_uri())
        .await
        .unwrap()
        .database(sale.app.store.database_name())
        .collection::<bson::Document>("idempotency_keys")
        .count_documents(bson::doc! { "attempt": { "$gt": 1 } })
        .await
        .unwrap();
    eprintln!(
        "{} keyed requests answered; {resent} sends failed and were re-sent; \
         {taken_over} keys taken over from a killed attempt",
        answered.len()
    );
    assert!(
        resent > 0,
        "no kill interrupted a request: the test proved nothing"
    );

    // Every key answers again exactly what its client was told.
    let http = reqwest::Client::new();
    let mut holds_told = HashSet::new();
    for Answered {
        key,
        query,
        variables,
        answer,
    } in answered
    {
        let n: usize = key.split('-').nth(1).unwrap().parse().unwrap();
        let again: Value = http
            .post(gateways.url(0))
            .bearer_auth(sale.key_of_client(n))
            .json(&json!({ "query": query, "variables": variables }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(again, answer, "{key} answered twice differently");
        if let Some(hold) = answer["data"]["holdSeats"]["id"].as_str() {
            holds_told.insert(hold.to_owned());
        }
    }
    assert!(!holds_told.is_empty());
    // Every hold a client was told of was confirmed or released, so none is left: a seat held
    // by a hold no client knows would be lost to sale.
    let inventory = sale.inventory().await;
    assert!(
        inventory.holds.is_empty(),
        "holds nobody knows: {:?}",
        inventory.holds
    );
    assert_eq!(inventory.counts.held, 0);
    sale.check_invariants().await;
    let confirmed: HashMap<String, Value> = sale.check_orders_agree_with_seats().await;
    assert_eq!(confirmed.len() as u32 * 2, inventory.counts.sold);
}
