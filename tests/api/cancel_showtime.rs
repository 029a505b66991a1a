//! `cancelShowtime`: no new holds or sales, every live hold released, every order cancelled
//! (reason SHOWTIME_CANCELLED) and its seats freed, exactly once per order, even when the
//! gateway dies half way; the channels see it in their orders.

use std::sync::Arc;
use std::time::Duration;

use boxoffice::domain::seat::SeatState;
use boxoffice::orders;
use boxoffice::sales;
use boxoffice::store::documents::ShowtimeStatus;
use boxoffice::store::{CrashPoint, DelayPoint};
use serde_json::{json, Value};

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::{mongodb_uri, nodes, GqlResponse};
use crate::live_client::LiveClient;
use crate::orders::CANCEL;
use crate::processes::GatewayProcess;
use crate::sale::{sale, Sale};

pub const CANCEL_SHOWTIME: &str = "mutation ($input: CancelShowtimeInput!) {
    cancelShowtime(input: $input) { ordersCancelled holdsReleased
    showtime { id status seatMap { counts { available held sold blocked } } } } }";
const ORDERS: &str = "query { orders(first: 50) { edges { node {
    id status cancelReason cancelledAt seats { label } } } } }";
const SHOWTIME: &str = "query ($id: ID!) { showtime(id: $id) { status
    seatMap { counts { available held sold blocked } rows { states } } } }";
const ORDER_CHANGED: &str =
    "subscription { orderChanged { status order { id status cancelReason } } }";
const MOVIE_SALES: &str = "query ($id: ID!) { showtime(id: $id) {
    movie { sales { ticketsSold orders revenue { amount } } } } }";

impl Sale {
    async fn cancel_showtime(&self, key: &str, idempotency_key: Option<&str>) -> GqlResponse {
        let input = json!({ "showtimeId": self.showtime, "idempotencyKey": idempotency_key });
        self.app
            .graphql_as(key, CANCEL_SHOWTIME, json!({ "input": input }))
            .await
    }

    /// A confirmed order of `seats` for the channel with key `key`; its id.
    pub async fn order(&self, key: &str, seats: &[&str]) -> Value {
        let hold = self.hold_id(key, seats).await;
        self.confirm(key, &hold).await.data()["confirmHold"]["id"].clone()
    }

    async fn orders_of(&self, key: &str) -> Vec<Value> {
        nodes(&self.app.graphql_as(key, ORDERS, json!({})).await.data()["orders"])
    }

    async fn status(&self) -> ShowtimeStatus {
        let showtimes = self
            .app
            .store
            .showtimes_by_ids(&[self.showtime_id])
            .await
            .unwrap();
        showtimes[0].status
    }

    async fn movie_sales(&self) -> Value {
        let read = self
            .app
            .graphql(MOVIE_SALES, json!({ "id": self.showtime }))
            .await;
        read.data()["showtime"]["movie"]["sales"].clone()
    }

    /// After a cancellation: no hold, no seat HELD or SOLD, counts right, the showtime
    /// CANCELLED, and every order of both channels CANCELLED for the showtime.
    async fn check_cancelled(&self) -> Vec<Value> {
        let seats = self.check_invariants().await;
        for (label, state) in &seats {
            assert!(
                matches!(state, SeatState::Available | SeatState::Blocked),
                "{label} is {state:?}"
            );
        }
        let inventory = self.inventory().await;
        assert!(inventory.holds.is_empty() && inventory.cancelled);
        assert_eq!(self.status().await, ShowtimeStatus::Cancelled);
        let mut orders = self.orders_of(&self.maoyan).await;
        orders.extend(self.orders_of(&self.wechat).await);
        for order in &orders {
            assert_eq!(order["status"], "CANCELLED", "{order}");
            assert_eq!(order["cancelReason"], "SHOWTIME_CANCELLED", "{order}");
        }
        orders
    }
}

#[tokio::test]
async fn a_cancelled_showtime_releases_its_holds_cancels_its_orders_and_sells_no_more() {
    let sale = sale().await;
    let chain = sale.chain().await;
    let mut maoyan = LiveClient::connect(&sale.app, Some(&sale.maoyan)).await;
    maoyan.subscribe("orders", ORDER_CHANGED, json!({})).await;
    maoyan.watch_seat_map("map", &sale.showtime).await;
    let mine = sale.order(&sale.maoyan, &["A1", "A2"]).await;
    let theirs = sale.order(&sale.wechat, &["B1"]).await;
    let live_hold = sale.hold_id(&sale.maoyan, &["C1", "C2"]).await;
    sale.hold(&sale.wechat, &["A5"]).await.data();
    sale.block(&chain, &["A6"], json!({})).await.data();
    assert_eq!(sales::project_sales(&sale.app.store).await.unwrap(), 2);
    assert_eq!(sale.movie_sales().await["ticketsSold"], 3);

    let cancelled = sale.cancel_showtime(&chain, None).await;
    let answer = &cancelled.data()["cancelShowtime"];
    assert_eq!(answer["ordersCancelled"], 2);
    assert_eq!(answer["holdsReleased"], 2);
    assert_eq!(answer["showtime"]["status"], "CANCELLED");
    assert_eq!(
        answer["showtime"]["seatMap"]["counts"],
        json!({ "available": 15, "held": 0, "sold": 0, "blocked": 1 })
    );
    let orders = sale.check_cancelled().await;
    assert_eq!(orders.len(), 2);
    assert!(orders.iter().all(|order| order["cancelledAt"].is_string()));

    // The channel's live subscription sees its order cancelled, for the showtime.
    loop {
        let event = maoyan.event_of("orders").await["orderChanged"].clone();
        if event["status"] == "CANCELLED" {
            assert_eq!(event["order"]["id"], mine);
            assert_eq!(event["order"]["cancelReason"], "SHOWTIME_CANCELLED");
            break;
        }
    }
    // It stays listed, every seat free, none for sale.
    let listed = sale
        .app
        .graphql(SHOWTIME, json!({ "id": sale.showtime }))
        .await;
    assert_eq!(listed.data()["showtime"]["status"], "CANCELLED");
    assert_eq!(
        listed.data()["showtime"]["seatMap"]["rows"][0]["states"],
        "aaaaab"
    );
    let refused = sale.hold(&sale.maoyan, &["A1"]).await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert!(
        refused.error_message().contains("was cancelled"),
        "{refused:?}"
    );
    let best = json!({ "showtimeId": sale.showtime, "best": { "count": 2 } });
    let refused = sale
        .app
        .graphql_as(&sale.wechat, crate::sale::HOLD, json!({ "input": best }))
        .await;
    assert!(
        refused.error_message().contains("was cancelled"),
        "{refused:?}"
    );
    let refused = sale.confirm(&sale.maoyan, &live_hold).await;
    assert_eq!(refused.error_code(), "HOLD_EXPIRED");
    assert!(
        refused.error_message().contains("was cancelled"),
        "{refused:?}"
    );
    let refused = sale
        .app
        .graphql_as(&sale.wechat, CANCEL, json!({ "id": theirs }))
        .await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert!(refused
        .error_message()
        .contains("its showtime was cancelled"));
    let refused = sale.block(&chain, &["A1"], json!({})).await;
    assert!(
        refused.error_message().contains("was cancelled"),
        "{refused:?}"
    );

    // The sales figures are reversed, once.
    assert_eq!(sales::project_sales(&sale.app.store).await.unwrap(), 2);
    assert_eq!(sales::project_sales(&sale.app.store).await.unwrap(), 0);
    assert_eq!(
        sale.movie_sales().await,
        json!({ "ticketsSold": 0, "orders": 0, "revenue": { "amount": 0 } })
    );
    let audit = sale.audit().await;
    let cancel = audit
        .iter()
        .find(|entry| entry["operation"] == "cancelShowtime")
        .unwrap();
    assert_eq!(cancel["operator"], "wanda");
    assert_eq!(cancel["subject"], sale.showtime.as_str());
    assert!(cancel["after"].as_str().unwrap().contains("CANCELLED"));

    // Another request cannot cancel it again.
    let again = sale.cancel_showtime(&chain, None).await;
    assert_eq!(again.error_code(), "BAD_USER_INPUT");
    assert!(again.error_message().contains("was cancelled already"));
}

#[tokio::test]
async fn bad_requests_and_callers_out_of_scope_change_nothing() {
    let sale = sale().await;
    let chain = sale.chain().await;
    let order = sale.order(&sale.maoyan, &["A1"]).await;
    sale.hold(&sale.wechat, &["B1"]).await.data();
    let version = sale.inventory().await.version;

    let other = sale.other_chain().await;
    let refused = sale.cancel_showtime(&other, None).await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    assert!(refused.error_message().contains("may not write cinema"));
    let refused = sale.cancel_showtime(&sale.maoyan, None).await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    let input = json!({ "showtimeId": sale.showtime });
    let refused = sale
        .app
        .graphql(CANCEL_SHOWTIME, json!({ "input": input }))
        .await;
    assert_eq!(refused.error_code(), "UNAUTHENTICATED");
    for (id, code) in [
        (global_id("Cinema", [1; 12]), "BAD_USER_INPUT"),
        ("nonsense".to_owned(), "BAD_USER_INPUT"),
        (global_id("Showtime", [7; 12]), "NOT_FOUND"),
    ] {
        let input = json!({ "showtimeId": id });
        let refused = sale
            .app
            .graphql_as(&chain, CANCEL_SHOWTIME, json!({ "input": input }))
            .await;
        assert_eq!(refused.error_code(), code, "{id}");
    }
    let refused = sale.cancel_showtime(&chain, Some("")).await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");

    assert_eq!(sale.status().await, ShowtimeStatus::Scheduled);
    let inventory = sale.inventory().await;
    assert_eq!((inventory.version, inventory.cancelled), (version, false));
    assert_eq!(inventory.holds.len(), 1);
    assert_eq!(sale.orders_of(&sale.maoyan).await[0]["id"], order);
    assert_eq!(sale.orders_of(&sale.maoyan).await[0]["status"], "CONFIRMED");
    assert!(sale.audit().await.is_empty());

    // A showtime that has ended has nothing to cancel.
    let mut catalogue = Catalogue::default();
    let cinema = catalogue.cinema("老影城", "上海", 31.2, 121.4);
    let hall = catalogue.hall(&cinema, "2号厅", &["SSSS"]);
    let movie = catalogue.movie("旧片", &["剧情"]);
    let past = catalogue.showtime(&cinema, &hall, &movie, -3, &[("maoyan", 3000)]);
    catalogue.insert(&sale.app).await;
    let platform = sale.app.operator_key("platform", None).await;
    let input = json!({ "showtimeId": global_id("Showtime", past.id) });
    let refused = sale
        .app
        .graphql_as(&platform, CANCEL_SHOWTIME, json!({ "input": input }))
        .await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert!(refused.error_message().contains("nothing to cancel"));
}

#[tokio::test]
async fn a_retry_with_the_same_key_gets_the_first_answer_and_cancels_nothing_more() {
    let sale = sale().await;
    let chain = sale.chain().await;
    sale.order(&sale.maoyan, &["A1"]).await;
    sale.hold(&sale.wechat, &["B1"]).await.data();
    let first = sale.cancel_showtime(&chain, Some("cancel-1")).await;
    let again = sale.cancel_showtime(&chain, Some("cancel-1")).await;
    assert_eq!(first.data(), again.data());
    assert_eq!(first.data()["cancelShowtime"]["ordersCancelled"], 1);
    assert_eq!(first.data()["cancelShowtime"]["holdsReleased"], 1);
    let reused = sale
        .app
        .graphql_as(
            &chain,
            CANCEL_SHOWTIME,
            json!({ "input": { "showtimeId": global_id("Showtime", [7; 12]), "idempotencyKey": "cancel-1" } }),
        )
        .await;
    // The showtime is looked up before the key: an unknown one is NOT_FOUND whatever the key.
    assert_eq!(reused.error_code(), "NOT_FOUND");
    let platform = sale.app.operator_key("platform", None).await;
    let theirs = sale.cancel_showtime(&platform, Some("cancel-1")).await;
    assert_eq!(
        theirs.error_code(),
        "BAD_USER_INPUT",
        "another operator's request"
    );
    sale.check_cancelled().await;
    let cancels = sale
        .audit()
        .await
        .iter()
        .filter(|entry| entry["operation"] == "cancelShowtime")
        .count();
    assert_eq!(cancels, 1);
}

/// A gateway dies after the first of several orders is cancelled; the background pass of
/// another gateway finishes the cancellation: every order cancelled once (its `cancelledAt`
/// written once, the sales reversed once), every seat free, no hold left, the counts right.
/// The keyed retry then answers with the whole cancellation.
#[tokio::test]
async fn a_cancellation_interrupted_between_orders_is_finished_once_by_the_background_pass() {
    let sale = sale().await;
    let chain = sale.chain().await;
    for (key, seats) in [
        (&sale.maoyan, &["A1", "A2"][..]),
        (&sale.wechat, &["A3"][..]),
        (&sale.maoyan, &["B1", "B2"][..]),
        (&sale.wechat, &["C1", "C2"][..]),
    ] {
        sale.order(key, seats).await;
    }
    sale.hold(&sale.maoyan, &["A5", "A6"]).await.data();
    sale.hold(&sale.wechat, &["B5"]).await.data();
    assert_eq!(sales::project_sales(&sale.app.store).await.unwrap(), 4);

    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::ShowtimeCancelBetweenOrders);
    let crashed = sale.cancel_showtime(&chain, Some("cancel-crash")).await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    assert_eq!(sale.status().await, ShowtimeStatus::Cancelling);
    let mut orders = sale.orders_of(&sale.maoyan).await;
    orders.extend(sale.orders_of(&sale.wechat).await);
    let done: Vec<&Value> = orders
        .iter()
        .filter(|order| order["status"] == "CANCELLED")
        .collect();
    assert_eq!(done.len(), 1, "{orders:#?}");
    let (first_id, first_at) = (done[0]["id"].clone(), done[0]["cancelledAt"].clone());
    // No hold may be placed meanwhile.
    let refused = sale.hold(&sale.wechat, &["A4"]).await;
    assert!(
        refused.error_message().contains("was cancelled"),
        "{refused:?}"
    );

    // Young cancellations are left to their request; the grace is what keeps the pass off.
    let other = sale.app.another_gateway().await;
    assert_eq!(resume(&other.store, orders::CANCEL_GRACE).await, 0);
    assert_eq!(resume(&other.store, Duration::ZERO).await, 1);
    assert_eq!(
        resume(&other.store, Duration::ZERO).await,
        0,
        "nothing left CANCELLING"
    );
    let orders = sale.check_cancelled().await;
    assert_eq!(orders.len(), 4);
    let first = orders.iter().find(|order| order["id"] == first_id).unwrap();
    assert_eq!(first["cancelledAt"], first_at, "cancelled once");

    let retried = sale.cancel_showtime(&chain, Some("cancel-crash")).await;
    let answer = &retried.data()["cancelShowtime"];
    assert_eq!(
        (
            answer["ordersCancelled"].as_i64(),
            answer["holdsReleased"].as_i64()
        ),
        (Some(4), Some(2))
    );
    assert_eq!(answer["showtime"]["status"], "CANCELLED");
    // Counted when confirmed, reversed once when cancelled.
    assert_eq!(sales::project_sales(&sale.app.store).await.unwrap(), 4);
    assert_eq!(sales::project_sales(&sale.app.store).await.unwrap(), 0);
    assert_eq!(sale.movie_sales().await["ticketsSold"], 0);
    assert_eq!(sale.movie_sales().await["orders"], 0);
}

/// A gateway dies right after the first write (the showtime CANCELLING, the inventory
/// marked): the keyed retry takes the key over and finishes it.
#[tokio::test]
async fn a_cancellation_interrupted_before_its_releases_is_finished_by_the_keyed_retry() {
    let sale = sale().await;
    let chain = sale.chain().await;
    sale.order(&sale.maoyan, &["A1"]).await;
    let hold = sale.hold_id(&sale.wechat, &["B1", "B2"]).await;
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::ShowtimeCancelAfterMark);
    let crashed = sale.cancel_showtime(&chain, Some("k")).await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    let inventory = sale.inventory().await;
    assert!(inventory.cancelled);
    assert_eq!(inventory.holds.len(), 1, "not released yet");
    assert_eq!(sale.status().await, ShowtimeStatus::Cancelling);
    // The mark already stops a sale of the live hold.
    let refused = sale.confirm(&sale.wechat, &hold).await;
    assert_eq!(refused.error_code(), "HOLD_EXPIRED");
    assert!(
        refused.error_message().contains("was cancelled"),
        "{refused:?}"
    );
    assert_eq!(sale.inventory().await.holds.len(), 1, "still not released");

    let retried = sale.cancel_showtime(&chain, Some("k")).await;
    let answer = &retried.data()["cancelShowtime"];
    assert_eq!(answer["ordersCancelled"], 1);
    assert_eq!(answer["holdsReleased"], 1);
    sale.check_cancelled().await;
    let cancels = sale
        .audit()
        .await
        .iter()
        .filter(|entry| entry["operation"] == "cancelShowtime")
        .count();
    assert_eq!(cancels, 1, "the retry's record is the same entry");
}

/// A cancellation interrupted after its mark and finished by another request (not its key's
/// retry): one audit entry, the one of the request that began it.
#[tokio::test]
async fn a_cancellation_finished_by_another_request_is_recorded_once() {
    let sale = sale().await;
    let chain = sale.chain().await;
    sale.order(&sale.maoyan, &["A1"]).await;
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::ShowtimeCancelAfterMark);
    let crashed = sale.cancel_showtime(&chain, Some("first")).await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    assert_eq!(sale.status().await, ShowtimeStatus::Cancelling);

    let other = sale.cancel_showtime(&chain, Some("second")).await;
    assert_eq!(other.data()["cancelShowtime"]["ordersCancelled"], 1);
    sale.check_cancelled().await;
    let audit = sale.audit().await;
    let cancels: Vec<&Value> = audit
        .iter()
        .filter(|entry| entry["operation"] == "cancelShowtime")
        .collect();
    assert_eq!(cancels.len(), 1, "{audit:?}");
}

/// Channels hold and confirm (on two gateways) while the operator cancels: whatever happened
/// before the cancellation's mark is undone by it, whatever came after misses; in the end no
/// order is CONFIRMED, no seat HELD or SOLD, and every order was cancelled for the showtime.
#[tokio::test]
async fn holds_and_confirmations_racing_a_cancellation_are_undone_or_refused() {
    let sale = Arc::new(sale().await);
    let chain = sale.chain().await;
    let second = sale.app.another_gateway().await;
    let labels = [
        "A1", "A2", "A3", "A4", "A5", "A6", "B1", "B2", "B3", "B5", "B6", "B7",
    ];
    let mut tasks = Vec::new();
    for (i, label) in labels.into_iter().enumerate() {
        let sale = Arc::clone(&sale);
        let app = if i % 2 == 0 {
            sale.app.clone()
        } else {
            second.clone()
        };
        tasks.push(tokio::spawn(async move {
            let key = sale.key_of_client(i).to_owned();
            let input = json!({ "showtimeId": sale.showtime, "seats": [label] });
            let held = app
                .graphql_as(&key, crate::sale::HOLD, json!({ "input": input }))
                .await;
            if held.0["errors"].is_null() {
                let hold = held.data()["holdSeats"]["id"].clone();
                let confirmed = app
                    .graphql_as(&key, crate::orders::CONFIRM, json!({ "hold": hold }))
                    .await;
                if !confirmed.0["errors"].is_null() {
                    let code = confirmed.error_code().to_owned();
                    assert_eq!(code, "HOLD_EXPIRED", "{confirmed:?}");
                    assert!(confirmed.error_message().contains("was cancelled"));
                }
            } else {
                assert!(held.error_message().contains("was cancelled"), "{held:?}");
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    let cancelled = sale.cancel_showtime(&chain, None).await;
    cancelled.data();
    for task in tasks {
        task.await.unwrap();
    }
    // A confirmation may still be between its sale and its CONFIRMED mark when the
    // cancellation settles it; whatever is left is settled by the reconciler.
    orders::settle_orders(&sale.app.store, Duration::ZERO)
        .await
        .unwrap();
    sale.check_cancelled().await;
    assert!(sale.check_orders_agree_with_seats().await.is_empty());
}

/// A real gateway process is killed (SIGKILL) while it cancels, after its first order: the
/// retry with the same key, sent to another gateway, takes the key over once the dead
/// attempt's lease lapses and finishes the cancellation, each order once.
#[tokio::test]
async fn a_gateway_killed_mid_cancellation_leaves_it_to_the_keyed_retry() {
    let sale = sale().await;
    let chain = sale.chain().await;
    for (key, seats) in [
        (&sale.maoyan, &["A1"][..]),
        (&sale.wechat, &["A2", "A3"][..]),
        (&sale.maoyan, &["B1"][..]),
    ] {
        sale.order(key, seats).await;
    }
    sale.hold(&sale.wechat, &["C1", "C2"]).await.data();
    let mut process = GatewayProcess::start_with_env(
        &mongodb_uri(),
        sale.app.store.database_name(),
        &[],
        &[(DelayPoint::ShowtimeCancelBetweenOrders.variable(), "60000")],
    );
    let body = json!({
        "query": CANCEL_SHOWTIME,
        "variables": { "input": { "showtimeId": sale.showtime, "idempotencyKey": "kill" } },
    });
    let request = sale
        .app
        .client
        .post(process.url())
        .bearer_auth(&chain)
        .json(&body)
        .send();
    let request = tokio::spawn(request);
    // Until the process has cancelled its first order (and waits before the next).
    let mut cancelled = 0;
    for _ in 0..400 {
        let mut orders = sale.orders_of(&sale.maoyan).await;
        orders.extend(sale.orders_of(&sale.wechat).await);
        cancelled = orders
            .iter()
            .filter(|order| order["status"] == "CANCELLED")
            .count();
        if cancelled > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(cancelled, 1);
    process.kill();
    assert!(
        request.await.unwrap().is_err(),
        "the killed gateway never answered"
    );
    assert_eq!(sale.status().await, ShowtimeStatus::Cancelling);

    let retried = sale.cancel_showtime(&chain, Some("kill")).await;
    let answer = &retried.data()["cancelShowtime"];
    assert_eq!(
        (
            answer["ordersCancelled"].as_i64(),
            answer["holdsReleased"].as_i64()
        ),
        (Some(3), Some(1))
    );
    assert_eq!(sale.check_cancelled().await.len(), 3);
}

/// How long cancelling a showtime takes with many orders and holds (a figure, not a check):
/// `cargo test --test api -- --ignored cancellation_figures --nocapture`.
#[tokio::test]
#[ignore]
async fn cancellation_figures() {
    let rows = ["SSSSSSSSSSSSSSSSSSSS"; 10];
    let sale = crate::sale::sale_in_hall(
        boxoffice::config::BookingArgs::default().hold_policy(),
        &rows,
    )
    .await;
    let chain = sale.chain().await;
    let mut orders = 0;
    for row in ["A", "B", "C", "D", "E", "F", "G", "H"] {
        for pair in 0..10 {
            let seats = [
                format!("{row}{}", 2 * pair + 1),
                format!("{row}{}", 2 * pair + 2),
            ];
            let seats: Vec<&str> = seats.iter().map(String::as_str).collect();
            sale.order(sale.key_of_client(pair), &seats).await;
            orders += 1;
        }
    }
    for n in 1..=20 {
        sale.hold(sale.key_of_client(n), &[&format!("I{n}")])
            .await
            .data();
    }
    let started = std::time::Instant::now();
    let answer = sale.cancel_showtime(&chain, None).await;
    let took = started.elapsed();
    let answer = &answer.data()["cancelShowtime"];
    assert_eq!(answer["ordersCancelled"], orders);
    println!(
        "cancelShowtime: {orders} orders and {} holds in {:.0} ms",
        answer["holdsReleased"],
        took.as_secs_f64() * 1000.0
    );
    sale.check_cancelled().await;
}

/// One pass of the resumer of cancellations begun more than `grace` ago; how many it resumed.
async fn resume(store: &boxoffice::store::Store, grace: Duration) -> usize {
    let endings = boxoffice::assembly::hold_endings();
    (orders::resume_cancellations(store, &endings, grace).await).unwrap()
}
