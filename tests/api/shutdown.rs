//! Graceful stops of real gateway processes (`boxoffice serve`, built with `test-hooks`): a
//! SIGTERM while a `confirmHold` is in flight, made slow half way by the test-only delay point
//! before the seats are sold (`BOXOFFICE_TEST_DELAY_BEFORE_SELL_MS`). With a long enough grace
//! the confirmation finishes and is answered; with a short one the process exits without it,
//! and the order is whole after settlement either way. After the signal the gateway refuses
//! new connections and closes its WebSocket subscribers with 1001.

use std::time::{Duration, Instant};

use boxoffice::domain::seat::SeatState;
use boxoffice::orders;
use boxoffice::store::DelayPoint;
use serde_json::{json, Value};

use crate::helpers::mongodb_uri;
use crate::live_client::LiveClient;
use crate::processes::GatewayProcess;
use crate::sale::{sale, Sale};

const CONFIRM: &str = "mutation ($hold: ID!) { confirmHold(input: { holdId: $hold,
    customer: { name: \"张三\", contact: \"13800000000\" } }) { id status seats { label } } }";

/// How long a confirmation stops before selling the seats, when the grace lets it finish.
const DELAY_MS: u64 = 5000;
/// The same when the grace is shorter: far longer than the test could ever take to signal.
const LONG_DELAY_MS: u64 = 60_000;
/// How long the tests wait for anything that should happen (never reached when all is well).
const PATIENCE: Duration = Duration::from_secs(60);

/// A gateway process over the sale's database whose confirmations stop `delay_ms` before
/// selling, stopping with `grace_ms` of grace.
fn slow_gateway(sale: &Sale, grace_ms: u64, delay_ms: u64) -> GatewayProcess {
    let grace = grace_ms.to_string();
    let delay = delay_ms.to_string();
    GatewayProcess::start_with_env(
        &mongodb_uri(),
        sale.app.store.database_name(),
        &["--shutdown-grace-ms", &grace],
        &[(DelayPoint::ConfirmBeforeSell.variable(), &delay)],
    )
}

/// Confirms `hold` through `gateway` on a task of its own: the HTTP status and body, or the
/// transport error's text.
fn confirm_through(
    gateway: &GatewayProcess,
    key: &str,
    hold: &Value,
) -> tokio::task::JoinHandle<Result<(u16, Value), String>> {
    let request = reqwest::Client::new()
        .post(gateway.url())
        .bearer_auth(key)
        .json(&json!({ "query": CONFIRM, "variables": { "hold": hold } }));
    tokio::spawn(async move {
        let response = request.send().await.map_err(|error| error.to_string())?;
        let status = response.status().as_u16();
        let body = response.json().await.map_err(|error| error.to_string())?;
        Ok((status, body))
    })
}

/// The orders left PENDING or CANCELLING, however young.
async fn unsettled(sale: &Sale) -> Vec<boxoffice::store::documents::OrderDoc> {
    sale.app
        .store
        .unsettled_orders(chrono::DateTime::<chrono::Utc>::MAX_UTC, 10)
        .await
        .unwrap()
}

/// Waits until a PENDING order is in the database: the confirmation is half way, stopped at
/// the delay point.
async fn wait_for_pending_order(sale: &Sale) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if !unsettled(sale).await.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "no PENDING order appeared");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Waits until `gateway` refuses new TCP connections while it still runs (it is draining).
async fn wait_until_refusing(gateway: &mut GatewayProcess) {
    use std::io::ErrorKind;
    let deadline = Instant::now() + PATIENCE;
    loop {
        match tokio::net::TcpStream::connect(gateway.address).await {
            Err(error) => {
                // Reset: the connection reached the listener's backlog as it closed.
                let refused = [ErrorKind::ConnectionRefused, ErrorKind::ConnectionReset];
                assert!(refused.contains(&error.kind()), "{error}");
                assert!(gateway.running(), "refused only because it is draining");
                return;
            }
            Ok(_) => {
                assert!(Instant::now() < deadline, "still accepting connections");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

#[tokio::test]
async fn a_sigterm_lets_a_confirm_in_flight_finish_and_the_process_exits_zero() {
    let sale = sale().await;
    let hold = sale.hold_id(&sale.maoyan, &["A3", "A4"]).await;
    let mut gateway = slow_gateway(&sale, 20_000, DELAY_MS);
    let mut subscriber = LiveClient::connect_url(&gateway.url(), None).await;
    subscriber.watch_seat_map("1", &sale.showtime).await;
    let confirm = confirm_through(&gateway, &sale.maoyan, &hold);
    wait_for_pending_order(&sale).await;

    let signalled = Instant::now();
    gateway.terminate();
    assert_eq!(subscriber.closed().await, (1001, "going away".into()));
    wait_until_refusing(&mut gateway).await;
    let (status, body) = confirm
        .await
        .unwrap()
        .expect("an answer, not a dropped connection");
    let answered = signalled.elapsed();
    assert_eq!(status, 200, "{body}");
    let order = &body["data"]["confirmHold"];
    assert_eq!(order["status"], "CONFIRMED", "{body}");
    let exit = gateway
        .wait_exit(PATIENCE)
        .await
        .expect("the gateway exits");
    let exited = signalled.elapsed();
    println!("SIGTERM during a confirm: answered {answered:?}, exited {exited:?} after the signal, {exit}");
    assert_eq!(exit.code(), Some(0));
    assert!(
        exited < Duration::from_secs(20),
        "exited within the grace: {exited:?}"
    );

    // The order is whole: CONFIRMED, its seats SOLD to it, nothing left to settle.
    let confirmed = sale.check_orders_agree_with_seats().await;
    assert_eq!(confirmed.len(), 1);
    assert_eq!(
        confirmed[order["id"].as_str().unwrap()]["status"],
        "CONFIRMED"
    );
    assert_eq!(
        sale.states(&["A3", "A4"]).await,
        [SeatState::Sold, SeatState::Sold]
    );
    let settled = orders::settle_orders(&sale.app.store, Duration::ZERO)
        .await
        .unwrap();
    assert_eq!(settled, 0, "no order was left between two writes");
    // The process deleted its gateway record as it stopped.
    assert_eq!(sale.app.store.gateways().await.unwrap(), []);
}

#[tokio::test]
async fn a_grace_shorter_than_the_confirm_drops_it_and_the_order_is_whole_after_settlement() {
    let sale = sale().await;
    let hold = sale.hold_id(&sale.maoyan, &["B1", "B2"]).await;
    let mut gateway = slow_gateway(&sale, 200, LONG_DELAY_MS);
    let confirm = confirm_through(&gateway, &sale.maoyan, &hold);
    wait_for_pending_order(&sale).await;

    let signalled = Instant::now();
    gateway.terminate();
    let exit = gateway
        .wait_exit(PATIENCE)
        .await
        .expect("the gateway exits");
    let exited = signalled.elapsed();
    let answer = confirm.await.unwrap();
    println!("SIGTERM with a 200 ms grace during a {LONG_DELAY_MS} ms confirm: exited {exited:?} after the signal, {exit}; the client got {answer:?}");
    assert_eq!(exit.code(), Some(0));
    assert!(
        answer.is_err(),
        "the dropped request got no answer: {answer:?}"
    );

    // The process did not wait for the confirmation: no seat was sold, the hold stands, the
    // PENDING order is not shown.
    assert_eq!(
        sale.states(&["B1", "B2"]).await,
        [SeatState::Held, SeatState::Held]
    );
    assert!(sale.check_orders_agree_with_seats().await.is_empty());
    // Settled: the order stays PENDING (never shown) while its hold could still be confirmed;
    // once the hold is gone the reconciler deletes it. A retry could have completed it instead.
    sale.app
        .graphql_as(
            &sale.maoyan,
            "mutation ($id: ID!) { releaseHold(holdId: $id) }",
            json!({ "id": hold }),
        )
        .await
        .data();
    orders::settle_orders(&sale.app.store, Duration::ZERO)
        .await
        .unwrap();
    let unsettled = unsettled(&sale).await;
    assert!(unsettled.is_empty(), "settled: {unsettled:?}");
    assert!(sale.check_orders_agree_with_seats().await.is_empty());
    assert_eq!(
        sale.states(&["B1", "B2"]).await,
        [SeatState::Available, SeatState::Available]
    );
}
