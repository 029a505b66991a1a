//! The booking race: hundreds of concurrent clients holding and confirming overlapping seats of
//! one showtime, retrying every request with its idempotency key.

use std::collections::HashSet;
use std::sync::Arc;

use boxoffice::config::BookingArgs;
use serde_json::{json, Value};

use crate::helpers::TestApp;
use crate::sale::{sale_in_hall, Sale, HOLD};

const TASKS: usize = 220;
const CONFIRM: &str = "mutation ($hold: ID!, $key: String) { confirmHold(input: {
    holdId: $hold, customer: { name: \"李四\", contact: \"13900000000\" }, idempotencyKey: $key }) {
    id status seats { label } } }";

/// What one client ended with.
enum Outcome {
    /// An order of these seats.
    Bought { order: String, seats: Vec<String> },
    /// Every hold it tried was refused with these codes.
    Refused(Vec<String>),
}

/// Sends a mutation, then sends it again with the same idempotency key (a client retrying
/// after a timeout): the retry must get the very same answer.
async fn with_retry(sale: &Sale, key: &str, query: &str, variables: Value) -> Value {
    let first = answered(sale, key, query, &variables).await;
    let retry = answered(sale, key, query, &variables).await;
    assert_eq!(first, retry, "a retry with the same key replays the answer");
    first
}

/// The answer to an operation, sent again with its key while the gateway refuses it for
/// overload (UNAVAILABLE: 220 clients are more than one gateway admits at once) or stops it at
/// its timeout (REQUEST_TIMEOUT, on a loaded test machine), as a client does: the retry with
/// the key is the request's one effect.
async fn answered(sale: &Sale, key: &str, query: &str, variables: &Value) -> Value {
    for _ in 0..600 {
        let answer = sale.app.graphql_as(key, query, variables.clone()).await.0;
        let code = &answer["errors"][0]["extensions"]["code"];
        if code != "UNAVAILABLE" && code != "REQUEST_TIMEOUT" {
            return answer;
        }
        let pause = 20 + rand::random::<u64>() % 80;
        tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
    }
    panic!("refused for a whole minute")
}

/// A pseudo-random pair of adjacent seats for client `task`, attempt `attempt`: rows A–F,
/// seats 1–10, so that clients collide often.
fn pair(task: usize, attempt: usize) -> [String; 2] {
    let n = (task * 7919 + attempt * 104_729) % 54;
    let (row, column) = (char::from(b'A' + (n / 9) as u8), n % 9 + 1);
    [format!("{row}{column}"), format!("{row}{}", column + 1)]
}

async fn client(sale: Arc<Sale>, task: usize) -> Outcome {
    let key = sale.key_of_client(task);
    let mut refusals = Vec::new();
    for attempt in 0..3 {
        let named = pair(task, attempt);
        let input = if task % 4 == 3 {
            json!({ "showtimeId": sale.showtime, "best": { "count": 2 } })
        } else {
            json!({ "showtimeId": sale.showtime, "seats": named })
        };
        let mut input = input;
        input["idempotencyKey"] = json!(format!("hold-{task}-{attempt}"));
        let held = with_retry(&sale, key, HOLD, json!({ "input": input })).await;
        if let Some(errors) = held.get("errors") {
            let error = &errors[0];
            if task % 4 != 3 {
                let taken = error["extensions"]["seats"].as_array().unwrap();
                assert!(
                    !taken.is_empty()
                        && taken
                            .iter()
                            .all(|seat| named.contains(&seat.as_str().unwrap().to_owned())),
                    "the refusal names which of {named:?} were taken: {error}"
                );
            }
            refusals.push(error["extensions"]["code"].as_str().unwrap().to_owned());
            continue;
        }
        let hold = &held["data"]["holdSeats"]["id"];
        let variables = json!({ "hold": hold, "key": format!("confirm-{task}") });
        let confirmed = with_retry(&sale, key, CONFIRM, variables).await;
        let order = &confirmed["data"]["confirmHold"];
        assert_eq!(
            order["status"], "CONFIRMED",
            "a live hold confirms: {confirmed}"
        );
        return Outcome::Bought {
            order: order["id"].as_str().unwrap().to_owned(),
            seats: order["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|seat| seat["label"].as_str().unwrap().to_owned())
                .collect(),
        };
    }
    Outcome::Refused(refusals)
}

#[tokio::test]
async fn hundreds_of_racing_clients_never_sell_a_seat_twice() {
    let rows = ["SSSSSSSSSS"; 6];
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &rows).await);
    let clients: Vec<_> = (0..TASKS)
        .map(|task| tokio::spawn(client(Arc::clone(&sale), task)))
        .collect();
    let (mut bought, mut refused) = (Vec::new(), 0);
    for client in clients {
        match client.await.unwrap() {
            Outcome::Bought { order, seats } => bought.push((order, seats)),
            Outcome::Refused(codes) => {
                assert!(
                    codes.iter().all(|code| code == "SEAT_UNAVAILABLE"),
                    "{codes:?}"
                );
                refused += 1;
            }
        }
    }
    assert!(
        !bought.is_empty() && refused > 0,
        "bought {}, refused {refused}",
        bought.len()
    );

    // Every seat is sold at most once, and the orders the clients were told about are exactly
    // the confirmed orders, each with its seats SOLD under it.
    let sold: Vec<&String> = bought.iter().flat_map(|(_, seats)| seats).collect();
    let distinct: HashSet<&String> = sold.iter().copied().collect();
    assert_eq!(sold.len(), distinct.len(), "no seat sold twice");
    let confirmed = sale.check_orders_agree_with_seats().await;
    let told: HashSet<&String> = bought.iter().map(|(order, _)| order).collect();
    assert_eq!(told, confirmed.keys().collect::<HashSet<_>>());
    // Counts equal the seat states (check_invariants), and no hold is left over.
    sale.check_invariants().await;
    let inventory = sale.inventory().await;
    assert_eq!(inventory.counts.sold as usize, sold.len());
    assert_eq!(inventory.counts.held, 0);
}

const BEST_PAIR: &str =
    "mutation ($id: ID!) { holdSeats(input: { showtimeId: $id, best: { count: 2 } }) {
    id seats { label } } }";

/// Holds the best pair through `gateway` as the channel with `key`, then confirms it; the
/// order's seats, or the refusal's code.
async fn buy_best_pair(
    gateway: &TestApp,
    key: &str,
    showtime: &str,
) -> Result<Vec<String>, String> {
    let held = gateway
        .graphql_as(key, BEST_PAIR, json!({ "id": showtime }))
        .await
        .0;
    if let Some(errors) = held.get("errors") {
        return Err(errors[0]["extensions"]["code"].as_str().unwrap().to_owned());
    }
    let hold = &held["data"]["holdSeats"]["id"];
    let confirmed = gateway
        .graphql_as(key, CONFIRM, json!({ "hold": hold, "key": null }))
        .await;
    Ok(confirmed.data()["confirmHold"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| seat["label"].as_str().unwrap().to_owned())
        .collect())
}

#[tokio::test]
async fn racing_best_available_requests_of_one_gateway_all_get_seats_while_there_are_some() {
    // 100 pairs for 60 clients: none should be told the seats kept being taken.
    let rows = ["SSSSSSSSSSSSSSSSSSSS"; 10];
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &rows).await);
    let clients: Vec<_> = (0..60)
        .map(|i| {
            let sale = Arc::clone(&sale);
            tokio::spawn(async move {
                let key = sale.key_of_client(i);
                buy_best_pair(&sale.app, key, &sale.showtime).await
            })
        })
        .collect();
    let mut sold = HashSet::new();
    for client in clients {
        let seats = client.await.unwrap().expect("a pair while pairs are left");
        let [first, second] = &seats[..] else {
            panic!("two seats: {seats:?}")
        };
        assert_eq!(first[..1], second[..1], "one row: {seats:?}");
        for seat in seats {
            assert!(sold.insert(seat.clone()), "{seat} sold twice");
        }
    }
    sale.check_invariants().await;
    assert_eq!(sale.check_orders_agree_with_seats().await.len(), 60);
}

#[tokio::test]
async fn two_gateways_racing_for_the_best_seats_never_sell_one_twice() {
    // 30 pairs for 80 clients on two gateway processes, whose showtime locks know nothing
    // of each other: the conditional updates alone keep every seat to one order.
    let rows = ["SSSSSSSSSS"; 6];
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &rows).await);
    let other = Arc::new(sale.app.another_gateway().await);
    let clients: Vec<_> = (0..80)
        .map(|i| {
            let (sale, other) = (Arc::clone(&sale), Arc::clone(&other));
            tokio::spawn(async move {
                let gateway = if i % 2 == 0 { &sale.app } else { &*other };
                let key = if i % 4 < 2 {
                    &sale.maoyan
                } else {
                    &sale.wechat
                };
                buy_best_pair(gateway, key, &sale.showtime).await
            })
        })
        .collect();
    let (mut sold, mut refused) = (Vec::new(), 0);
    for client in clients {
        match client.await.unwrap() {
            Ok(seats) => sold.extend(seats),
            Err(code) => {
                assert_eq!(code, "SEAT_UNAVAILABLE");
                refused += 1;
            }
        }
    }
    let distinct: HashSet<&String> = sold.iter().collect();
    assert_eq!(distinct.len(), sold.len(), "no seat sold twice");
    assert!(refused > 0 && !sold.is_empty());
    sale.check_invariants().await;
    let confirmed = sale.check_orders_agree_with_seats().await;
    assert_eq!(confirmed.len() * 2, sold.len());
}
