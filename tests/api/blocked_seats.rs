//! `blockSeats` and `unblockSeats`: operators take AVAILABLE seats off sale and put BLOCKED
//! ones back, all or nothing, never touching a held or sold seat; the counts and the live seat
//! maps follow.

use std::collections::HashSet;
use std::sync::Arc;

use boxoffice::config::BookingArgs;
use boxoffice::domain::seat::SeatState;
use serde_json::{json, Value};

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::GqlResponse;
use crate::live_client::{LiveClient, Mirror};
use crate::sale::{sale, sale_in_hall, Sale};

pub const BLOCK: &str = "mutation ($input: BlockSeatsInput!) { blockSeats(input: $input) {
    seats showtime { id seatMap { counts { available held sold blocked capacity } } } } }";
pub const UNBLOCK: &str = "mutation ($input: UnblockSeatsInput!) { unblockSeats(input: $input) {
    seats showtime { id seatMap { counts { available blocked } } } } }";
const AUDIT: &str = "query { auditLog(first: 20) { edges { node {
    operator operation subject cinemaId before after } } } }";

impl Sale {
    pub async fn block(&self, key: &str, seats: &[&str], extra: Value) -> GqlResponse {
        let mut input = json!({ "showtimeId": self.showtime, "seats": seats });
        input
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().cloned().unwrap_or_default());
        self.app
            .graphql_as(key, BLOCK, json!({ "input": input }))
            .await
    }

    pub async fn unblock(&self, key: &str, seats: &[&str], extra: Value) -> GqlResponse {
        let mut input = json!({ "showtimeId": self.showtime, "seats": seats });
        input
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().cloned().unwrap_or_default());
        self.app
            .graphql_as(key, UNBLOCK, json!({ "input": input }))
            .await
    }

    /// The operator of the sale's cinema (a chain whose scope is that one cinema).
    pub async fn chain(&self) -> String {
        self.app
            .operator_key("wanda", Some(std::slice::from_ref(&self.cinema)))
            .await
    }

    /// An operator of another chain: its scope is a cinema of its own.
    pub async fn other_chain(&self) -> String {
        let mut catalogue = Catalogue::default();
        let theirs = catalogue.cinema("别家影城", "上海", 31.3, 121.5);
        catalogue.insert(&self.app).await;
        self.app
            .operator_key("cgv", Some(&[global_id("Cinema", theirs.id)]))
            .await
    }

    /// The audit log, newest first (read with a platform key).
    pub async fn audit(&self) -> Vec<Value> {
        let platform = self.app.operator_key("auditor", None).await;
        let log = self.app.graphql_as(&platform, AUDIT, json!({})).await;
        crate::helpers::nodes(&log.data()["auditLog"])
    }
}

#[tokio::test]
async fn blocked_seats_leave_sale_in_one_change_and_unblocked_ones_return() {
    let sale = sale().await;
    let chain = sale.chain().await;
    let blocked = sale
        .block(&chain, &["A1", "A2"], json!({ "reason": "broken seat" }))
        .await;
    let answer = &blocked.data()["blockSeats"];
    assert_eq!(answer["seats"], json!(["A1", "A2"]));
    assert_eq!(answer["showtime"]["id"], sale.showtime.as_str());
    assert_eq!(
        answer["showtime"]["seatMap"]["counts"],
        json!({ "available": 14, "held": 0, "sold": 0, "blocked": 2, "capacity": 16 })
    );
    assert_eq!(
        sale.states(&["A1", "A2", "A3"]).await,
        [SeatState::Blocked, SeatState::Blocked, SeatState::Available]
    );
    assert_eq!(sale.inventory().await.version, 1, "one change, one version");

    // A blocked seat is not for sale, to a named hold or a best-available one.
    let refused = sale.hold(&sale.maoyan, &["A2", "A3"]).await;
    assert_eq!(refused.error_code(), "SEAT_UNAVAILABLE");
    assert_eq!(refused.errors()[0]["extensions"]["seats"], json!(["A2"]));

    let unblocked = sale.unblock(&chain, &["A2"], json!({})).await;
    assert_eq!(unblocked.data()["unblockSeats"]["seats"], json!(["A2"]));
    assert_eq!(
        unblocked.data()["unblockSeats"]["showtime"]["seatMap"]["counts"],
        json!({ "available": 15, "blocked": 1 })
    );
    sale.hold(&sale.maoyan, &["A2", "A3"]).await.data();
    assert_eq!(
        sale.states(&["A1", "A2", "A3"]).await,
        [SeatState::Blocked, SeatState::Held, SeatState::Held]
    );

    let audit = sale.audit().await;
    assert_eq!(audit.len(), 2, "{audit:#?}");
    assert_eq!(audit[0]["operation"], "unblockSeats");
    let block = &audit[1];
    assert_eq!(block["operator"], "wanda");
    assert_eq!(block["operation"], "blockSeats");
    assert_eq!(block["subject"], sale.showtime.as_str());
    assert_eq!(block["cinemaId"], sale.cinema.as_str());
    let after: Value = serde_json::from_str(block["after"].as_str().unwrap()).unwrap();
    assert_eq!(
        after,
        json!({ "seats": ["A1", "A2"], "state": "BLOCKED", "reason": "broken seat" })
    );
    let before: Value = serde_json::from_str(block["before"].as_str().unwrap()).unwrap();
    assert_eq!(before["state"], "AVAILABLE");
}

#[tokio::test]
async fn every_bad_request_is_refused_with_what_is_wrong_and_changes_nothing() {
    let sale = sale().await;
    let chain = sale.chain().await;
    sale.hold(&sale.maoyan, &["B1"]).await.data();
    let hold = sale.hold_id(&sale.wechat, &["B2"]).await;
    sale.confirm(&sale.wechat, &hold).await.data();
    sale.block(&chain, &["C1"], json!({})).await.data();
    let version = sale.inventory().await.version;

    let cases: Vec<(&[&str], Value, &str, &str)> = vec![
        (&[], json!({}), "BAD_USER_INPUT", "name at least one seat"),
        (
            &["a1"],
            json!({}),
            "BAD_USER_INPUT",
            "`a1` is not a seat label",
        ),
        (
            &["A1", "A1"],
            json!({}),
            "BAD_USER_INPUT",
            "seat A1 is named twice",
        ),
        (
            &["A1", "Z9"],
            json!({}),
            "BAD_USER_INPUT",
            "seat Z9 is not a seat of this hall",
        ),
        (
            &["B4"],
            json!({}),
            "BAD_USER_INPUT",
            "seat B4 is not a seat of this hall",
        ),
        (
            &["A1"],
            json!({ "reason": "  " }),
            "BAD_USER_INPUT",
            "reason must not be empty",
        ),
        (
            &["A1"],
            json!({ "reason": "x".repeat(201) }),
            "BAD_USER_INPUT",
            "reason has 201 characters; at most 100",
        ),
        (
            &["A1", "B1", "B2"],
            json!({}),
            "SEAT_UNAVAILABLE",
            "seats B1 (HELD), B2 (SOLD) are held or sold",
        ),
        (
            &["A1", "C1"],
            json!({}),
            "BAD_USER_INPUT",
            "seat C1 is blocked already",
        ),
        (
            &["A1"],
            json!({ "idempotencyKey": "" }),
            "BAD_USER_INPUT",
            "idempotencyKey",
        ),
    ];
    for (seats, extra, code, message) in cases {
        let refused = sale.block(&chain, seats, extra.clone()).await;
        assert_eq!(refused.error_code(), code, "{seats:?} {extra}");
        assert!(
            refused.error_message().contains(message),
            "{seats:?}: {}",
            refused.error_message()
        );
    }
    let taken = sale.block(&chain, &["A1", "B1", "B2"], json!({})).await;
    assert_eq!(
        taken.errors()[0]["extensions"]["seats"],
        json!(["B1", "B2"])
    );
    let many: Vec<String> = (1..=201).map(|n| format!("A{n}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let refused = sale.block(&chain, &many, json!({})).await;
    assert!(
        refused.error_message().contains("at most 200"),
        "{refused:?}"
    );

    let refused = sale.unblock(&chain, &["C1", "A1", "B1"], json!({})).await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert!(
        refused
            .error_message()
            .contains("seats A1 (AVAILABLE), B1 (HELD) are not blocked"),
        "{}",
        refused.error_message()
    );
    for id in [global_id("Movie", [1; 12]), "nonsense".to_owned()] {
        let input = json!({ "showtimeId": id, "seats": ["A1"] });
        let refused = sale
            .app
            .graphql_as(&chain, BLOCK, json!({ "input": input }))
            .await;
        assert_eq!(refused.error_code(), "BAD_USER_INPUT", "{id}");
    }
    let input = json!({ "showtimeId": global_id("Showtime", [7; 12]), "seats": ["A1"] });
    let missing = sale
        .app
        .graphql_as(&chain, BLOCK, json!({ "input": input }))
        .await;
    assert_eq!(missing.error_code(), "NOT_FOUND");

    // A showtime that has started keeps its seats as they are.
    let mut catalogue = Catalogue::default();
    let cinema = catalogue.cinema("老影城", "上海", 31.2, 121.4);
    let hall = catalogue.hall(&cinema, "2号厅", &["SSSS"]);
    let movie = catalogue.movie("旧片", &["剧情"]);
    let started = catalogue.showtime(&cinema, &hall, &movie, -1, &[("maoyan", 3000)]);
    catalogue.insert(&sale.app).await;
    let platform = sale.app.operator_key("platform", None).await;
    let input = json!({ "showtimeId": global_id("Showtime", started.id), "seats": ["A1"] });
    let refused = sale
        .app
        .graphql_as(&platform, BLOCK, json!({ "input": input }))
        .await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert!(
        refused.error_message().contains("has started"),
        "{refused:?}"
    );

    assert_eq!(sale.inventory().await.version, version, "nothing changed");
    assert_eq!(
        sale.states(&["A1", "B1", "B2", "C1"]).await,
        [
            SeatState::Available,
            SeatState::Held,
            SeatState::Sold,
            SeatState::Blocked
        ]
    );
    assert_eq!(sale.audit().await.len(), 1, "only the one block");
}

#[tokio::test]
async fn only_an_operator_of_the_showtime_s_cinema_blocks_its_seats() {
    let sale = sale().await;
    let chain = sale.chain().await;
    sale.block(&chain, &["A6"], json!({})).await.data();
    let version = sale.inventory().await.version;

    let other = sale.other_chain().await;
    let refused = sale.block(&other, &["A1"], json!({})).await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    assert!(refused.error_message().contains("may not write cinema"));
    let refused = sale.unblock(&other, &["A6"], json!({})).await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    let refused = sale.block(&sale.maoyan, &["A1"], json!({})).await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    let input = json!({ "showtimeId": sale.showtime, "seats": ["A1"] });
    let refused = sale.app.graphql(BLOCK, json!({ "input": input })).await;
    assert_eq!(refused.error_code(), "UNAUTHENTICATED");
    let refused = sale.app.graphql(UNBLOCK, json!({ "input": input })).await;
    assert_eq!(refused.error_code(), "UNAUTHENTICATED");

    assert_eq!(sale.inventory().await.version, version, "nothing changed");
    assert_eq!(
        sale.states(&["A1", "A6"]).await,
        [SeatState::Available, SeatState::Blocked]
    );
    // The platform writes every cinema.
    let platform = sale.app.operator_key("platform", None).await;
    sale.unblock(&platform, &["A6"], json!({})).await.data();
}

#[tokio::test]
async fn a_retry_with_the_same_key_has_one_effect_and_the_first_answer() {
    let sale = sale().await;
    let chain = sale.chain().await;
    let key = json!({ "idempotencyKey": "block-1", "reason": "staff" });
    let first = sale.block(&chain, &["A1", "A2"], key.clone()).await;
    first.data();
    let again = sale.block(&chain, &["A1", "A2"], key.clone()).await;
    assert_eq!(again.data()["blockSeats"]["seats"], json!(["A1", "A2"]));
    assert_eq!(sale.inventory().await.version, 1, "blocked once");
    let other = sale.block(&chain, &["A3"], key).await;
    assert_eq!(other.error_code(), "IDEMPOTENCY_KEY_REUSED");

    // Keys are per operator: another operator's key of the same name is its own.
    let platform = sale.app.operator_key("platform", None).await;
    let theirs = sale
        .unblock(&platform, &["A1"], json!({ "idempotencyKey": "block-1" }))
        .await;
    theirs.data();
    let unblock_again = sale
        .unblock(&platform, &["A1"], json!({ "idempotencyKey": "block-1" }))
        .await;
    unblock_again.data();
    assert_eq!(sale.inventory().await.version, 2);
    assert_eq!(
        sale.states(&["A1", "A2"]).await,
        [SeatState::Available, SeatState::Blocked]
    );
    // A refusal is the key's answer too.
    let refused = sale
        .block(&chain, &["A2"], json!({ "idempotencyKey": "block-2" }))
        .await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    sale.unblock(&chain, &["A2"], json!({})).await.data();
    let replayed = sale
        .block(&chain, &["A2"], json!({ "idempotencyKey": "block-2" }))
        .await;
    assert_eq!(replayed.error_code(), "BAD_USER_INPUT");
    assert_eq!(sale.states(&["A2"]).await, [SeatState::Available]);
    let operations: Vec<Value> = sale
        .audit()
        .await
        .iter()
        .map(|entry| entry["operation"].clone())
        .collect();
    assert_eq!(
        operations,
        json!(["unblockSeats", "unblockSeats", "blockSeats"])
            .as_array()
            .unwrap()
            .clone()
    );
}

#[tokio::test]
async fn a_subscriber_sees_seats_blocked_then_available_with_consecutive_versions() {
    let sale = sale().await;
    let chain = sale.chain().await;
    let mut client = LiveClient::connect(&sale.app, None).await;
    let snapshot = client.watch_seat_map("1", &sale.showtime).await;
    let mut mirror = Mirror::default();
    mirror.apply(&snapshot);

    // Unkeyed, one update; keyed (below), the update in its key's fenced transaction: a
    // subscriber sees both alike.
    sale.block(&chain, &["B5", "B6"], json!({})).await.data();
    let blocked = client.event("1").await;
    assert_eq!(
        (blocked["kind"].as_str(), blocked["version"].as_i64()),
        (Some("CHANGES"), Some(1))
    );
    let states: Vec<(&str, &str)> = blocked["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| {
            (
                seat["label"].as_str().unwrap(),
                seat["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(states, [("B5", "BLOCKED"), ("B6", "BLOCKED")]);
    assert_eq!(blocked["counts"]["blocked"], 2);
    assert_eq!(blocked["counts"]["available"], 14);
    mirror.apply(&blocked);

    let key = json!({ "idempotencyKey": "unblock-live" });
    sale.unblock(&chain, &["B6"], key).await.data();
    let unblocked = client.event("1").await;
    assert_eq!(unblocked["version"], 2);
    assert_eq!(unblocked["changes"][0]["label"], "B6");
    assert_eq!(unblocked["changes"][0]["state"], "AVAILABLE");
    assert_eq!(unblocked["counts"]["blocked"], 1);
    mirror.apply(&unblocked);
    assert_eq!(mirror, mirror.fresh(&sale.app, &sale.showtime).await);
}

/// Many channel clients hold seats (on two gateways) while operators block overlapping seats:
/// every seat ends in exactly one state, each block took all its seats or none, no held seat
/// was blocked, and the counts equal the seats' states.
#[tokio::test]
async fn blocks_racing_holds_take_all_their_seats_or_none_and_never_a_held_one() {
    let rows = ["SSSSSSSS"; 4];
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &rows).await);
    let chain = sale.chain().await;
    let second = sale.app.another_gateway().await;
    let mut tasks = Vec::new();
    // Holds: pairs sliding along each row; blocks: triples overlapping them.
    for i in 0..24usize {
        let sale = Arc::clone(&sale);
        let (row, column) = (["A", "B", "C", "D"][i % 4], 1 + (i / 4) % 7);
        let seats = vec![format!("{row}{column}"), format!("{row}{}", column + 1)];
        let app = if i % 2 == 0 {
            sale.app.clone()
        } else {
            second.clone()
        };
        tasks.push(tokio::spawn(async move {
            let key = sale.key_of_client(i).to_owned();
            let input = json!({ "showtimeId": sale.showtime, "seats": seats });
            let answer = app
                .graphql_as(&key, crate::sale::HOLD, json!({ "input": input }))
                .await;
            ("hold", seats, answer)
        }));
    }
    for i in 0..12usize {
        let sale = Arc::clone(&sale);
        let chain = chain.clone();
        let (row, column) = (["A", "B", "C", "D"][i % 4], 1 + (i * 2) % 6);
        let seats: Vec<String> = (column..column + 3).map(|c| format!("{row}{c}")).collect();
        let app = if i % 2 == 0 {
            second.clone()
        } else {
            sale.app.clone()
        };
        tasks.push(tokio::spawn(async move {
            let input = json!({ "showtimeId": sale.showtime, "seats": seats });
            let answer = app
                .graphql_as(&chain, BLOCK, json!({ "input": input }))
                .await;
            ("block", seats, answer)
        }));
    }
    let mut held = HashSet::new();
    let mut blocked = HashSet::new();
    let mut refused_blocks = Vec::new();
    for task in tasks {
        let (what, seats, answer) = task.await.unwrap();
        let ok = answer.0["errors"].is_null();
        if !ok {
            // Blocks overlap each other too: a seat another block took is "blocked already".
            let code = answer.error_code();
            let blocked_already =
                what == "block" && answer.error_message().contains("blocked already");
            assert!(
                code == "SEAT_UNAVAILABLE" || (code == "BAD_USER_INPUT" && blocked_already),
                "{what} {seats:?}: {answer:?}"
            );
        }
        let target = match what {
            "hold" => &mut held,
            _ => &mut blocked,
        };
        if ok {
            for seat in &seats {
                assert!(target.insert(seat.clone()), "{seat} taken twice by {what}s");
            }
        } else if what == "block" {
            refused_blocks.push((seats, answer));
        }
    }
    // `check_invariants` asserts counts == the seats' states and every HELD seat is in its hold.
    let seats = sale.check_invariants().await;
    for (label, state) in &seats {
        let expected = if held.contains(label) {
            SeatState::Held
        } else if blocked.contains(label) {
            SeatState::Blocked
        } else {
            SeatState::Available
        };
        assert_eq!(*state, expected, "{label}");
        assert!(
            !(held.contains(label) && blocked.contains(label)),
            "{label}"
        );
    }
    for (seats, answer) in refused_blocks {
        // A refused block changed none of its seats (checked above: every BLOCKED seat is a
        // successful block's) and named seats that were held (or blocked by another block).
        if answer.error_code() == "BAD_USER_INPUT" {
            assert!(seats.iter().any(|seat| blocked.contains(seat)), "{seats:?}");
            continue;
        }
        let named: Vec<String> =
            serde_json::from_value(answer.errors()[0]["extensions"]["seats"].clone()).unwrap();
        assert!(!named.is_empty(), "{seats:?}");
        for seat in &named {
            assert!(
                seats.contains(seat) && held.contains(seat),
                "{seat} of {seats:?}"
            );
        }
    }
}
