//! Every command a booking sends is served by an index and reads at most one document, on
//! the test server too (which scans a whole collection for some filter shapes a MongoDB server
//! plans on `_id`): each command recorded during keyed holds, confirms, cancels and releases is
//! run again as `explain`.

use serde_json::{json, Value};

use crate::fixtures::Catalogue;
use crate::sale::{sale, Sale};

const HOLD: &str = "mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) { id } }";
const CONFIRM: &str = "mutation ($hold: ID!, $key: String) { confirmHold(input: {
    holdId: $hold, idempotencyKey: $key, customer: { name: \"李四\", contact: \"li@example.cn\" } }) { id } }";
const CANCEL: &str =
    "mutation ($id: ID!, $key: String) { cancelOrder(orderId: $id, idempotencyKey: $key) { id } }";
const CANCEL_SEATS: &str = "mutation ($id: ID!, $seats: [String!], $key: String) {
    cancelOrder(orderId: $id, seats: $seats, idempotencyKey: $key) { id } }";
const RELEASE: &str =
    "mutation ($id: ID!, $key: String) { releaseHold(holdId: $id, idempotencyKey: $key) }";

/// The sale among 30 other showtimes, with holds, orders and idempotency records already
/// there: a command that scanned its collection would read more than one document.
async fn busy_sale() -> Sale {
    let sale = sale().await;
    let mut catalogue = Catalogue::default();
    for i in 0..30 {
        let cinema = catalogue.cinema(&format!("别的影城{i}"), "北京", 39.9, 116.4);
        let hall = catalogue.hall(&cinema, "2号厅", &["SSSSSS", "SSSSSS"]);
        let movie = catalogue.movie(&format!("别的电影{i}"), &["喜剧"]);
        catalogue.showtime(&cinema, &hall, &movie, 3 + i as i64, &[("maoyan", 4500)]);
    }
    catalogue.insert(&sale.app).await;
    for (i, seat) in ["A1", "A2", "A3"].into_iter().enumerate() {
        let hold = sale
            .run(HOLD, hold_input(&sale, seat, &format!("history-hold-{i}")))
            .await;
        let hold = hold["holdSeats"]["id"].clone();
        sale.run(
            CONFIRM,
            json!({ "hold": hold, "key": format!("history-pay-{i}") }),
        )
        .await;
    }
    sale
}

fn hold_input(sale: &Sale, seat: &str, key: &str) -> Value {
    json!({ "input": { "showtimeId": sale.showtime, "seats": [seat], "idempotencyKey": key } })
}

impl Sale {
    /// Runs `query` as maoyan and gives its data.
    async fn run(&self, query: &str, variables: Value) -> Value {
        self.app
            .graphql_as(&self.maoyan, query, variables)
            .await
            .data()
            .clone()
    }

    /// Runs `query` as maoyan, then explains every command it sent: none may scan a
    /// collection or read more than one document. Gives the data and how many commands
    /// were explained.
    async fn run_examined(&self, what: &str, query: &str, variables: Value) -> (Value, usize) {
        self.app.store.commands().start();
        let data = self.run(query, variables).await;
        let sent = self.app.store.commands().take();
        let mut explained = 0;
        for command in &sent {
            let Some(plan) = self.app.store.plan_of(command).await.unwrap() else {
                continue;
            };
            explained += 1;
            println!(
                "{what}: {} {} examined {} documents, {} keys",
                plan.command, plan.collection, plan.docs_examined, plan.keys_examined
            );
            assert!(
                !plan.collection_scan && plan.docs_examined <= 1,
                "{what}: {} {} scans: {} documents, plan {}",
                plan.command,
                plan.collection,
                plan.docs_examined,
                plan.winning_plan
            );
        }
        (data, explained)
    }
}

#[tokio::test]
async fn every_booking_command_reads_one_document_through_an_index() {
    let sale = busy_sale().await;

    let (held, explained) = sale
        .run_examined("hold", HOLD, hold_input(&sale, "B1", "examined-hold"))
        .await;
    assert!(
        explained >= 3,
        "the key, the inventory, the showtime: {explained}"
    );
    let hold = held["holdSeats"]["id"].clone();

    // The best seats: the inventory and its showtime, read side by side.
    let best = json!({ "input": { "showtimeId": sale.showtime, "best": { "count": 1 },
        "idempotencyKey": "examined-best" } });
    let (_, explained) = sale.run_examined("best hold", HOLD, best).await;
    assert!(
        explained >= 3,
        "the inventory, the showtime, the hold: {explained}"
    );

    let confirm = json!({ "hold": hold, "key": "examined-pay" });
    let (order, explained) = sale.run_examined("confirm", CONFIRM, confirm).await;
    assert!(explained >= 4, "{explained}");
    let order = order["confirmHold"]["id"].clone();

    let cancel = json!({ "id": order, "key": "examined-cancel" });
    let (_, explained) = sale.run_examined("cancel", CANCEL, cancel).await;
    assert!(explained >= 3, "{explained}");

    let hold = sale
        .run(HOLD, hold_input(&sale, "B2", "examined-hold-2"))
        .await;
    let release = json!({ "id": hold["holdSeats"]["id"], "key": "examined-release" });
    let (_, explained) = sale.run_examined("release", RELEASE, release).await;
    assert!(explained >= 2, "{explained}");

    // Cancelling one seat of a two-seat order.
    let hold = sale
        .run(
            HOLD,
            json!({ "input": { "showtimeId": sale.showtime,
        "seats": ["C1", "C2"], "idempotencyKey": "examined-hold-3" } }),
        )
        .await;
    let pay = json!({ "hold": hold["holdSeats"]["id"], "key": "examined-pay-3" });
    let order = sale.run(CONFIRM, pay).await["confirmHold"]["id"].clone();
    let partial = json!({ "id": order, "seats": ["C2"], "key": "examined-partial" });
    let (_, explained) = sale
        .run_examined("partial cancel", CANCEL_SEATS, partial)
        .await;
    assert!(
        explained >= 5,
        "the key, the order, the cinema, the seats: {explained}"
    );

    // The background passes find what they work on through their indexes too.
    sale.app.store.commands().start();
    boxoffice::sales::project_sales(&sale.app.store)
        .await
        .unwrap();
    boxoffice::orders::settle_orders(&sale.app.store, std::time::Duration::ZERO)
        .await
        .unwrap();
    for command in sale.app.store.commands().take() {
        let Some(plan) = sale.app.store.plan_of(&command).await.unwrap() else {
            continue;
        };
        println!(
            "background: {} {} examined {} documents, {} keys",
            plan.command, plan.collection, plan.docs_examined, plan.keys_examined
        );
        assert!(
            !plan.collection_scan,
            "background: {} {} scans: {}",
            plan.command, plan.collection, plan.winning_plan
        );
    }

    // A retry answered from the stored outcome reads the key record alone.
    let (_, explained) = sale
        .run_examined(
            "retried hold",
            HOLD,
            hold_input(&sale, "B1", "examined-hold"),
        )
        .await;
    assert!(explained >= 1, "{explained}");
}
