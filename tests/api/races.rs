//! The booking race: hundreds of concurrent clients holding and confirming overlapping seats of
//! one showtime, retrying every request with its idempotency key.

use std::collections::HashSet;
use std::sync::Arc;

use boxoffice::config::SalesArgs;
use serde_json::{json, Value};

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
    let first = sale.app.graphql_as(key, query, variables.clone()).await.0;
    let retry = sale.app.graphql_as(key, query, variables).await.0;
    assert_eq!(first, retry, "a retry with the same key replays the answer");
    first
}

/// A pseudo-random pair of adjacent seats for client `task`, attempt `attempt`: rows A–F,
/// seats 1–10, so that clients collide often.
fn pair(task: usize, attempt: usize) -> [String; 2] {
    let n = (task * 7919 + attempt * 104_729) % 54;
    let (row, column) = (char::from(b'A' + (n / 9) as u8), n % 9 + 1);
    [format!("{row}{column}"), format!("{row}{}", column + 1)]
}

async fn client(sale: Arc<Sale>, task: usize) -> Outcome {
    let key = if task.is_multiple_of(2) {
        &sale.maoyan
    } else {
        &sale.wechat
    };
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
    let sale = Arc::new(sale_in_hall(SalesArgs::default().hold_policy(), &rows).await);
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
