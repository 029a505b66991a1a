//! Ticket types and the price matrix: each seat priced by channel, kind and type; refused
//! types naming their rule; couple seats in pairs; operators' own types; every refusal
//! changing nothing.

use boxoffice::config::BookingArgs;
use boxoffice::sales;
use serde_json::{json, Value};

use crate::sale::{sale_in_hall, Sale};

const CHANGE: &str = "mutation ($input: ChangeShowtimePricesInput!) {
    changeShowtimePrices(input: $input) {
    prices { channel seatKind ticketType price { amount } }
    refusedTicketTypes { ticketType rule } } }";

const HOLD: &str = "mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) {
    id seats { label kind ticketType price { amount } } total { amount } } }";

/// Rows A (standard), B (VIP), C (couple: pairs C1-C2, C3-C4).
const HALL: [&str; 3] = ["SSSSSS", "VVVV", "CCCC"];

/// maoyan: ADULT ¥40 (VIP ¥60, couple ¥50 a seat), CHILD ¥28, STUDENT ¥32 on VIP only;
/// wechat: ADULT ¥38. SENIOR refused by a rule.
fn matrix() -> Value {
    json!([
        { "channel": "maoyan", "amount": 4000 },
        { "channel": "maoyan", "seatKind": "VIP", "amount": 6000 },
        { "channel": "maoyan", "seatKind": "COUPLE", "ticketType": "ADULT", "amount": 5000 },
        { "channel": "maoyan", "ticketType": "CHILD", "amount": 2800 },
        { "channel": "maoyan", "seatKind": "VIP", "ticketType": "STUDENT", "amount": 3200 },
        { "channel": "wechat", "amount": 3800 },
    ])
}

fn seniors_refused() -> Value {
    json!([{ "ticketType": "SENIOR", "rule": "no senior tickets for premieres" }])
}

/// The sale of `sale.rs` in [`HALL`], its prices set to [`matrix`] by the platform operator;
/// returns the sale and the operator's key.
async fn priced_sale() -> (Sale, String) {
    let sale = sale_in_hall(BookingArgs::default().hold_policy(), &HALL).await;
    let platform = sale.app.operator_key("platform", None).await;
    let input = json!({ "showtimeId": sale.showtime, "prices": matrix(),
        "refusedTicketTypes": seniors_refused() });
    let changed = sale
        .app
        .graphql_as(&platform, CHANGE, json!({ "input": input }))
        .await;
    assert!(changed.0.get("errors").is_none(), "{:#}", changed.0);
    (sale, platform)
}

async fn hold(sale: &Sale, key: &str, input: Value) -> crate::helpers::GqlResponse {
    let mut input = input;
    input["showtimeId"] = json!(sale.showtime);
    sale.app
        .graphql_as(key, HOLD, json!({ "input": input }))
        .await
}

fn priced_seats(held: &Value) -> Vec<(String, String, i64)> {
    held["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| {
            (
                seat["label"].as_str().unwrap().to_owned(),
                seat["ticketType"].as_str().unwrap().to_owned(),
                seat["price"]["amount"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn seat(label: &str, ticket_type: &str, amount: i64) -> (String, String, i64) {
    (label.to_owned(), ticket_type.to_owned(), amount)
}

#[tokio::test]
async fn each_seat_is_priced_by_kind_and_ticket_type_through_hold_order_and_sales() {
    let (sale, _) = priced_sale().await;
    let held = hold(
        &sale,
        &sale.maoyan,
        json!({ "seats": ["A1", "A2", "B1", "B2"],
            "ticketTypes": ["ADULT", "CHILD", "ADULT", "STUDENT"] }),
    )
    .await;
    let held = &held.data()["holdSeats"];
    assert_eq!(
        priced_seats(held),
        [
            seat("A1", "ADULT", 4000),
            seat("A2", "CHILD", 2800),
            seat("B1", "ADULT", 6000),
            seat("B2", "STUDENT", 3200),
        ]
    );
    assert_eq!(held["total"]["amount"], 16000);
    // One type for all, and the best-available search with types, on the other channel.
    let couple = hold(
        &sale,
        &sale.maoyan,
        json!({ "best": { "count": 2, "kind": "COUPLE" } }),
    )
    .await;
    let couple = &couple.data()["holdSeats"];
    assert_eq!(couple["total"]["amount"], 10000, "{couple}");
    let wechat = hold(
        &sale,
        &sale.wechat,
        json!({ "seats": ["A5"], "ticketType": "ADULT" }),
    )
    .await;
    assert_eq!(wechat.data()["holdSeats"]["total"]["amount"], 3800);

    let order = sale.confirm(&sale.maoyan, &held["id"]).await;
    let order = &order.data()["confirmHold"];
    assert_eq!(order["total"]["amount"], 16000);
    let seats: Vec<i64> = order["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| seat["price"]["amount"].as_i64().unwrap())
        .collect();
    assert_eq!(seats, [4000, 2800, 6000, 3200]);
    let read = sale
        .app
        .graphql_as(
            &sale.maoyan,
            "query ($id: ID!) { order(id: $id) { seats { label ticketType } } }",
            json!({ "id": order["id"] }),
        )
        .await;
    let types: Vec<&str> = read.data()["order"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| seat["ticketType"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["ADULT", "CHILD", "ADULT", "STUDENT"]);

    // The sales figures count what the order's seats cost, to the fen.
    sales::project_sales(&sale.app.store).await.unwrap();
    let sales = sale
        .app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { movie { sales { ticketsSold revenue { amount } } } } }",
            json!({ "id": sale.showtime }),
        )
        .await;
    assert_eq!(
        sales.data()["showtime"]["movie"]["sales"],
        json!({ "ticketsSold": 4, "revenue": { "amount": 16000 } })
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn the_matrix_and_one_price_are_readable_with_defaults_for_kind_and_type() {
    let (sale, _) = priced_sale().await;
    let query = "query ($id: ID!) { showtime(id: $id) {
        standard: price(channel: \"maoyan\") { amount }
        vip: price(channel: \"maoyan\", seatKind: VIP) { amount }
        vipChild: price(channel: \"maoyan\", seatKind: VIP, ticketType: \"CHILD\") { amount }
        student: price(channel: \"maoyan\", ticketType: \"STUDENT\") { amount }
        senior: price(channel: \"maoyan\", ticketType: \"SENIOR\") { amount }
        wechatVip: price(channel: \"wechat\", seatKind: VIP) { amount }
        prices { channel seatKind ticketType price { amount } }
        refusedTicketTypes { ticketType rule } } }";
    let read = sale
        .app
        .graphql(query, json!({ "id": sale.showtime }))
        .await;
    let showtime = &read.data()["showtime"];
    assert_eq!(showtime["standard"]["amount"], 4000);
    assert_eq!(showtime["vip"]["amount"], 6000);
    assert_eq!(
        showtime["vipChild"]["amount"], 2800,
        "the CHILD price of every kind"
    );
    assert_eq!(
        showtime["student"],
        Value::Null,
        "STUDENT is priced for VIP only"
    );
    assert_eq!(showtime["senior"], Value::Null, "refused");
    assert_eq!(showtime["wechatVip"]["amount"], 3800);
    assert_eq!(showtime["prices"].as_array().unwrap().len(), 6);
    assert_eq!(
        showtime["prices"][1],
        json!({ "channel": "maoyan", "seatKind": "VIP", "ticketType": "ADULT",
            "price": { "amount": 6000 } })
    );
    assert_eq!(showtime["prices"][0]["seatKind"], Value::Null);
    assert_eq!(showtime["refusedTicketTypes"], seniors_refused());
    let malformed = sale
        .app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { price(channel: \"maoyan\", ticketType: \"child\") { amount } } }",
            json!({ "id": sale.showtime }),
        )
        .await;
    assert_eq!(malformed.error_code(), "BAD_USER_INPUT");
}

#[tokio::test]
async fn refused_unknown_unsold_and_unpaired_seats_are_bad_input_and_change_nothing() {
    let (sale, _) = priced_sale().await;
    let before = sale.inventory().await;
    for (input, says) in [
        (
            json!({ "seats": ["A1"], "ticketType": "SENIOR" }),
            "no senior tickets for premieres",
        ),
        (
            json!({ "seats": ["A1"], "ticketType": "MEMBER" }),
            "unknown ticket type MEMBER",
        ),
        (
            json!({ "seats": ["A1"], "ticketType": "STUDENT" }),
            "A1 (Standard) has no STUDENT price",
        ),
        (
            json!({ "seats": ["A1"], "ticketType": "adult" }),
            "not a ticket type code",
        ),
        (
            json!({ "seats": ["A1", "A2"], "ticketTypes": ["ADULT"] }),
            "1 types for 2 seats",
        ),
        (
            json!({ "seats": ["A1"], "ticketType": "ADULT", "ticketTypes": ["ADULT"] }),
            "not both",
        ),
        (json!({ "seats": ["C2"] }), "C2 needs C1"),
        (json!({ "seats": ["C2", "C3"] }), "C2 needs C1"),
        (
            json!({ "best": { "count": 3, "kind": "COUPLE" } }),
            "no 3 adjacent",
        ),
    ] {
        let refused = hold(&sale, &sale.maoyan, input.clone()).await;
        let code = if says.starts_with("no 3") {
            "SEAT_UNAVAILABLE"
        } else {
            "BAD_USER_INPUT"
        };
        assert_eq!(refused.error_code(), code, "{input}: {:#}", refused.0);
        assert!(
            refused.error_message().contains(says),
            "{input}: {}",
            refused.error_message()
        );
    }
    let after = sale.inventory().await;
    assert_eq!(after.counts, before.counts);
    assert_eq!(after.version, before.version, "nothing was written");
    assert!(after.holds.is_empty());
}

#[tokio::test]
async fn a_matrix_naming_a_kind_the_hall_lacks_or_an_unknown_type_is_refused() {
    let (sale, platform) = priced_sale().await;
    let change = |prices: Value, rules: Value| {
        json!({ "input": { "showtimeId": sale.showtime, "prices": prices,
            "refusedTicketTypes": rules } })
    };
    let before = sale
        .app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { priceRevision } }",
            json!({ "id": sale.showtime }),
        )
        .await
        .data()["showtime"]["priceRevision"]
        .clone();
    for (variables, says) in [
        (
            change(
                json!([{ "channel": "maoyan", "seatKind": "WHEELCHAIR", "amount": 1 }]),
                json!([]),
            ),
            "the hall has no Wheelchair seats",
        ),
        (
            change(
                json!([{ "channel": "maoyan", "ticketType": "MEMBER", "amount": 1 }]),
                json!([]),
            ),
            "unknown ticket type MEMBER",
        ),
        (
            change(
                json!([{ "channel": "maoyan", "amount": 1 }, { "channel": "maoyan", "ticketType": "ADULT", "amount": 2 }]),
                json!([]),
            ),
            "more than one ADULT price",
        ),
        (
            change(
                json!([{ "channel": "maoyan", "amount": 1 }]),
                json!([{ "ticketType": "MEMBER", "rule": "x" }]),
            ),
            "unknown ticket type MEMBER",
        ),
    ] {
        let refused = sale
            .app
            .graphql_as(&platform, CHANGE, variables.clone())
            .await;
        assert_eq!(
            refused.error_code(),
            "BAD_USER_INPUT",
            "{variables}: {:#}",
            refused.0
        );
        assert!(
            refused.error_message().contains(says),
            "{}",
            refused.error_message()
        );
    }
    let after = sale
        .app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { priceRevision prices { ticketType } } }",
            json!({ "id": sale.showtime }),
        )
        .await;
    assert_eq!(
        after.data()["showtime"]["priceRevision"],
        before,
        "no revision was made"
    );
}

#[tokio::test]
async fn an_operators_own_type_can_be_priced_and_held_and_holds_keep_their_prices() {
    let (sale, platform) = priced_sale().await;
    let define = "mutation ($input: DefineTicketTypeInput!) { defineTicketType(input: $input) {
        code name builtIn definedBy } }";
    let input = json!({ "code": "MEMBER", "name": "会员票", "idempotencyKey": "member" });
    let defined = sale
        .app
        .graphql_as(&platform, define, json!({ "input": input }))
        .await;
    assert_eq!(
        defined.data()["defineTicketType"],
        json!({ "code": "MEMBER", "name": "会员票", "builtIn": false, "definedBy": "platform" })
    );
    let replay = sale
        .app
        .graphql_as(&platform, define, json!({ "input": input }))
        .await;
    assert_eq!(
        replay.data(),
        defined.data(),
        "a retry has the first answer"
    );
    for (code, says) in [
        ("MEMBER", "exists already"),
        ("CHILD", "built in"),
        ("member", "not a ticket type code"),
    ] {
        let again = json!({ "code": code, "name": "又一个" });
        let refused = sale
            .app
            .graphql_as(&platform, define, json!({ "input": again }))
            .await;
        assert_eq!(refused.error_code(), "BAD_USER_INPUT", "{code}");
        assert!(
            refused.error_message().contains(says),
            "{}",
            refused.error_message()
        );
    }
    let listed = sale
        .app
        .graphql("{ ticketTypes { code builtIn } }", json!({}))
        .await;
    let codes: Vec<&str> = listed.data()["ticketTypes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["ADULT", "CHILD", "STUDENT", "SENIOR", "MEMBER"]);

    let child = hold(
        &sale,
        &sale.maoyan,
        json!({ "seats": ["A3"], "ticketType": "CHILD" }),
    )
    .await;
    let child = child.data()["holdSeats"].clone();
    let mut prices = matrix();
    prices
        .as_array_mut()
        .unwrap()
        .extend([json!({ "channel": "maoyan", "ticketType": "MEMBER", "amount": 3000 })]);
    prices[3]["amount"] = json!(1000);
    let change = json!({ "input": { "showtimeId": sale.showtime, "prices": prices } });
    let changed = sale.app.graphql_as(&platform, CHANGE, change).await;
    assert_eq!(
        changed.data()["changeShowtimePrices"]["refusedTicketTypes"],
        json!([])
    );
    let member = hold(
        &sale,
        &sale.maoyan,
        json!({ "seats": ["A4"], "ticketType": "MEMBER" }),
    )
    .await;
    assert_eq!(member.data()["holdSeats"]["total"]["amount"], 3000);
    let senior = hold(
        &sale,
        &sale.maoyan,
        json!({ "seats": ["A5"], "ticketType": "SENIOR" }),
    )
    .await;
    assert_eq!(
        senior.error_code(),
        "BAD_USER_INPUT",
        "no rule now, and no SENIOR price"
    );
    // The CHILD hold placed before the change keeps its price; one placed after takes the new.
    let order = sale.confirm(&sale.maoyan, &child["id"]).await;
    assert_eq!(order.data()["confirmHold"]["total"]["amount"], 2800);
    let later = hold(
        &sale,
        &sale.maoyan,
        json!({ "seats": ["A6"], "ticketType": "CHILD" }),
    )
    .await;
    assert_eq!(later.data()["holdSeats"]["total"]["amount"], 1000);
}

/// Seed 000's two questions stay one index lookup each with the matrix: a showtime's price for
/// a channel, kind and type reads the one showtime by `_id`; a channel's showtimes are read
/// through the multikey `channel_starts`, one document per showtime it sells.
#[tokio::test]
async fn a_price_is_one_document_by_id_and_a_channels_showtimes_one_multikey_index_scan() {
    let (sale, _) = priced_sale().await;
    let mut catalogue = crate::fixtures::Catalogue::default();
    for i in 0..20 {
        let cinema = catalogue.cinema(&format!("别的影城{i}"), "北京", 39.9, 116.4);
        let hall = catalogue.hall(&cinema, "2号厅", &["SSSSSS"]);
        let movie = catalogue.movie(&format!("别的电影{i}"), &["喜剧"]);
        let channel = if i < 5 { "wechat" } else { "maoyan" };
        catalogue.showtime(&cinema, &hall, &movie, 3 + i as i64, &[(channel, 4500)]);
    }
    catalogue.insert(&sale.app).await;
    let explained = |query: &'static str| {
        let sale = &sale;
        async move {
            sale.app.store.commands().start();
            let read = sale
                .app
                .graphql(query, json!({ "id": sale.showtime }))
                .await;
            assert!(read.0.get("errors").is_none(), "{:#}", read.0);
            let sent = sale.app.store.commands().take();
            let mut plans = Vec::new();
            for command in &sent {
                plans.extend(sale.app.store.plan_of(command).await.unwrap());
            }
            (read, plans)
        }
    };
    let (read, plans) = explained(
        "query ($id: ID!) { showtime(id: $id) {
            price(channel: \"maoyan\", seatKind: VIP, ticketType: \"CHILD\") { amount } } }",
    )
    .await;
    assert_eq!(read.data()["showtime"]["price"]["amount"], 2800);
    assert_eq!(plans.len(), 1, "one find: {plans:?}");
    assert!(!plans[0].collection_scan, "{}", plans[0].winning_plan);
    assert_eq!(plans[0].docs_examined, 1, "{}", plans[0].winning_plan);

    let (read, plans) = explained(
        "query { showtimes(first: 50, filter: { channel: \"wechat\" }) { edges { node {
            price(channel: \"wechat\", seatKind: VIP) { amount } } } } }",
    )
    .await;
    let edges = read.data()["showtimes"]["edges"].as_array().unwrap().len();
    assert_eq!(edges, 6, "the sale's showtime and five others");
    assert_eq!(plans.len(), 1, "{plans:?}");
    assert!(
        plans[0].winning_plan.contains("channel_starts") && !plans[0].collection_scan,
        "{}",
        plans[0].winning_plan
    );
    assert_eq!(plans[0].docs_examined, 6, "{}", plans[0].winning_plan);
}

/// Ticket types cost no command: a hold asking for them sends what any hold sends.
#[tokio::test]
async fn a_hold_with_ticket_types_sends_the_commands_of_any_hold() {
    let (sale, _) = priced_sale().await;
    let input =
        json!({ "seats": ["A1", "A2", "B1"], "ticketTypes": ["ADULT", "CHILD", "STUDENT"] });
    // The key is looked up once, then remembered.
    sale.app
        .graphql_as(&sale.maoyan, "{ __typename }", json!({}))
        .await;
    sale.app.store.commands().start();
    let held = hold(&sale, &sale.maoyan, input).await;
    let mut sent: Vec<String> = sale
        .app
        .store
        .commands()
        .take()
        .iter()
        .map(|command| {
            format!(
                "{} {}",
                command.name,
                command.collection.as_deref().unwrap_or("")
            )
        })
        .collect();
    sent.sort();
    assert_eq!(
        held.data()["holdSeats"]["total"]["amount"],
        4000 + 2800 + 3200
    );
    assert_eq!(
        sent,
        [
            "find seat_inventory",
            "find showtimes",
            "findAndModify seat_inventory",
        ]
    );
}

/// 48 buyers on two gateways race for overlapping seats of the priced hall, each seat as a
/// ticket type of its own, and confirm what they got. Every seat is sold once, at the matrix's
/// price for its kind and type; every order's total is its seats' sum; the sales figures are
/// the sum of the orders, to the fen.
#[tokio::test]
async fn racing_priced_holds_sell_each_seat_once_at_its_price_and_the_figures_agree() {
    let (sale, _) = priced_sale().await;
    let other = sale.app.another_gateway().await;
    let sale = std::sync::Arc::new(sale);
    let other = std::sync::Arc::new(other);
    let price = |label: &str, ticket_type: &str| match (&label[..1], ticket_type) {
        ("A", "ADULT") => 4000,
        ("A", "CHILD") | ("B", "CHILD") => 2800,
        ("B", "ADULT") => 6000,
        ("B", "STUDENT") => 3200,
        ("C", "ADULT") => 5000,
        ("C", "CHILD") => 2800,
        other => panic!("no price for {other:?}"),
    };
    let tasks: Vec<_> = (0..48)
        .map(|task| {
            let (sale, other) = (sale.clone(), other.clone());
            tokio::spawn(async move {
                // Seats that collide often: pairs of a row, each buyer's own mix of types.
                let (seats, types): (Vec<String>, Vec<&str>) = match task % 3 {
                    0 => {
                        let n = task % 5 + 1;
                        (
                            vec![format!("A{n}"), format!("A{}", n + 1)],
                            vec!["ADULT", "CHILD"],
                        )
                    }
                    1 => {
                        let n = task % 3 + 1;
                        (
                            vec![format!("B{n}"), format!("B{}", n + 1)],
                            vec!["STUDENT", "ADULT"],
                        )
                    }
                    _ => {
                        let n = if task % 2 == 0 { 1 } else { 3 };
                        (
                            vec![format!("C{n}"), format!("C{}", n + 1)],
                            vec!["ADULT", "CHILD"],
                        )
                    }
                };
                let app = if task % 2 == 0 { &sale.app } else { &*other };
                let input = json!({ "showtimeId": sale.showtime, "seats": seats,
                    "ticketTypes": types, "idempotencyKey": format!("hold-{task}") });
                let held = app
                    .graphql_as(&sale.maoyan, HOLD, json!({ "input": input }))
                    .await;
                if held.0.get("errors").is_some() {
                    assert_eq!(held.error_code(), "SEAT_UNAVAILABLE", "{:#}", held.0);
                    return None;
                }
                let order = sale
                    .confirm(&sale.maoyan, &held.data()["holdSeats"]["id"])
                    .await;
                Some(order.data()["confirmHold"].clone())
            })
        })
        .collect();
    let mut orders = Vec::new();
    for task in tasks {
        orders.extend(task.await.unwrap());
    }
    assert!(orders.len() >= 4, "some buyers won: {}", orders.len());
    let mut sold = std::collections::HashSet::new();
    let mut revenue = 0;
    for order in &orders {
        let read = sale
            .app
            .graphql_as(
                &sale.maoyan,
                "query ($id: ID!) { order(id: $id) { total { amount } seats { label ticketType price { amount } } } }",
                json!({ "id": order["id"] }),
            )
            .await;
        let order = &read.data()["order"];
        let mut sum = 0;
        for seat in order["seats"].as_array().unwrap() {
            let label = seat["label"].as_str().unwrap();
            assert!(sold.insert(label.to_owned()), "{label} sold twice");
            let amount = seat["price"]["amount"].as_i64().unwrap();
            assert_eq!(
                amount,
                price(label, seat["ticketType"].as_str().unwrap()),
                "{seat}"
            );
            sum += amount;
        }
        assert_eq!(order["total"]["amount"], sum, "the total is its seats' sum");
        revenue += sum;
    }
    sale.check_invariants().await;
    sale.check_orders_agree_with_seats().await;
    sales::project_sales(&sale.app.store).await.unwrap();
    let sales = sale
        .app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { movie { sales { ticketsSold orders revenue { amount } } } } }",
            json!({ "id": sale.showtime }),
        )
        .await;
    assert_eq!(
        sales.data()["showtime"]["movie"]["sales"],
        json!({ "ticketsSold": sold.len(), "orders": orders.len(), "revenue": { "amount": revenue } })
    );
}
