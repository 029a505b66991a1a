//! Hold expiry, judged by the database's clock (`$$NOW`): the tests poll until the database
//! agrees a hold has expired (within a generous deadline) instead of sleeping a guessed time,
//! so a busy machine only makes them slower, never wrong.

use std::time::Duration;

use boxoffice::domain::seat::SeatState;
use boxoffice::holds::rules::HoldPolicy;
use serde_json::json;

use crate::sale::{sale_with, HOLD};

#[tokio::test]
async fn seats_of_an_expired_hold_go_to_the_next_hold_at_once() {
    let policy = HoldPolicy {
        max_seats: 6,
        ttl: Duration::from_secs(3),
        extension: Duration::from_secs(300),
    };
    let sale = sale_with(policy).await;
    let first = sale.hold(&sale.maoyan, &["A1", "A2"]).await;
    let expires_at = expires_at(&first);
    let early = sale.hold(&sale.wechat, &["A2", "A3"]).await;
    if chrono::Utc::now() < expires_at {
        assert_eq!(early.error_code(), "SEAT_UNAVAILABLE");
    }
    // No sweeper runs in the tests' gateways: the next hold itself expires the lapsed one.
    // Asked again and again, it is refused while the hold lives, and gets the seats once the
    // database's clock has passed the expiry.
    let late = until_held(&sale, &sale.wechat, &["A2", "A3"]).await;
    assert!(
        chrono::Utc::now() >= expires_at,
        "taken before the first hold expired"
    );
    assert_eq!(late.data()["holdSeats"]["channel"], "wechat");
    // The expired hold is gone whole: A1 is free again, A2 and A3 are wechat's.
    assert_eq!(
        sale.states(&["A1", "A2", "A3"]).await,
        [SeatState::Available, SeatState::Held, SeatState::Held]
    );
    let inventory = sale.inventory().await;
    assert_eq!(inventory.holds.len(), 1);
    assert_eq!(inventory.holds[0].channel, "wechat");
}

/// A hold's `expiresAt`.
fn expires_at(hold: &crate::helpers::GqlResponse) -> chrono::DateTime<chrono::Utc> {
    hold.data()["holdSeats"]["expiresAt"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// Holds `seats` as the channel with `key` until it succeeds (every refusal must be
/// SEAT_UNAVAILABLE), within a deadline far beyond any hold lifetime here.
async fn until_held(
    sale: &crate::sale::Sale,
    key: &str,
    seats: &[&str],
) -> crate::helpers::GqlResponse {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let attempt = sale.hold(key, seats).await;
        if attempt.0.get("errors").is_none() {
            return attempt;
        }
        assert_eq!(attempt.error_code(), "SEAT_UNAVAILABLE");
        assert!(tokio::time::Instant::now() < deadline, "never held");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn the_sweeper_returns_expired_holds_to_sale_and_leaves_live_ones() {
    let short = HoldPolicy {
        max_seats: 6,
        ttl: Duration::from_millis(500),
        extension: Duration::from_secs(300),
    };
    let sale = sale_with(short).await;
    // A live hold (the default ten minutes, through a second gateway), then a short one.
    let long = sale
        .app
        .another_gateway_with(HoldPolicy {
            max_seats: 6,
            ..sale_policy()
        })
        .await;
    let input = json!({ "input": { "showtimeId": sale.showtime, "seats": ["B1"] } });
    long.graphql_as(&sale.wechat, HOLD, input).await.data();
    sale.hold(&sale.maoyan, &["A1", "A2"]).await.data();
    // Sweeps release nothing until the database's clock passes the short hold's expiry, then
    // exactly that hold.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    let endings = boxoffice::assembly::hold_endings();
    loop {
        // A gateway that owns other showtimes (`gateways::Peers`) leaves this one's holds to
        // its owner's sweeper.
        let elsewhere = |showtime| showtime != sale.showtime_id;
        let theirs =
            boxoffice::holds::sweep_expired_holds_of(&sale.app.store, &endings, elsewhere).await;
        assert_eq!(theirs.unwrap(), 0);
        let released = boxoffice::holds::sweep_expired_holds(&sale.app.store, &endings)
            .await
            .unwrap();
        if released > 0 {
            assert_eq!(released, 1);
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "never swept");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        sale.states(&["A1", "A2", "B1"]).await,
        [SeatState::Available, SeatState::Available, SeatState::Held]
    );
    assert_eq!(sale.inventory().await.holds.len(), 1);
    assert_eq!(
        boxoffice::holds::sweep_expired_holds(
            &sale.app.store,
            &boxoffice::assembly::hold_endings()
        )
        .await
        .unwrap(),
        0
    );
}

/// The default hold policy (holds of ten minutes).
fn sale_policy() -> HoldPolicy {
    boxoffice::config::BookingArgs::default().hold_policy()
}
