//! Holding and releasing seats: all-or-nothing atomic holds, channel isolation, expiry, races.

use std::collections::HashSet;
use std::sync::Arc;

use boxoffice::domain::seat::SeatState;
use serde_json::{json, Value};

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::TestApp;
use crate::sale::{sale, HOLD};

const RELEASE: &str = "mutation ($id: ID!) { releaseHold(holdId: $id) }";

#[tokio::test]
async fn a_channel_holds_named_seats_at_its_price() {
    let sale = sale().await;
    let response = sale.hold(&sale.maoyan, &["B2", "B3"]).await;
    let hold = &response.data()["holdSeats"];
    assert_eq!(hold["channel"], "maoyan");
    assert_eq!(
        hold["seats"],
        json!([
            { "label": "B2", "kind": "STANDARD", "price": { "amount": 4000 } },
            { "label": "B3", "kind": "STANDARD", "price": { "amount": 4000 } },
        ])
    );
    assert_eq!(hold["total"], json!({ "amount": 8000, "currency": "CNY" }));
    let expires: chrono::DateTime<chrono::Utc> =
        hold["expiresAt"].as_str().unwrap().parse().unwrap();
    let ttl = (expires - chrono::Utc::now()).num_seconds();
    assert!((590..=600).contains(&ttl), "expires in {ttl} s");
    assert_eq!(
        sale.states(&["B2", "B3", "B1"]).await,
        [SeatState::Held, SeatState::Held, SeatState::Available]
    );
    assert_eq!(sale.inventory().await.counts.held, 2);
}

#[tokio::test]
async fn a_hold_is_all_or_nothing_and_names_the_seats_taken() {
    let sale = sale().await;
    sale.hold(&sale.maoyan, &["A3", "A4"]).await.data();
    let before = sale.inventory().await.counts;
    let response = sale.hold(&sale.wechat, &["A2", "A3", "A4", "A5"]).await;
    assert_eq!(response.error_code(), "SEAT_UNAVAILABLE");
    assert_eq!(
        response.errors()[0]["extensions"]["seats"],
        json!(["A3", "A4"])
    );
    assert_eq!(sale.inventory().await.counts, before, "nothing changed");
    assert_eq!(
        sale.states(&["A2", "A5"]).await,
        [SeatState::Available, SeatState::Available]
    );
}

#[tokio::test]
async fn bad_hold_requests_get_a_code_and_change_nothing() {
    let sale = sale().await;
    let before = sale.inventory().await;
    let input = |seats: Value| json!({ "input": { "showtimeId": sale.showtime, "seats": seats } });

    let anonymous = sale.app.graphql(HOLD, input(json!(["A1"]))).await;
    assert_eq!(anonymous.error_code(), "UNAUTHENTICATED");

    let mut catalogue = Catalogue::default();
    let outsider = catalogue.channel("outsider", "不卖这场的渠道");
    catalogue.insert(&sale.app).await;
    let forbidden = sale
        .app
        .graphql_as(outsider.as_str(), HOLD, input(json!(["A1"])))
        .await;
    assert_eq!(forbidden.error_code(), "FORBIDDEN");

    for (seats, says) in [
        (
            json!(["A1", "A2", "A3", "A4", "A5", "A6", "B1"]),
            "1 to 6 seats, not 7",
        ),
        (json!([]), "not 0"),
        (json!(["B4"]), "B4 is not a seat"),
        (json!(["Z1"]), "Z1 is not a seat"),
        (json!(["A1", "A1"]), "asked for twice"),
        (json!(["a1"]), "not a seat label"),
    ] {
        let response = sale.app.graphql_as(&sale.maoyan, HOLD, input(seats)).await;
        assert_eq!(response.error_code(), "BAD_USER_INPUT");
        assert!(
            response.error_message().contains(says),
            "{}",
            response.error_message()
        );
    }
    let neither = json!({ "input": { "showtimeId": sale.showtime } });
    let response = sale.app.graphql_as(&sale.maoyan, HOLD, neither).await;
    assert!(response
        .error_message()
        .contains("exactly one of `seats` and `best`"));

    let unknown = json!({ "input": { "showtimeId": global_id("Showtime", bson::oid::ObjectId::new()), "seats": ["A1"] } });
    let response = sale.app.graphql_as(&sale.maoyan, HOLD, unknown).await;
    assert_eq!(response.error_code(), "NOT_FOUND");

    let after = sale.inventory().await;
    assert_eq!(after.counts, before.counts);
    assert!(after.holds.is_empty());
}

#[tokio::test]
async fn a_started_showtime_takes_no_holds() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let key = catalogue.channel("maoyan", "猫眼电影");
    let cinema = catalogue.cinema("影城", "上海", 31.2, 121.4);
    let hall = catalogue.hall(&cinema, "1号厅", &["SSSS"]);
    let movie = catalogue.movie("电影", &["剧情"]);
    let showtime = catalogue.showtime(&cinema, &hall, &movie, -1, &[("maoyan", 4000)]);
    catalogue.insert(&app).await;
    let input =
        json!({ "input": { "showtimeId": global_id("Showtime", showtime.id), "seats": ["A1"] } });
    let response = app.graphql_as(key.as_str(), HOLD, input).await;
    assert_eq!(response.error_code(), "BAD_USER_INPUT");
    assert!(response.error_message().contains("has started"));
}

#[tokio::test]
async fn only_the_holding_channel_can_release_and_only_once() {
    let sale = sale().await;
    let response = sale.hold(&sale.maoyan, &["C1", "C2"]).await;
    let id = response.data()["holdSeats"]["id"].clone();

    let by_other = sale
        .app
        .graphql_as(&sale.wechat, RELEASE, json!({ "id": id }))
        .await;
    assert_eq!(by_other.error_code(), "NOT_FOUND");
    assert_eq!(
        sale.states(&["C1", "C2"]).await,
        [SeatState::Held, SeatState::Held]
    );

    let released = sale
        .app
        .graphql_as(&sale.maoyan, RELEASE, json!({ "id": id }))
        .await;
    assert_eq!(released.data()["releaseHold"], json!(["C1", "C2"]));
    assert_eq!(
        sale.states(&["C1", "C2"]).await,
        [SeatState::Available, SeatState::Available]
    );
    assert_eq!(sale.inventory().await.counts.held, 0);

    let again = sale
        .app
        .graphql_as(&sale.maoyan, RELEASE, json!({ "id": id }))
        .await;
    assert_eq!(again.error_code(), "NOT_FOUND");
    // Now the other channel can hold them.
    sale.hold(&sale.wechat, &["C1", "C2"]).await.data();
}

#[tokio::test]
async fn best_available_takes_central_adjacent_seats_without_orphans() {
    let sale = sale().await;
    let best = |count: i64| json!({ "input": { "showtimeId": sale.showtime, "best": { "count": count } } });
    let first = sale.app.graphql_as(&sale.maoyan, HOLD, best(3)).await;
    let labels: Vec<&str> = first.data()["holdSeats"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["label"].as_str().unwrap())
        .collect();
    // Row B is nearest the ideal row (60% back); its aisle splits it into halves of 3, and
    // taking a whole half leaves no single seat. The tie between halves goes to the left one.
    // Row A's central blocks would each leave a single seat at a row end.
    assert_eq!(labels, ["B1", "B2", "B3"]);
    sale.check_invariants().await;

    // Couples come in pairs.
    let couple = json!({ "input": { "showtimeId": sale.showtime, "best": { "count": 2, "kind": "COUPLE" } } });
    let pair = sale.app.graphql_as(&sale.wechat, HOLD, couple).await;
    let kinds: Vec<&str> = pair.data()["holdSeats"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["COUPLE", "COUPLE"]);

    let too_many = sale.app.graphql_as(&sale.maoyan, HOLD, best(7)).await;
    assert_eq!(too_many.error_code(), "BAD_USER_INPUT");
    // The hall has no VIP seats at all.
    let none = sale.app.graphql_as(&sale.maoyan, HOLD, json!({ "input": { "showtimeId": sale.showtime, "best": { "count": 4, "kind": "VIP" } } })).await;
    assert_eq!(none.error_code(), "SEAT_UNAVAILABLE");
}

#[tokio::test]
async fn racing_holds_never_share_a_seat_and_counts_stay_exact() {
    let sale = Arc::new(sale().await);
    let seats = [
        "A1", "A2", "A3", "A4", "A5", "A6", "B1", "B2", "B3", "B5", "B6", "B7",
    ];
    let tasks: Vec<_> = (0..60)
        .map(|i| {
            let sale = Arc::clone(&sale);
            tokio::spawn(async move {
                let key = sale.key_of_client(i);
                let pair = [seats[i % seats.len()], seats[(i * 7 + 1) % seats.len()]];
                if pair[0] == pair[1] {
                    return None;
                }
                let response = sale.hold(key, &pair).await;
                Some(match response.0.get("errors") {
                    None => Ok(pair),
                    Some(_) => Err(response.error_code().to_owned()),
                })
            })
        })
        .collect();
    let mut won = Vec::new();
    let mut lost = 0;
    for task in tasks {
        match task.await.unwrap() {
            Some(Ok(pair)) => won.push(pair),
            Some(Err(code)) => {
                assert_eq!(code, "SEAT_UNAVAILABLE");
                lost += 1;
            }
            None => {}
        }
    }
    let held: Vec<&str> = won.iter().flatten().copied().collect();
    let distinct: HashSet<&str> = held.iter().copied().collect();
    assert_eq!(held.len(), distinct.len(), "no seat won twice: {won:?}");
    assert!(
        lost > 0 && !won.is_empty(),
        "won {}, lost {lost}",
        won.len()
    );
    let states = sale.check_invariants().await;
    let held_now = states.iter().filter(|(_, s)| *s == SeatState::Held).count();
    assert_eq!(held_now, held.len());
}
