//! Group commit of the confirmations waiting for one showtime (`orders::confirm_batch`):
//! counts, not timings. A batch of N confirmations sends the same commands whatever N,
//! refusals from its read included; each request gets its own order, and a keyed one the same
//! again when replayed; a hold released while its batch was being written is refused alone and
//! the others are sold.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use boxoffice::config::BookingArgs;
use boxoffice::store::{Lane, PausePoint};
use serde_json::{json, Value};

use crate::round_trips::names;
use crate::sale::{sale_in_hall, Sale};

const CONFIRM: &str = "mutation ($hold: ID!, $key: String) { confirmHold(input: {
    holdId: $hold, customer: { name: \"张三\", contact: \"13800000000\" },
    idempotencyKey: $key }) { id status seats { label } total { amount } } }";

/// What one batch of confirmations sends (sorted): the showtime and the holds read, the
/// orders written, the seats sold, the orders confirmed. (The events are the relay's, on
/// another lane.)
const ONE_BATCH: [&str; 5] = [
    "find seat_inventory",
    "find showtimes",
    "findAndModify seat_inventory",
    "insert orders",
    "update orders",
];

/// `n` holds of a pair each on maoyan, placed one by one: their ids and seats.
async fn holds(sale: &Sale, n: usize) -> Vec<(Value, Vec<String>)> {
    let mut holds = Vec::new();
    for i in 0..n {
        let seats = [format!("A{}", 2 * i + 1), format!("A{}", 2 * i + 2)];
        let seats: Vec<&str> = seats.iter().map(String::as_str).collect();
        let hold = sale.hold_id(&sale.maoyan, &seats).await;
        assert!(hold.is_string(), "hold {i}");
        holds.push((hold, seats.iter().map(|s| s.to_string()).collect()));
    }
    holds
}

/// Confirms `holds` (each with key `key-i` when `keyed`) as one batch: the first leads and is
/// held up before it takes the queue until the others have joined it; `meanwhile` runs while
/// the batch is held up after writing its orders, before it sells. The answers, and the
/// commands the requests sent from the moment the leader was held up.
async fn one_batch<F: std::future::Future<Output = ()>>(
    sale: &Arc<Sale>,
    holds: &[Value],
    keyed: bool,
    meanwhile: impl FnOnce() -> F,
) -> (Vec<Value>, Vec<String>) {
    let store = &sale.app.store;
    let pause = store
        .faults()
        .pause_next_at(PausePoint::ConfirmBatchBeforeTake);
    let before_sell = store
        .faults()
        .pause_next_at(PausePoint::ConfirmBatchBeforeSell);
    let queued_before = store.faults().confirmations_queued();
    let confirm = |i: usize| {
        let sale = Arc::clone(sale);
        let key = keyed.then(|| format!("key-{i}"));
        let variables = json!({ "hold": holds[i], "key": key });
        tokio::spawn(async move {
            sale.app
                .graphql_as(&sale.maoyan, CONFIRM, variables)
                .await
                .0
        })
    };
    let leader = confirm(0);
    pause.reached().await;
    store.commands().start();
    // One after another, each queued before the next is sent (see `batches::one_batch`).
    let mut followers = Vec::new();
    for i in 1..holds.len() {
        followers.push(confirm(i));
        while store.faults().confirmations_queued() < queued_before + i {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    pause.resume();
    before_sell.reached().await;
    let sent_before: Vec<_> = store.commands().take();
    meanwhile().await;
    store.commands().start();
    before_sell.resume();
    let mut answers = vec![leader.await.unwrap()];
    for follower in followers {
        answers.push(follower.await.unwrap());
    }
    let sent: Vec<_> = (sent_before.into_iter().chain(store.commands().take()))
        .filter(|command| command.lane == Lane::Requests)
        .collect();
    (answers, names(&sent))
}

/// The orders among `answers` (checked CONFIRMED, each with its hold's seats), by position.
fn confirmed(answers: &[Value], holds: &[(Value, Vec<String>)]) -> Vec<Option<String>> {
    let mut ids = HashSet::new();
    (answers.iter().zip(holds))
        .map(|(answer, (_, seats))| {
            let order = &answer["data"]["confirmHold"];
            if order.is_null() {
                return None;
            }
            assert_eq!(order["status"], "CONFIRMED", "{answer:#}");
            let sold: Vec<&str> = (order["seats"].as_array().unwrap().iter())
                .map(|seat| seat["label"].as_str().unwrap())
                .collect();
            assert_eq!(sold, *seats, "{answer:#}");
            assert_eq!(order["total"]["amount"], 8000);
            let id = order["id"].as_str().unwrap().to_owned();
            assert!(ids.insert(id.clone()), "one order per confirmation");
            Some(id)
        })
        .collect()
}

#[tokio::test]
async fn a_batch_of_confirmations_sends_the_same_commands_whatever_its_size() {
    for n in [3, 10] {
        let sale = Arc::new(
            sale_in_hall(
                BookingArgs::default().hold_policy(),
                &["SSSSSSSSSSSSSSSSSSSS"],
            )
            .await,
        );
        let held = holds(&sale, n).await;
        let ids: Vec<Value> = held.iter().map(|(id, _)| id.clone()).collect();
        let (answers, sent) = one_batch(&sale, &ids, false, || async {}).await;
        let orders = confirmed(&answers, &held);
        assert!(orders.iter().all(Option::is_some), "{answers:#?}");
        assert_eq!(sent, ONE_BATCH, "{n} confirmations");
        sale.check_invariants().await;
        let inventory = sale.inventory().await;
        assert_eq!(inventory.counts.sold as usize, 2 * n);
        assert!(inventory.holds.is_empty());
        let stored = sale.check_orders_agree_with_seats().await;
        assert_eq!(stored.len(), n, "one stored order each");
    }
}

#[tokio::test]
async fn confirmations_a_batch_cannot_take_are_refused_from_its_read() {
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &["SSSSSSSSSS"]).await);
    let mut held = holds(&sale, 2).await;
    // Another channel's hold, and one released before the batch: neither is this channel's
    // to confirm. Both refused from the batch's read, with nothing written.
    let theirs = sale.hold_id(&sale.wechat, &["A7", "A8"]).await;
    let released = sale.hold_id(&sale.maoyan, &["A9", "A10"]).await;
    sale.app
        .graphql_as(
            &sale.maoyan,
            "mutation ($id: ID!) { releaseHold(holdId: $id) }",
            json!({ "id": released }),
        )
        .await
        .data();
    held.push((theirs, Vec::new()));
    held.push((released, Vec::new()));
    let ids: Vec<Value> = held.iter().map(|(id, _)| id.clone()).collect();
    let (answers, sent) = one_batch(&sale, &ids, false, || async {}).await;
    let orders = confirmed(&answers, &held);
    assert!(orders[0].is_some() && orders[1].is_some(), "{answers:#?}");
    for refused in &answers[2..] {
        assert_eq!(
            refused["errors"][0]["extensions"]["code"], "NOT_FOUND",
            "{refused:#}"
        );
    }
    assert_eq!(sent, ONE_BATCH);
    sale.check_invariants().await;
    assert_eq!(sale.check_orders_agree_with_seats().await.len(), 2);
    assert_eq!(
        sale.inventory().await.counts.held,
        2,
        "wechat's hold is untouched"
    );
}

#[tokio::test]
async fn a_hold_released_while_its_batch_is_written_is_refused_and_the_others_are_sold() {
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &["SSSSSSSSSS"]).await);
    let held = holds(&sale, 3).await;
    let ids: Vec<Value> = held.iter().map(|(id, _)| id.clone()).collect();
    let released = ids[1].clone();
    let release = || {
        let sale = Arc::clone(&sale);
        async move {
            // Another request (another gateway, as well) releases it after the batch read it.
            let answer = sale
                .app
                .graphql_as(
                    &sale.maoyan,
                    "mutation ($id: ID!) { releaseHold(holdId: $id) }",
                    json!({ "id": released }),
                )
                .await;
            assert_eq!(answer.data()["releaseHold"], json!(["A3", "A4"]));
        }
    };
    let (answers, sent) = one_batch(&sale, &ids, false, release).await;
    let orders = confirmed(&answers, &held);
    assert!(orders[0].is_some() && orders[2].is_some(), "{answers:#?}");
    assert_eq!(
        answers[1]["errors"][0]["extensions"]["code"], "NOT_FOUND",
        "{:#}",
        answers[1]
    );
    // The batch's sale did not match; each was then sold on its own, and the released one's
    // order discarded.
    let count = |name: &str| sent.iter().filter(|sent| *sent == name).count();
    assert_eq!(count("findAndModify seat_inventory"), 1 + 3, "{sent:#?}");
    assert_eq!(count("delete orders"), 1, "{sent:#?}");
    sale.check_invariants().await;
    let stored = sale.check_orders_agree_with_seats().await;
    assert_eq!(
        stored.len(),
        2,
        "no order for the released hold: {stored:#?}"
    );
    let inventory = sale.inventory().await;
    assert_eq!((inventory.counts.sold, inventory.counts.held), (4, 0));
}

#[tokio::test]
async fn keyed_confirmations_of_a_batch_each_replay_their_own_order() {
    let sale =
        Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &["SSSSSSSSSSSS"]).await);
    let held = holds(&sale, 5).await;
    let ids: Vec<Value> = held.iter().map(|(id, _)| id.clone()).collect();
    let (answers, sent) = one_batch(&sale, &ids, true, || async {}).await;
    let orders = confirmed(&answers, &held);
    assert!(orders.iter().all(Option::is_some), "{answers:#?}");
    let count = |name: &str| sent.iter().filter(|sent| *sent == name).count();
    assert_eq!(count("insert orders"), 1, "{sent:#?}");
    assert_eq!(count("findAndModify seat_inventory"), 1, "{sent:#?}");
    for (i, first) in answers.iter().enumerate() {
        let variables = json!({ "hold": ids[i], "key": format!("key-{i}") });
        let replayed = sale.app.graphql_as(&sale.maoyan, CONFIRM, variables).await;
        assert_eq!(&replayed.0, first, "key-{i}");
    }
    assert_eq!(sale.check_orders_agree_with_seats().await.len(), 5);
}
