//! Admission at the door: door staff keys, `admitTicket` (once per ticket, one read-free
//! conditional update), its refusals, ADMITTED in the door staff's seat map, and admitted
//! seats that can no longer be cancelled.

use bson::doc;
use serde_json::{json, Value};

use crate::catalogue_faults::database;
use crate::helpers::{mongodb_uri, GqlResponse, TestApp};
use crate::sale::{sale, Sale};

pub const ADMIT: &str = "mutation ($code: String!, $key: String) {
    admitTicket(input: { code: $code, idempotencyKey: $key }) {
    seat orderId admittedAt door showtime { id } } }";
const ADMIT_BARE: &str = "mutation ($code: String!, $key: String) {
    admitTicket(input: { code: $code, idempotencyKey: $key }) { seat orderId admittedAt door } }";
pub const CREATE_DOOR: &str = "mutation ($cinema: ID!, $door: String!) {
    createDoorKey(input: { cinemaId: $cinema, door: $door }) { code door apiKey cinema { id } } }";
const REVOKE_DOOR: &str = "mutation ($cinema: ID!, $code: String!) {
    revokeDoorKey(input: { cinemaId: $cinema, code: $code }) { code apiKey } }";
pub const DOOR_KEYS: &str =
    "query ($cinema: ID!) { doorKeys(cinemaId: $cinema) { code door createdBy apiKey } }";
const TICKETS: &str = "query ($id: ID!) { order(id: $id) { tickets { seat code } } }";
const SEAT_MAP: &str = "query ($id: ID!) { showtime(id: $id) { seatMap {
    counts { sold } rows { label states seats { label state } } } } }";
const ADMISSIONS: &str = "query ($id: ID!) { showtime(id: $id) { seatMap { admissions } } }";

/// A door of the sale's cinema: its key's code and its API key.
pub struct Door {
    pub code: String,
    pub key: String,
}

/// The operator of the sale's cinema ("wanda").
pub async fn operator(sale: &Sale) -> String {
    sale.app
        .operator_key("wanda", Some(std::slice::from_ref(&sale.cinema)))
        .await
}

/// Makes door staff key `door` for the sale's cinema as `operator`.
pub async fn door(sale: &Sale, operator: &str, door: &str) -> Door {
    let made = sale
        .app
        .graphql_as(
            operator,
            CREATE_DOOR,
            json!({ "cinema": sale.cinema, "door": door }),
        )
        .await;
    let made = &made.data()["createDoorKey"];
    assert_eq!(made["door"], door.trim());
    assert_eq!(made["cinema"]["id"], sale.cinema.as_str());
    Door {
        code: made["code"].as_str().unwrap().to_owned(),
        key: made["apiKey"].as_str().unwrap().to_owned(),
    }
}

/// Moves the sale's showtime to start `minutes` from now (negative: it started), as the
/// schedule would have it: showtime and seat inventory alike.
pub async fn starting_in(sale: &Sale, minutes: i64) {
    starting_in_on(&mongodb_uri(), sale, minutes).await
}

/// [`starting_in`] for a sale on the database server at `uri`.
pub async fn starting_in_on(uri: &str, sale: &Sale, minutes: i64) {
    move_start(uri, &sale.app, sale.showtime_id, minutes).await
}

/// Moves showtime `showtime` of `app`'s database (on the server at `uri`) to start `minutes`
/// from now: showtime and seat inventory alike.
pub async fn move_start(
    uri: &str,
    app: &TestApp,
    showtime: boxoffice::domain::ids::ShowtimeId,
    minutes: i64,
) {
    let db = database(uri, app).await;
    let at = bson::DateTime::from_chrono(chrono::Utc::now() + chrono::Duration::minutes(minutes));
    for collection in ["showtimes", "seat_inventory"] {
        db.collection::<bson::Document>(collection)
            .update_one(
                doc! { "_id": bson::oid::ObjectId::from_bytes(showtime.0) },
                doc! { "$set": { "startsAt": at } },
            )
            .await
            .unwrap();
    }
}

/// The ticket codes of order `order` by seat.
pub async fn codes(sale: &Sale, order: &Value) -> Vec<(String, String)> {
    let read = sale
        .app
        .graphql_as(&sale.maoyan, TICKETS, json!({ "id": order }))
        .await;
    read.data()["order"]["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let field = |name: &str| t[name].as_str().unwrap().to_owned();
            (field("seat"), field("code"))
        })
        .collect()
}

/// Scans `code` with door key `key` on `app`.
pub async fn admit(app: &TestApp, key: &str, code: &str, idempotency: Option<&str>) -> GqlResponse {
    app.graphql_as(key, ADMIT, json!({ "code": code, "key": idempotency }))
        .await
}

/// A sale starting in 30 minutes (inside the default window), an order of A1 and A2 and
/// their codes, and a door "North".
pub async fn admission_sale() -> (Sale, Value, Vec<(String, String)>, Door) {
    let sale = sale().await;
    starting_in(&sale, 30).await;
    let order = sale.order(&sale.maoyan, &["A1", "A2"]).await;
    let codes = codes(&sale, &order).await;
    let operator = operator(&sale).await;
    let north = door(&sale, &operator, "North").await;
    (sale, order, codes, north)
}

fn states(map: &Value) -> Vec<(String, String)> {
    map["rows"][0]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| {
            let field = |name: &str| seat[name].as_str().unwrap().to_owned();
            (field("label"), field("state"))
        })
        .take(3)
        .collect()
}

#[tokio::test]
async fn a_ticket_is_admitted_once_in_one_update_and_a_second_scan_says_when_and_where() {
    let (sale, order, codes, north) = admission_sale().await;
    // The first scan at this gateway looks the door key up (then cached).
    let first = admit(&sale.app, &north.key, &codes[1].1, None).await;
    let first = &first.data()["admitTicket"];
    assert_eq!(first["showtime"]["id"], sale.showtime.as_str());
    assert_eq!((&first["seat"], &first["orderId"]), (&json!("A2"), &order));
    let before = sale.inventory().await;

    let scan = |key: &'static str| json!({ "code": codes[0].1, "key": key });
    sale.app.store.commands().start();
    let admitted = sale
        .app
        .graphql_as(&north.key, ADMIT_BARE, scan("scan-1"))
        .await;
    let sent = crate::round_trips::names(&sale.app.store.commands().take());
    assert_eq!(
        sent,
        [
            "findAndModify seat_inventory",
            "insert idempotency_keys",
            "update idempotency_keys",
        ],
        "the key, one conditional update that reads nothing, the answer"
    );
    let admitted = admitted.data()["admitTicket"].clone();
    assert_eq!(
        (&admitted["seat"], &admitted["orderId"], &admitted["door"]),
        (&json!("A1"), &order, &json!("North"))
    );
    let after = sale.inventory().await;
    assert_eq!(after.counts, before.counts, "an admitted seat stays sold");
    assert_eq!(
        after.version, before.version,
        "the public seat map did not change"
    );
    assert_eq!(after.admitted, 2);

    // The retry of the key gets its answer; another scan, at another door, is refused with
    // when and where the ticket went in.
    let retried = sale
        .app
        .graphql_as(&north.key, ADMIT_BARE, scan("scan-1"))
        .await;
    assert_eq!(retried.data()["admitTicket"], admitted);
    let operator = operator_again(&sale).await;
    let south = door(&sale, &operator, "South").await;
    let again = admit(&sale.app, &south.key, &codes[0].1, None).await;
    assert_eq!(again.error_code(), "ALREADY_ADMITTED");
    let extensions = &again.errors()[0]["extensions"];
    assert_eq!(extensions["door"], "North");
    assert_eq!(extensions["admittedAt"], admitted["admittedAt"]);
    assert!(again.error_message().contains("door `North`"));
    let keyed_again = admit(&sale.app, &south.key, &codes[0].1, Some("scan-2")).await;
    assert_eq!(keyed_again.error_code(), "ALREADY_ADMITTED");
    let replayed = admit(&sale.app, &south.key, &codes[0].1, Some("scan-2")).await;
    assert_eq!(
        replayed.0, keyed_again.0,
        "a refusal is replayed with its details"
    );
    assert_eq!(sale.inventory().await.admitted, 2, "two tickets, each once");

    // Door staff see ADMITTED and the count; everyone else sees SOLD and no count.
    let id = json!({ "id": sale.showtime });
    let public = sale
        .app
        .graphql_as(&sale.maoyan, SEAT_MAP, id.clone())
        .await;
    let public = &public.data()["showtime"]["seatMap"];
    let sold = |label: &str, state: &str| (label.to_owned(), state.to_owned());
    assert_eq!(
        states(public),
        [
            sold("A1", "SOLD"),
            sold("A2", "SOLD"),
            sold("A3", "AVAILABLE")
        ]
    );
    assert!(public["rows"][0]["states"]
        .as_str()
        .unwrap()
        .starts_with("ssa"));
    let at_door = sale.app.graphql_as(&north.key, SEAT_MAP, id.clone()).await;
    let at_door = &at_door.data()["showtime"]["seatMap"];
    assert_eq!(
        states(at_door),
        [
            sold("A1", "ADMITTED"),
            sold("A2", "ADMITTED"),
            sold("A3", "AVAILABLE")
        ]
    );
    assert!(at_door["rows"][0]["states"]
        .as_str()
        .unwrap()
        .starts_with("xxa"));
    assert_eq!(at_door["counts"]["sold"], 2, "admitted seats count as sold");
    for key in [&north.key, &operator] {
        let read = sale.app.graphql_as(key, ADMISSIONS, id.clone()).await;
        assert_eq!(read.data()["showtime"]["seatMap"]["admissions"], 2);
    }
    let channel = sale
        .app
        .graphql_as(&sale.maoyan, ADMISSIONS, id.clone())
        .await;
    assert_eq!(channel.error_code(), "FORBIDDEN");
    let anonymous = sale.app.graphql(ADMISSIONS, id).await;
    assert_eq!(anonymous.error_code(), "FORBIDDEN");
}

/// The sale cinema's operator key, made again under another code (the test's first is gone
/// with its scope).
async fn operator_again(sale: &Sale) -> String {
    sale.app
        .operator_key("wanda-2", Some(std::slice::from_ref(&sale.cinema)))
        .await
}

#[tokio::test]
async fn bad_scans_get_a_code_and_change_nothing() {
    let (sale, order, codes, north) = admission_sale().await;
    let code = codes[0].1.clone();
    let forged = {
        let mut chars: Vec<char> = code.chars().collect();
        let last = chars.len() - 3;
        chars[last] = if chars[last] == 'A' { 'B' } else { 'A' };
        chars.into_iter().collect::<String>()
    };
    for (code, expected) in [
        ("not a ticket", "BAD_USER_INPUT"),
        ("BO1.AAAA", "BAD_USER_INPUT"),
        (forged.as_str(), "BAD_USER_INPUT"),
    ] {
        let refused = admit(&sale.app, &north.key, code, None).await;
        assert_eq!(refused.error_code(), expected, "{code}");
    }
    assert_eq!(
        admit(&sale.app, &north.key, &forged, None)
            .await
            .error_message(),
        "this is not a valid ticket code"
    );
    // Only door staff admit.
    let anonymous = sale.app.graphql(ADMIT, json!({ "code": code })).await;
    assert_eq!(anonymous.error_code(), "UNAUTHENTICATED");
    let channel = admit(&sale.app, &sale.maoyan, &code, None).await;
    assert_eq!(channel.error_code(), "FORBIDDEN");
    let operator = operator_again(&sale).await;
    assert_eq!(
        admit(&sale.app, &operator, &code, None).await.error_code(),
        "FORBIDDEN"
    );
    // A door key does nothing else: no catalogue write, no sale.
    let block = sale
        .app
        .graphql_as(
            &north.key,
            crate::blocked_seats::BLOCK,
            json!({ "input": { "showtimeId": sale.showtime, "seats": ["C1"] } }),
        )
        .await;
    assert_eq!(block.error_code(), "FORBIDDEN");
    assert_eq!(
        sale.hold(&north.key, &["C2"]).await.error_code(),
        "FORBIDDEN"
    );
    let door_making_doors = sale
        .app
        .graphql_as(
            &north.key,
            CREATE_DOOR,
            json!({ "cinema": sale.cinema, "door": "Back" }),
        )
        .await;
    assert_eq!(door_making_doors.error_code(), "FORBIDDEN");

    // Too early: two hours before the start, the window (an hour before) is not open.
    starting_in(&sale, 120).await;
    let early = admit(&sale.app, &north.key, &code, None).await;
    assert_eq!(early.error_code(), "ADMISSION_CLOSED");
    assert!(early
        .error_message()
        .starts_with("too early: admission opens at"));
    // Too late: 31 minutes after the start.
    starting_in(&sale, -31).await;
    let late = admit(&sale.app, &north.key, &code, None).await;
    assert_eq!(late.error_code(), "ADMISSION_CLOSED");
    assert!(
        late.error_message().starts_with("too late"),
        "{}",
        late.error_message()
    );
    starting_in(&sale, 30).await;

    // A cancelled seat's ticket.
    sale.cancel_seats(&order, Some(&["A2"])).await.data();
    let cancelled = admit(&sale.app, &north.key, &codes[1].1, None).await;
    assert_eq!(cancelled.error_code(), "TICKET_CANCELLED");

    // Another cinema's ticket, at this cinema's door.
    let other = sale_elsewhere(&sale).await;
    let refused = admit(&sale.app, &north.key, &other, None).await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    assert!(refused.error_message().contains("another cinema"));

    assert_eq!(sale.inventory().await.admitted, 0, "nothing was admitted");
    assert!(sale
        .inventory()
        .await
        .seat("A1")
        .unwrap()
        .admitted
        .is_none());
    // And the ticket still admits.
    admit(&sale.app, &north.key, &code, None).await.data();
}

/// A well-signed ticket of another cinema (as that cinema's door would accept it).
async fn sale_elsewhere(sale: &Sale) -> String {
    use boxoffice::domain::ids::{CinemaId, OrderId};
    boxoffice::domain::ticket_codes::Ticket {
        cinema: CinemaId([7; 12]),
        showtime: sale.showtime_id,
        order: OrderId([8; 12]),
        seat: "A1".into(),
    }
    .code(&crate::helpers::test_ticket_secret())
}

#[tokio::test]
async fn an_admitted_seat_is_not_cancelled_and_a_cancelled_one_is_not_admitted() {
    let (sale, order, codes, north) = admission_sale().await;
    admit(&sale.app, &north.key, &codes[0].1, None).await.data();
    let order_now = || async {
        let read = sale
            .app
            .graphql_as(
                &sale.maoyan,
                "query ($id: ID!) { order(id: $id) { status refunded { amount } refunds { id } } }",
                json!({ "id": order }),
            )
            .await;
        read.data()["order"].clone()
    };
    let unchanged = order_now().await;
    for seats in [Some(&["A1"][..]), Some(&["A1", "A2"][..]), None] {
        let refused = sale.cancel_seats(&order, seats).await;
        assert_eq!(refused.error_code(), "REFUND_NOT_ALLOWED", "{seats:?}");
        assert!(refused.error_message().contains("admitted at the door"));
        assert_eq!(
            order_now().await,
            unchanged,
            "the refund was taken back whole"
        );
    }
    assert_eq!(
        sale.states(&["A1", "A2"]).await,
        [
            boxoffice::domain::seat::SeatState::Sold,
            boxoffice::domain::seat::SeatState::Sold
        ]
    );
    // The seat not admitted is cancelled; its ticket no longer admits.
    let cancelled = sale.cancel_seats(&order, Some(&["A2"])).await;
    assert_eq!(cancelled.data()["cancelOrder"]["refunded"]["amount"], 4000);
    let refused = admit(&sale.app, &north.key, &codes[1].1, None).await;
    assert_eq!(refused.error_code(), "TICKET_CANCELLED");
    sale.check_invariants().await;
    sale.check_orders_agree_with_seats().await;
    let ((tickets, _, revenue), _) = sale.projected_sales().await;
    assert_eq!((tickets, revenue), (1, 4000), "the sales figures follow");
    // The door key made for it is revoked: a gateway that never saw it refuses it.
    let operator = operator_again(&sale).await;
    let revoked = sale
        .app
        .graphql_as(
            &operator,
            REVOKE_DOOR,
            json!({ "cinema": sale.cinema, "code": north.code }),
        )
        .await;
    assert_eq!(revoked.data()["revokeDoorKey"]["apiKey"], Value::Null);
    let fresh = sale.app.another_gateway().await;
    let after = admit(&fresh, &north.key, &codes[0].1, None).await;
    assert_eq!(after.error_code(), "UNAUTHENTICATED");
    let again = sale
        .app
        .graphql_as(
            &operator,
            REVOKE_DOOR,
            json!({ "cinema": sale.cinema, "code": north.code }),
        )
        .await;
    assert_eq!(again.error_code(), "NOT_FOUND");
}

#[tokio::test]
async fn door_keys_are_made_by_the_cinema_s_operators_for_named_doors() {
    let sale = sale().await;
    let operator = operator(&sale).await;
    for name in ["", "   ", "North\u{7}", &"门".repeat(41)] {
        let refused = sale
            .app
            .graphql_as(
                &operator,
                CREATE_DOOR,
                json!({ "cinema": sale.cinema, "door": name }),
            )
            .await;
        assert_eq!(refused.error_code(), "BAD_USER_INPUT", "{name:?}");
    }
    let stranger = sale.app.operator_key("stranger", Some(&[])).await;
    let refused = sale
        .app
        .graphql_as(
            &stranger,
            CREATE_DOOR,
            json!({ "cinema": sale.cinema, "door": "North" }),
        )
        .await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    let channel = sale
        .app
        .graphql_as(
            &sale.maoyan,
            CREATE_DOOR,
            json!({ "cinema": sale.cinema, "door": "North" }),
        )
        .await;
    assert_eq!(channel.error_code(), "FORBIDDEN");
    let missing = sale
        .app
        .graphql_as(
            &operator,
            CREATE_DOOR,
            json!({ "cinema": crate::fixtures::global_id("Cinema", [7; 12]), "door": "North" }),
        )
        .await;
    assert_eq!(missing.error_code(), "NOT_FOUND");
    let door = door(&sale, &operator, "  3号厅入口 ").await;
    assert!(
        door.key.starts_with("bop_"),
        "an operator key, admitting only"
    );
    // Stored as a hash, audited without the key.
    let db = database(&mongodb_uri(), &sale.app).await;
    let stored = crate::catalogue_faults::find(&db, "operators", doc! { "_id": &door.code }).await;
    assert!(!format!("{stored:?}").contains(&door.key));
    let audit =
        crate::catalogue_faults::find(&db, "audit_log", doc! { "operation": "createDoorKey" })
            .await;
    assert_eq!(audit.len(), 1);
    assert!(!format!("{audit:?}").contains(&door.key));
}

#[tokio::test]
async fn live_seat_maps_do_not_hear_of_admissions() {
    let (sale, _order, codes, north) = admission_sale().await;
    let mut client = crate::live_client::LiveClient::connect(&sale.app, None).await;
    let snapshot = client.watch_seat_map("1", &sale.showtime).await;
    let version = snapshot["version"].as_i64().unwrap();
    admit(&sale.app, &north.key, &codes[0].1, None).await.data();
    admit(&sale.app, &north.key, &codes[1].1, None).await.data();
    // The next event is the next hold's, at the next version: the admissions sent nothing
    // (not even a fresh map).
    sale.hold_id(&sale.maoyan, &["A3"]).await;
    let event = client.event("1").await;
    assert_eq!(
        (event["kind"].as_str(), event["version"].as_i64()),
        (Some("CHANGES"), Some(version + 1)),
        "{event}"
    );
    assert_eq!(event["changes"][0]["label"], "A3");
    assert_eq!(sale.inventory().await.version as i64, version + 1);
}
