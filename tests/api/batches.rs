//! Group commit of the best-available holds waiting for one showtime (`holds::batch`): counts,
//! not timings. A batch of N holds sends the same commands whatever N, refusals from its read
//! included; each request gets its own answer, and a keyed one the same again when replayed;
//! the answers of keys that end together are written in one update (`store::grouped_sets`).
//! (Two gateways batching on one showtime never hold a seat twice:
//! `races::two_gateways_racing_for_the_best_seats_never_sell_one_twice`, batching on.)

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use boxoffice::config::BookingArgs;
use boxoffice::store::{Lane, PausePoint};
use serde_json::{json, Value};

use crate::round_trips::names;
use crate::sale::{sale_in_hall, Sale};

const BEST_PAIR: &str = "mutation ($id: ID!, $key: String) { holdSeats(input: {
    showtimeId: $id, best: { count: 2 }, idempotencyKey: $key }) { id seats { label } } }";

/// `n` best-pair holds of one showtime (keyed `key-0`, … when `keyed`) placed as one batch:
/// the first leads and is held up before it takes the queue until the other `n − 1` have
/// joined it. Their answers, and the commands sent from the moment the leader was held up.
async fn one_batch(sale: &Arc<Sale>, n: usize, keyed: bool) -> (Vec<Value>, Vec<String>) {
    let showtime = sale.showtime.clone();
    one_batch_of(sale, n, move |i| {
        let key = keyed.then(|| format!("key-{i}"));
        (BEST_PAIR, json!({ "id": showtime, "key": key }))
    })
    .await
}

/// `n` holds (request `i` is `ask(i)`: the mutation and its variables) placed as one batch,
/// as [`one_batch`] places them.
async fn one_batch_of(
    sale: &Arc<Sale>,
    n: usize,
    ask: impl Fn(usize) -> (&'static str, Value),
) -> (Vec<Value>, Vec<String>) {
    // The channel's key is looked up once, before.
    sale.app
        .graphql_as(&sale.maoyan, "{ __typename }", json!({}))
        .await;
    let store = &sale.app.store;
    let pause = store.faults().pause_next_at(PausePoint::BatchBeforeTake);
    let queued_before = store.faults().holds_queued();
    let hold = |i: usize| {
        let sale = Arc::clone(sale);
        let (query, variables) = ask(i);
        tokio::spawn(async move { sale.app.graphql_as(&sale.maoyan, query, variables).await.0 })
    };
    let leader = hold(0);
    pause.reached().await;
    store.commands().start();
    // One after another, each queued before the next is sent: a follower not admitted yet
    // when it joins (its first command is the batch's) batches apart from those admitted
    // (`group_commit::Queues::run`).
    let mut followers = Vec::new();
    for i in 1..n {
        followers.push(hold(i));
        while store.faults().holds_queued() < queued_before + i {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
    pause.resume();
    let mut answers = vec![leader.await.unwrap()];
    for follower in followers {
        answers.push(follower.await.unwrap());
    }
    let sent: Vec<_> = (store.commands().take().into_iter())
        .filter(|command| command.lane == Lane::Requests)
        .collect();
    (answers, names(&sent))
}

/// The seats of the holds among `answers`, checked distinct, and the refusals' codes.
fn seats_and_refusals(answers: &[Value]) -> (HashSet<String>, Vec<String>) {
    seats_and_refusals_of(answers, "holdSeats")
}

/// [`seats_and_refusals`] of answers whose hold is at `field`.
fn seats_and_refusals_of(answers: &[Value], field: &str) -> (HashSet<String>, Vec<String>) {
    let (mut seats, mut refusals) = (HashSet::new(), Vec::new());
    for answer in answers {
        match answer.get("errors") {
            Some(errors) => refusals.push(errors[0]["extensions"]["code"].as_str().unwrap().into()),
            None => {
                let held = answer["data"][field]["seats"].as_array().unwrap();
                assert_eq!(held.len(), 2, "{answer:#}");
                for seat in held {
                    let label = seat["label"].as_str().unwrap().to_owned();
                    assert!(seats.insert(label.clone()), "{label} held twice");
                }
            }
        }
    }
    (seats, refusals)
}

#[tokio::test]
async fn a_batch_of_holds_sends_the_same_commands_whatever_its_size() {
    const ONE_BATCH: [&str; 3] = [
        "find seat_inventory",
        "find showtimes",
        "findAndModify seat_inventory",
    ];
    for n in [3, 24] {
        let rows = ["SSSSSSSSSSSSSSSSSSSS"; 10];
        let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &rows).await);
        let (answers, sent) = one_batch(&sale, n, false).await;
        let (seats, refusals) = seats_and_refusals(&answers);
        assert!(refusals.is_empty(), "{refusals:?}");
        assert_eq!(seats.len(), 2 * n);
        assert_eq!(sent, ONE_BATCH, "{n} holds");
        sale.check_invariants().await;
        assert_eq!(sale.inventory().await.counts.held as usize, 2 * n);
    }
}

#[tokio::test]
async fn holds_a_batch_cannot_seat_are_refused_from_its_read_and_the_rest_are_placed() {
    // Three pairs for five requests: the first three in the queue get them.
    let rows = ["SS_SS_SS"];
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &rows).await);
    let (answers, sent) = one_batch(&sale, 5, false).await;
    let (seats, refusals) = seats_and_refusals(&answers);
    assert_eq!(seats.len(), 6);
    assert_eq!(refusals, ["SEAT_UNAVAILABLE"; 2]);
    assert_eq!(
        sent,
        [
            "find seat_inventory",
            "find showtimes",
            "findAndModify seat_inventory"
        ]
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn keyed_holds_of_a_batch_each_keep_their_own_answer() {
    let rows = ["SSSSSSSSSSSSSSSSSSSS"; 4];
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &rows).await);
    // The first request to write its key's answer is held up until the other seven are
    // queued behind it: eight answers, one update.
    let faults = sale.app.store.faults();
    let sets_before = faults.sets_queued();
    let first_answer = faults.pause_next_at(PausePoint::SetBatchBeforeTake);
    let answers_queued = {
        let sale = Arc::clone(&sale);
        tokio::spawn(async move {
            first_answer.reached().await;
            while sale.app.store.faults().sets_queued() < sets_before + 7 {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            first_answer.resume();
        })
    };
    let (answers, sent) = one_batch(&sale, 8, true).await;
    answers_queued.await.unwrap();
    let (seats, _) = seats_and_refusals(&answers);
    assert_eq!(seats.len(), 16);
    // Each key has its own record (the followers' claimed while the leader was held up,
    // before they joined the queue); the seats are one batch's.
    let count = |name: &str| sent.iter().filter(|sent| *sent == name).count();
    assert_eq!(count("insert idempotency_keys"), 7, "{sent:#?}");
    assert_eq!(count("findAndModify seat_inventory"), 1, "{sent:#?}");
    assert_eq!(count("update idempotency_keys"), 1, "{sent:#?}");
    // A retry with a key answers what its first request was answered, hold for hold.
    for (i, first) in answers.iter().enumerate() {
        let variables = json!({ "id": sale.showtime, "key": format!("key-{i}") });
        let replayed = sale
            .app
            .graphql_as(&sale.maoyan, BEST_PAIR, variables)
            .await;
        assert_eq!(&replayed.0, first, "key-{i}");
    }
    sale.check_invariants().await;
    assert_eq!(sale.inventory().await.counts.held, 16);
}

const NAMED: &str = "mutation ($id: ID!, $seats: [String!]!, $key: String) { named: holdSeats(
    input: { showtimeId: $id, seats: $seats, idempotencyKey: $key }) { id seats { label } } }";

#[tokio::test]
async fn named_holds_are_placed_in_one_batch_and_a_seat_asked_twice_goes_to_the_first() {
    // Row A of 20 seats: request i names A(2i+1) and A(2i+2); the last one also names A1,
    // which the first request of the batch takes.
    for n in [3, 9] {
        let rows = ["SSSSSSSSSSSSSSSSSSSS"];
        let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &rows).await);
        let showtime = sale.showtime.clone();
        let ask = move |i: usize| {
            let seats = match i + 1 == n {
                true => vec!["A1".to_owned(), format!("A{}", 2 * i + 1)],
                false => vec![format!("A{}", 2 * i + 1), format!("A{}", 2 * i + 2)],
            };
            let key = format!("named-{i}");
            (NAMED, json!({ "id": showtime, "seats": seats, "key": key }))
        };
        let (answers, sent) = one_batch_of(&sale, n, ask.clone()).await;
        let (seats, refusals) = seats_and_refusals_of(&answers, "named");
        assert_eq!(refusals, ["SEAT_UNAVAILABLE"], "{answers:#?}");
        let last = &answers[n - 1]["errors"][0]["extensions"]["seats"];
        assert_eq!(last, &json!(["A1"]), "the refusal names the seat taken");
        assert_eq!(seats.len(), 2 * (n - 1));
        // Each follower read the seats and claimed its key on its own before it joined the
        // queue; the batch then read once, placed every hold in one update, and wrote each
        // key's answer.
        let count = |name: &str| sent.iter().filter(|sent| *sent == name).count();
        assert_eq!(count("find seat_inventory"), (n - 1) + 1, "{sent:#?}");
        assert_eq!(count("find showtimes"), 1, "{sent:#?}");
        assert_eq!(count("findAndModify seat_inventory"), 1, "{sent:#?}");
        // Replays answer as the first time, the refusal included.
        for (i, first) in answers.iter().enumerate() {
            let (_, variables) = ask(i);
            let replayed = sale.app.graphql_as(&sale.maoyan, NAMED, variables).await;
            assert_eq!(&replayed.0, first, "named-{i}");
        }
        sale.check_invariants().await;
        assert_eq!(sale.inventory().await.counts.held as usize, 2 * (n - 1));
    }
}
