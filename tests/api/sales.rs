//! Sales figures: each movie's totals and each cinema's hourly buckets follow the orders,
//! through the sales projection, exactly once per order.

use std::sync::Arc;
use std::time::Duration;

use boxoffice::config::BookingArgs;
use boxoffice::domain::seat::SeatState;
use boxoffice::gateways;
use boxoffice::holds::rules::HoldPolicy;
use boxoffice::sales;
use serde_json::{json, Value};

use crate::orders::CANCEL;
use crate::sale::{sale, sale_with, Sale};

const MOVIE_SALES: &str = "query ($id: ID!) { showtime(id: $id) {
    movie { sales { ticketsSold orders revenue { amount } } } } }";

/// The tickets in all of a showtime's cinema's hourly buckets.
fn tickets_in_buckets(showtime: &Value) -> i64 {
    let buckets = showtime["cinema"]["hourlySales"]["edges"]
        .as_array()
        .unwrap();
    buckets
        .iter()
        .map(|b| b["node"]["sales"]["ticketsSold"].as_i64().unwrap())
        .sum()
}

/// The sales of the sale's movie, as the API shows them.
async fn movie_sales(sale: &Sale) -> Value {
    let read = sale
        .app
        .graphql(MOVIE_SALES, json!({ "id": sale.showtime }))
        .await;
    read.data()["showtime"]["movie"]["sales"].clone()
}

async fn project(sale: &Sale) -> usize {
    sales::project_sales(&sale.app.store).await.unwrap()
}

#[tokio::test]
async fn movie_totals_and_cinema_hourly_buckets_follow_confirms_and_cancels() {
    let sale = sale().await;
    let first = sale.hold_id(&sale.maoyan, &["A1", "A2"]).await;
    let first = sale.confirm(&sale.maoyan, &first).await.data()["confirmHold"]["id"].clone();
    let second = sale.hold_id(&sale.wechat, &["B1"]).await;
    sale.confirm(&sale.wechat, &second).await.data();
    assert_eq!(project(&sale).await, 2);
    let stats = "query ($id: ID!) { showtime(id: $id) {
        movie { sales { ticketsSold orders revenue { amount } } }
        cinema { hourlySales { edges { node { hour sales { ticketsSold orders revenue { amount } } } } } } } }";
    let read = || sale.app.graphql(stats, json!({ "id": sale.showtime }));
    let after_sales = read().await;
    let showtime = &after_sales.data()["showtime"];
    let expected =
        json!({ "ticketsSold": 3, "orders": 2, "revenue": { "amount": 4000 * 2 + 3800 } });
    assert_eq!(showtime["movie"]["sales"], expected);
    assert_eq!(
        tickets_in_buckets(showtime),
        3,
        "every ticket is in an hourly bucket"
    );
    let hour: chrono::DateTime<chrono::Utc> = showtime["cinema"]["hourlySales"]["edges"][0]["node"]
        ["hour"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(hour.timestamp() % 3600, 0, "buckets start on the hour");

    sale.app
        .graphql_as(&sale.maoyan, CANCEL, json!({ "id": first }))
        .await
        .data();
    assert_eq!(project(&sale).await, 1);
    let after_cancel = read().await;
    let showtime = &after_cancel.data()["showtime"];
    assert_eq!(
        showtime["movie"]["sales"],
        json!({ "ticketsSold": 1, "orders": 1, "revenue": { "amount": 3800 } })
    );
    assert_eq!(tickets_in_buckets(showtime), 1);
    assert_eq!(project(&sale).await, 0, "each order is counted once");
    assert_eq!(
        read().await.data()["showtime"],
        after_cancel.data()["showtime"]
    );
}

#[tokio::test]
async fn an_order_cancelled_before_it_was_counted_is_never_counted() {
    let sale = sale().await;
    let hold = sale.hold_id(&sale.maoyan, &["A1", "A2"]).await;
    let order = sale.confirm(&sale.maoyan, &hold).await.data()["confirmHold"]["id"].clone();
    sale.app
        .graphql_as(&sale.maoyan, CANCEL, json!({ "id": order }))
        .await
        .data();
    assert_eq!(project(&sale).await, 0, "nothing to move");
    assert_eq!(
        movie_sales(&sale).await,
        json!({ "ticketsSold": 0, "orders": 0, "revenue": { "amount": 0 } })
    );
}

#[tokio::test]
async fn concurrent_projections_count_every_order_exactly_once() {
    let sale = Arc::new(sale().await);
    for (i, seat) in ["A1", "A2", "A3", "A4", "A5", "A6", "B1", "B2"]
        .iter()
        .enumerate()
    {
        let key = sale.key_of_client(i);
        let hold = sale.hold_id(key, &[seat]).await;
        sale.confirm(key, &hold).await.data();
    }
    // Eight projectors race (as eight gateway instances would): each order moves the figures
    // once, whichever wins.
    let projectors: Vec<_> = (0..8)
        .map(|_| {
            let sale = Arc::clone(&sale);
            tokio::spawn(async move { sales::project_sales(&sale.app.store).await })
        })
        .collect();
    for projector in projectors {
        // A projector that keeps losing write conflicts gives up and changes nothing; the
        // next pass catches up.
        let _ = projector.await.unwrap();
    }
    project(&sale).await;
    assert_eq!(
        movie_sales(&sale).await,
        json!({ "ticketsSold": 8, "orders": 8, "revenue": { "amount": 4 * 4000 + 4 * 3800 } })
    );
}

#[tokio::test]
async fn the_background_tasks_sweep_expired_holds_and_project_sales_on_their_own() {
    let policy = HoldPolicy {
        ttl: Duration::from_secs(1),
        ..BookingArgs::default().hold_policy()
    };
    let sale = sale_with(policy).await;
    sale.hold(&sale.maoyan, &["A1"]).await.data();
    let hold = sale.hold_id(&sale.wechat, &["B1"]).await;
    sale.confirm(&sale.wechat, &hold).await.data();
    let intervals = boxoffice::background::Intervals {
        sweep: Duration::from_millis(50),
        sales: Duration::from_millis(50),
        offer_policy: policy,
    };
    let membership = gateways::Membership::new(Default::default(), Duration::from_millis(50), None);
    let shutdown = boxoffice::shutdown::Shutdown::default();
    let webhooks = boxoffice::webhooks::Deliverer::new(
        sale.app.store.clone(),
        boxoffice::webhooks::Sender::new(true),
        std::sync::Arc::new(crate::helpers::test_ticket_secret()),
    );
    let background = tokio::spawn(boxoffice::background::run(
        sale.app.store.clone(),
        intervals,
        membership,
        webhooks,
        shutdown.clone(),
    ));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let swept = sale.states(&["A1"]).await == [SeatState::Available];
        let projected = movie_sales(&sale).await["ticketsSold"] == 1;
        if swept && projected {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "swept {swept}, projected {projected}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Stopped between passes, the loop ends by itself and deletes its gateway record.
    shutdown.trigger();
    tokio::time::timeout(Duration::from_secs(10), background)
        .await
        .expect("the background loop stops")
        .unwrap();
    assert_eq!(sale.app.store.gateways().await.unwrap(), []);
}

/// A cinema's hourly figures are read through their index (`cinema_newest`): the find
/// examines the cinema's buckets it returns and scans nothing.
#[tokio::test]
async fn a_cinemas_hourly_figures_are_read_through_an_index() {
    let sale = sale().await;
    let hold = sale.hold_id(&sale.maoyan, &["A1"]).await;
    sale.confirm(&sale.maoyan, &hold).await.data();
    assert_eq!(project(&sale).await, 1);
    let hourly = "query ($id: ID!) { showtime(id: $id) {
        cinema { hourlySales { edges { node { hour } } } } } }";
    sale.app.store.commands().start();
    let read = sale
        .app
        .graphql(hourly, json!({ "id": sale.showtime }))
        .await;
    let sent = sale.app.store.commands().take();
    let buckets = read.data()["showtime"]["cinema"]["hourlySales"]["edges"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(buckets, 1);
    let find = sent
        .iter()
        .find(|command| command.collection.as_deref() == Some("cinema_sales_hourly"))
        .expect("the hourly figures were read");
    let plan = sale.app.store.plan_of(find).await.unwrap().unwrap();
    assert!(
        !plan.collection_scan && plan.docs_examined == buckets as i64,
        "hourly figures: {} documents examined, plan {}",
        plan.docs_examined,
        plan.winning_plan
    );
}
