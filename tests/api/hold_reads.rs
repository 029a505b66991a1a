//! A channel reads its holds back: one by id, or its holds of a showtime, so a seat picker
//! recovers a hold after a reload; another channel's are never shown.

use std::time::Duration;

use boxoffice::holds::rules::HoldPolicy;
use serde_json::{json, Value};

use crate::sale::{sale, sale_with};

const HOLD: &str = "query ($id: ID!) { hold(id: $id) { id channel status expiresAt
    seats { label kind ticketType price { amount } } total { amount } showtime { id } } }";
const HOLDS: &str = "query ($id: ID!, $first: Int, $after: String) {
    holds(showtimeId: $id, first: $first, after: $after) {
    edges { cursor node { id seats { label } } } pageInfo { hasNextPage endCursor } } }";

fn labels(connection: &Value) -> Vec<Vec<String>> {
    connection["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|edge| {
            edge["node"]["seats"]
                .as_array()
                .unwrap()
                .iter()
                .map(|seat| seat["label"].as_str().unwrap().to_owned())
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn a_channel_reads_its_hold_back_and_no_one_elses() {
    let sale = sale().await;
    let input = json!({ "input": { "showtimeId": sale.showtime, "seats": ["A3", "A4"],
        "ticketTypes": ["ADULT", "ADULT"] } });
    let placed = sale
        .app
        .graphql_as(&sale.maoyan, crate::sale::HOLD, input)
        .await;
    let placed = placed.data()["holdSeats"].clone();
    let id = placed["id"].clone();
    let read = sale
        .app
        .graphql_as(&sale.maoyan, HOLD, json!({ "id": id }))
        .await;
    let hold = &read.data()["hold"];
    assert_eq!(hold["id"], id);
    assert_eq!(hold["status"], "ACTIVE");
    assert_eq!(hold["channel"], "maoyan");
    assert_eq!(hold["expiresAt"], placed["expiresAt"]);
    assert_eq!(hold["total"]["amount"], 8000);
    assert_eq!(
        hold["seats"][1],
        json!({ "label": "A4", "kind": "STANDARD",
        "ticketType": "ADULT", "price": { "amount": 4000 } })
    );
    assert_eq!(hold["showtime"]["id"], json!(sale.showtime));

    // Another channel, anonymous callers, malformed ids.
    let other = sale
        .app
        .graphql_as(&sale.wechat, HOLD, json!({ "id": id }))
        .await;
    assert_eq!(other.error_code(), "NOT_FOUND");
    let anonymous = sale.app.graphql(HOLD, json!({ "id": id })).await;
    assert_eq!(anonymous.error_code(), "UNAUTHENTICATED");
    let malformed = sale
        .app
        .graphql_as(&sale.maoyan, HOLD, json!({ "id": sale.showtime }))
        .await;
    assert_eq!(malformed.error_code(), "BAD_USER_INPUT");

    // Reading sends the showtime's and the hold's reads, side by side, and nothing else.
    sale.app.store.commands().start();
    sale.app
        .graphql_as(&sale.maoyan, HOLD, json!({ "id": id }))
        .await
        .data();
    let sent = crate::round_trips::names(&sale.app.store.commands().take());
    assert_eq!(sent, ["find seat_inventory", "find showtimes"]);

    // Released, it is gone.
    sale.app
        .graphql_as(
            &sale.maoyan,
            "mutation ($id: ID!) { releaseHold(holdId: $id) }",
            json!({ "id": id }),
        )
        .await
        .data();
    let gone = sale
        .app
        .graphql_as(&sale.maoyan, HOLD, json!({ "id": id }))
        .await;
    assert_eq!(gone.error_code(), "NOT_FOUND");
}

#[tokio::test]
async fn a_channels_holds_of_a_showtime_are_listed_oldest_first_page_by_page() {
    let sale = sale().await;
    for seats in [&["A1"][..], &["B1", "B2"], &["A6"]] {
        sale.hold_id(&sale.maoyan, seats).await;
    }
    sale.hold_id(&sale.wechat, &["A3"]).await;
    let page = |first: i64, after: Value| {
        let sale = &sale;
        async move {
            sale.app
                .graphql_as(
                    &sale.maoyan,
                    HOLDS,
                    json!({ "id": sale.showtime, "first": first, "after": after }),
                )
                .await
        }
    };
    let all = page(10, Value::Null).await;
    assert_eq!(
        labels(&all.data()["holds"]),
        [vec!["A1"], vec!["B1", "B2"], vec!["A6"]],
        "maoyan's, oldest first; not wechat's"
    );
    let first = page(2, Value::Null).await;
    let first = &first.data()["holds"];
    assert_eq!(labels(first), [vec!["A1"], vec!["B1", "B2"]]);
    assert_eq!(first["pageInfo"]["hasNextPage"], true);
    let rest = page(2, first["pageInfo"]["endCursor"].clone()).await;
    let rest = &rest.data()["holds"];
    assert_eq!(labels(rest), [vec!["A6"]]);
    assert_eq!(rest["pageInfo"]["hasNextPage"], false);

    let bad_cursor = page(2, json!("not a cursor")).await;
    assert_eq!(bad_cursor.error_code(), "BAD_USER_INPUT");
    let wechat = sale
        .app
        .graphql_as(&sale.wechat, HOLDS, json!({ "id": sale.showtime }))
        .await;
    assert_eq!(labels(&wechat.data()["holds"]), [vec!["A3"]]);
    let unknown = sale
        .app
        .graphql_as(
            &sale.maoyan,
            HOLDS,
            json!({ "id": crate::fixtures::global_id("Showtime", boxoffice::store::new_id::<boxoffice::domain::ids::ShowtimeId>()) }),
        )
        .await;
    assert_eq!(unknown.error_code(), "NOT_FOUND");
}

#[tokio::test]
async fn a_lapsed_hold_reads_as_expired_until_it_is_expired() {
    let sale = sale_with(HoldPolicy {
        max_seats: 4,
        ttl: Duration::from_millis(300),
        extension: Duration::from_secs(300),
    })
    .await;
    let id = sale.hold_id(&sale.maoyan, &["A1"]).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let read = sale
        .app
        .graphql_as(&sale.maoyan, HOLD, json!({ "id": id }))
        .await;
    assert_eq!(read.data()["hold"]["status"], "EXPIRED");
}
