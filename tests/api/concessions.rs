//! Concessions: a cinema's products, made by its operators, held beside seats with their
//! stock reserved per hold (never oversold, given back once by a release, an expiry or a
//! refund), sold as product lines of a polymorphic order, collected once at the counter with
//! the pickup code, and counted apart in the sales figures.

use std::sync::Arc;

use boxoffice::config::BookingArgs;
use boxoffice::store::CrashPoint;
use bson::doc;
use serde_json::{json, Value};

use crate::admissions::{door, operator, starting_in};
use crate::catalogue_faults::database;
use crate::helpers::{mongodb_uri, GqlResponse};
use crate::sale::{sale, sale_in_hall, Sale};

pub const CREATE: &str = "mutation ($input: CreateProductInput!) { createProduct(input: $input) {
    id cinemaId name price { amount currency } stock sold soldFrom soldUntil onSale retired } }";
const UPDATE: &str = "mutation ($input: UpdateProductInput!) { updateProduct(input: $input) {
    id name price { amount } stock sold onSale retired } }";
const PRODUCTS: &str = "query ($cinema: ID!) { node(id: $cinema) { ... on Cinema {
    products(first: 50) { edges { node { id name price { amount } stock sold onSale } } } } } }";
pub const HOLD: &str = "mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) {
    id total { amount } seats { label } items { productId name quantity unitPrice { amount }
    amount { amount } } } }";
const CONFIRM: &str = "mutation ($hold: ID!) { confirmHold(input: { holdId: $hold,
    customer: { name: \"张三\", contact: \"13800000000\" } }) { id status total { amount }
    pickupCode itemsCollectedAt
    items { productId quantity amount { amount } status }
    lines { __typename ... on OrderSeat { label status } ... on OrderItem { name quantity status } } } }";
const CANCEL: &str = "mutation ($order: ID!, $seats: [String!], $items: [ID!], $key: String) {
    cancelOrder(orderId: $order, seats: $seats, items: $items, idempotencyKey: $key) {
    status total { amount } refunded { amount } net { amount }
    items { productId status } seats { label status }
    refunds { amount { amount } fee { amount } seats { label } items { productId quantity amount { amount } } } } }";
const ORDER: &str = "query ($id: ID!) { order(id: $id) { status net { amount } itemsCollectedAt
    items { productId status } } }";
const COLLECT: &str = "mutation ($code: String!, $key: String) {
    collectItems(input: { pickupCode: $code, idempotencyKey: $key }) {
    orderId collectedAt door items { productId name quantity } } }";
const SALES: &str = "query ($id: ID!) { showtime(id: $id) { movie { sales {
    ticketsSold orders revenue { amount } ticketRevenue { amount } itemsSold
    concessionRevenue { amount } } } } }";

/// Makes a product of the sale's cinema as `operator`: `price` fen, `stock` units (none
/// kept when `None`). Returns its id.
pub async fn product(
    sale: &Sale,
    operator: &str,
    name: &str,
    price: i64,
    stock: Option<i64>,
) -> String {
    let mut input = json!({ "cinemaId": sale.cinema, "name": name, "price": price });
    if let Some(stock) = stock {
        input["stock"] = json!(stock);
    }
    let made = sale
        .app
        .graphql_as(operator, CREATE, json!({ "input": input }))
        .await;
    made.data()["createProduct"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// (stock, sold, stock entries in flight) of product `id`, read from the database.
pub async fn stock_of(sale: &Sale, id: &str) -> (Option<i64>, i64, usize) {
    let db = database(&mongodb_uri(), &sale.app).await;
    let oid = oid_of(id, "Product");
    let found = db
        .collection::<bson::Document>("products")
        .find_one(doc! { "_id": oid })
        .await
        .unwrap()
        .expect("the product");
    (
        found.get_i64("stock").ok(),
        found.get_i64("sold").unwrap(),
        found.get_array("pending").map_or(0, |p| p.len()),
    )
}

fn oid_of(global: &str, kind: &str) -> bson::oid::ObjectId {
    use base64::Engine;
    let text = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(global)
        .unwrap();
    let text = String::from_utf8(text).unwrap();
    let hex = text.strip_prefix(&format!("{kind}:")).expect("the kind");
    bson::oid::ObjectId::parse_str(hex).unwrap()
}

/// Holds `seats` and `items` ([(product, quantity)]) as channel `key`.
pub async fn hold_items(
    sale: &Sale,
    key: &str,
    seats: &[&str],
    items: &[(&str, i64)],
) -> GqlResponse {
    let items: Vec<Value> = items
        .iter()
        .map(|(product, quantity)| json!({ "productId": product, "quantity": quantity }))
        .collect();
    let input = json!({ "showtimeId": sale.showtime, "seats": seats, "items": items });
    sale.app
        .graphql_as(key, HOLD, json!({ "input": input }))
        .await
}

/// Holds and confirms `seats` and `items` as maoyan; the order.
pub async fn order_items(sale: &Sale, seats: &[&str], items: &[(&str, i64)]) -> Value {
    let held = hold_items(sale, &sale.maoyan, seats, items).await;
    let hold = held.data()["holdSeats"]["id"].clone();
    let confirmed = sale
        .app
        .graphql_as(&sale.maoyan, CONFIRM, json!({ "hold": hold }))
        .await;
    confirmed.data()["confirmHold"].clone()
}

async fn cancel(
    sale: &Sale,
    order: &Value,
    seats: Option<&[&str]>,
    items: Option<&[&str]>,
    key: Option<&str>,
) -> GqlResponse {
    sale.app
        .graphql_as(
            &sale.maoyan,
            CANCEL,
            json!({ "order": order["id"], "seats": seats, "items": items, "key": key }),
        )
        .await
}

async fn collect(sale: &Sale, door_key: &str, code: &str, key: Option<&str>) -> GqlResponse {
    sale.app
        .graphql_as(door_key, COLLECT, json!({ "code": code, "key": key }))
        .await
}

async fn sales(sale: &Sale) -> Value {
    boxoffice::sales::project_sales(&sale.app.store)
        .await
        .unwrap();
    let read = sale
        .app
        .graphql(SALES, json!({ "id": sale.showtime }))
        .await;
    read.data()["showtime"]["movie"]["sales"].clone()
}

fn amount(value: &Value) -> i64 {
    value["amount"].as_i64().unwrap()
}

#[tokio::test]
async fn a_cinemas_operators_make_and_change_its_products_and_bad_input_makes_nothing() {
    let sale = sale().await;
    let wanda = operator(&sale).await;
    let made = sale
        .app
        .graphql_as(
            &wanda,
            CREATE,
            json!({ "input": { "cinemaId": sale.cinema, "name": "爆米花套餐", "price": 3_500,
                "stock": 100, "idempotencyKey": "popcorn-1" } }),
        )
        .await;
    let popcorn = made.data()["createProduct"].clone();
    assert_eq!(
        popcorn["price"],
        json!({ "amount": 3_500, "currency": "CNY" })
    );
    assert_eq!(
        (popcorn["stock"].as_i64(), popcorn["onSale"].as_bool()),
        (Some(100), Some(true))
    );
    // A retry of the key is the same product.
    let again = sale
        .app
        .graphql_as(
            &wanda,
            CREATE,
            json!({ "input": { "cinemaId": sale.cinema, "name": "爆米花套餐", "price": 3_500,
                "stock": 100, "idempotencyKey": "popcorn-1" } }),
        )
        .await;
    assert_eq!(again.data()["createProduct"]["id"], popcorn["id"]);
    let cola = product(&sale, &wanda, "可乐", 1_200, None).await;

    // Bad input: each refused with a code, nothing made.
    let other_chain = sale.app.operator_key("cgv", Some(&[])).await;
    for (key, input, code) in [
        (
            &wanda,
            json!({ "cinemaId": sale.cinema, "name": "", "price": 1 }),
            "BAD_USER_INPUT",
        ),
        (
            &wanda,
            json!({ "cinemaId": sale.cinema, "name": "x".repeat(61), "price": 1 }),
            "BAD_USER_INPUT",
        ),
        (
            &wanda,
            json!({ "cinemaId": sale.cinema, "name": "贵", "price": 1_000_001 }),
            "BAD_USER_INPUT",
        ),
        (
            &wanda,
            json!({ "cinemaId": sale.cinema, "name": "负", "price": -1 }),
            "BAD_USER_INPUT",
        ),
        (
            &wanda,
            json!({ "cinemaId": sale.cinema, "name": "多", "price": 1, "stock": 1_000_001 }),
            "BAD_USER_INPUT",
        ),
        (
            &wanda,
            json!({ "cinemaId": sale.cinema, "name": "反", "price": 1,
            "soldFrom": "2026-12-02T00:00:00Z", "soldUntil": "2026-12-01T00:00:00Z" }),
            "BAD_USER_INPUT",
        ),
        (
            &wanda,
            json!({ "cinemaId": sale.showtime, "name": "错", "price": 1 }),
            "BAD_USER_INPUT",
        ),
        (
            &other_chain,
            json!({ "cinemaId": sale.cinema, "name": "他", "price": 1 }),
            "FORBIDDEN",
        ),
        (
            &sale.maoyan,
            json!({ "cinemaId": sale.cinema, "name": "渠道", "price": 1 }),
            "FORBIDDEN",
        ),
    ] {
        let refused = sale
            .app
            .graphql_as(key, CREATE, json!({ "input": input }))
            .await;
        assert_eq!(refused.error_code(), code, "{input}: {:#}", refused.0);
    }
    let listed = sale
        .app
        .graphql(PRODUCTS, json!({ "cinema": sale.cinema }))
        .await;
    let listed = crate::helpers::nodes(&listed.data()["node"]["products"]);
    let names: Vec<&str> = listed.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["爆米花套餐", "可乐"]);

    // Changes: price, stock added and taken (never below none), retired.
    let update = |input: Value| {
        let (app, wanda) = (&sale.app, &wanda);
        async move {
            app.graphql_as(wanda, UPDATE, json!({ "input": input }))
                .await
        }
    };
    let id = popcorn["id"].as_str().unwrap();
    let changed = update(json!({ "productId": id, "price": 3_800, "addStock": -30 })).await;
    let changed = &changed.data()["updateProduct"];
    assert_eq!(
        (amount(&changed["price"]), changed["stock"].as_i64()),
        (3_800, Some(70))
    );
    let too_many = update(json!({ "productId": id, "addStock": -71 })).await;
    assert_eq!(too_many.error_code(), "BAD_USER_INPUT");
    assert_eq!(stock_of(&sale, id).await.0, Some(70));
    let unstocked = update(json!({ "productId": cola, "addStock": 5 })).await;
    assert_eq!(unstocked.error_code(), "BAD_USER_INPUT");
    assert_eq!(stock_of(&sale, &cola).await.0, None);
    let zero = update(json!({ "productId": id, "addStock": 0 })).await;
    assert_eq!(zero.error_code(), "BAD_USER_INPUT");
    let retired = update(json!({ "productId": cola, "retired": true })).await;
    assert_eq!(retired.data()["updateProduct"]["onSale"], false);
    let forbidden = sale
        .app
        .graphql_as(
            &other_chain,
            UPDATE,
            json!({ "input": { "productId": id, "price": 1 } }),
        )
        .await;
    assert_eq!(forbidden.error_code(), "FORBIDDEN");
    // Audited: the making once (the retry made nothing), and each change that wrote.
    let db = database(&mongodb_uri(), &sale.app).await;
    let audited = |operation: &'static str| {
        let db = db.clone();
        async move {
            db.collection::<bson::Document>("audit_log")
                .count_documents(doc! { "operation": operation })
                .await
                .unwrap()
        }
    };
    assert_eq!(audited("createProduct").await, 2);
    assert_eq!(audited("updateProduct").await, 2);
}

#[tokio::test]
async fn products_are_held_beside_seats_sold_as_order_lines_and_counted_apart() {
    let sale = sale().await;
    let wanda = operator(&sale).await;
    let popcorn = product(&sale, &wanda, "爆米花", 2_500, Some(10)).await;
    let cola = product(&sale, &wanda, "可乐", 1_200, None).await;
    let held = hold_items(
        &sale,
        &sale.maoyan,
        &["A1", "A2"],
        &[(&popcorn, 2), (&cola, 1)],
    )
    .await;
    let hold = held.data()["holdSeats"].clone();
    // Seats ¥40 each on maoyan, 2 × ¥25, 1 × ¥12.
    assert_eq!(amount(&hold["total"]), 8_000 + 5_000 + 1_200);
    assert_eq!(hold["items"][0]["quantity"], 2);
    assert_eq!(amount(&hold["items"][0]["amount"]), 5_000);
    assert_eq!(
        stock_of(&sale, &popcorn).await,
        (Some(8), 0, 1),
        "reserved by the hold"
    );
    let confirmed = sale
        .app
        .graphql_as(&sale.maoyan, CONFIRM, json!({ "hold": hold["id"] }))
        .await;
    let order = confirmed.data()["confirmHold"].clone();
    assert_eq!(amount(&order["total"]), 14_200);
    let kinds: Vec<&str> = (order["lines"].as_array().unwrap().iter())
        .map(|line| line["__typename"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["OrderSeat", "OrderSeat", "OrderItem", "OrderItem"]);
    assert_eq!(order["items"][0]["status"], "SOLD");
    assert_eq!(order["pickupCode"].as_str().unwrap().len(), 10);
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(8), 2, 0), "sold");
    // The order's pickup code is stored nowhere, only its keyed hash.
    let db = database(&mongodb_uri(), &sale.app).await;
    let stored = db
        .collection::<bson::Document>("orders")
        .find_one(doc! {})
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.get_i32("schemaVersion").unwrap(), 2);
    assert!(!stored
        .to_string()
        .contains(order["pickupCode"].as_str().unwrap()));
    assert!(stored.get_str("pickupKey").is_ok());

    let figures = sales(&sale).await;
    assert_eq!(figures["ticketsSold"], 2);
    assert_eq!(figures["itemsSold"], 3);
    assert_eq!(amount(&figures["revenue"]), 14_200);
    assert_eq!(amount(&figures["ticketRevenue"]), 8_000);
    assert_eq!(amount(&figures["concessionRevenue"]), 6_200);

    // A refund of one product line: in full, back in stock, counted out of the figures.
    let refunded = cancel(&sale, &order, None, Some(&[&popcorn]), Some("pop-back")).await;
    let refunded = refunded.data()["cancelOrder"].clone();
    assert_eq!(refunded["status"], "CONFIRMED");
    assert_eq!(amount(&refunded["refunded"]), 5_000);
    assert_eq!(refunded["refunds"][0]["items"][0]["quantity"], 2);
    assert_eq!(amount(&refunded["refunds"][0]["fee"]), 0);
    assert_eq!(refunded["items"][0]["status"], "CANCELLED");
    assert_eq!(
        stock_of(&sale, &popcorn).await,
        (Some(10), 0, 1),
        "returned once"
    );
    // Its retry returns nothing more.
    let retried = cancel(&sale, &order, None, Some(&[&popcorn]), Some("pop-back")).await;
    assert_eq!(
        retried.data()["cancelOrder"]["refunds"],
        refunded["refunds"]
    );
    assert_eq!(stock_of(&sale, &popcorn).await.0, Some(10));
    // The channel is told of the refund once (its retry tells nothing), and no seat moved.
    crate::events::log_of(&sale.app, &sale.maoyan, 3).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let log = crate::events::read_log(&sale.app, &sale.maoyan, None).await;
    let kinds: Vec<&str> = log.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["HOLD_PLACED", "ORDER_CONFIRMED", "ORDER_REFUNDED"]);
    assert_eq!(log[2]["refund"]["amount"]["amount"], 5_000);
    assert_eq!(sale.inventory().await.counts.sold, 2, "its seats stay sold");
    // Once the refund is settled its return is dropped (the reconciler, past the grace).
    let later = boxoffice::store::now() + chrono::Duration::hours(1);
    boxoffice::concessions::settle_stock(
        &sale.app.store,
        boxoffice::assembly::stock_reconciler(),
        later,
    )
    .await
    .unwrap();
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(10), 0, 0));
    // A line refunded already, and one not in the order, are refused.
    let twice = cancel(&sale, &order, None, Some(&[&popcorn]), None).await;
    assert_eq!(twice.error_code(), "BAD_USER_INPUT");
    let other = product(&sale, &wanda, "矿泉水", 500, None).await;
    let foreign = cancel(&sale, &order, None, Some(&[&other]), None).await;
    assert_eq!(foreign.error_code(), "BAD_USER_INPUT");

    let figures = sales(&sale).await;
    assert_eq!(
        (
            figures["ticketsSold"].as_i64(),
            figures["itemsSold"].as_i64()
        ),
        (Some(2), Some(1))
    );
    assert_eq!(amount(&figures["revenue"]), 9_200);
    assert_eq!(amount(&figures["concessionRevenue"]), 1_200);
    // The whole rest: seats and the cola; the order's net and the figures agree.
    let rest = cancel(&sale, &order, None, None, None).await;
    let rest = rest.data()["cancelOrder"].clone();
    assert_eq!(rest["status"], "CANCELLED");
    assert_eq!(amount(&rest["net"]), 0);
    let figures = sales(&sale).await;
    assert_eq!(amount(&figures["revenue"]), 0);
    assert_eq!(
        (figures["itemsSold"].as_i64(), figures["orders"].as_i64()),
        (Some(0), Some(0))
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn what_a_hold_asks_for_is_checked_and_a_refused_hold_takes_no_stock() {
    let sale = sale().await;
    let wanda = operator(&sale).await;
    let popcorn = product(&sale, &wanda, "爆米花", 2_500, Some(3)).await;
    let retired = product(&sale, &wanda, "旧款", 100, None).await;
    sale.app
        .graphql_as(
            &wanda,
            UPDATE,
            json!({ "input": { "productId": retired, "retired": true } }),
        )
        .await
        .data();
    // Another cinema's product.
    let platform = sale.app.operator_key("platform", None).await;
    let mut catalogue = crate::fixtures::Catalogue::default();
    let elsewhere = catalogue.cinema("别的影城", "北京", 39.9, 116.4);
    catalogue.insert(&sale.app).await;
    let elsewhere = crate::fixtures::global_id("Cinema", elsewhere.id);
    let made = sale
        .app
        .graphql_as(
            &platform,
            CREATE,
            json!({ "input": { "cinemaId": elsewhere, "name": "外", "price": 1 } }),
        )
        .await;
    let foreign = made.data()["createProduct"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let unknown = crate::fixtures::global_id("Product", bson::oid::ObjectId::new());
    let mut eleven = Vec::new();
    for i in 0..11 {
        eleven.push(product(&sale, &wanda, &format!("小食{i}"), 100, None).await);
    }
    let eleven: Vec<(&str, i64)> = eleven.iter().map(|id| (id.as_str(), 1)).collect();
    for (items, code) in [
        (vec![(popcorn.as_str(), 0)], "BAD_USER_INPUT"),
        (vec![(popcorn.as_str(), 21)], "BAD_USER_INPUT"),
        (
            vec![(popcorn.as_str(), 1), (popcorn.as_str(), 1)],
            "BAD_USER_INPUT",
        ),
        (eleven.clone(), "BAD_USER_INPUT"),
        (vec![(sale.showtime.as_str(), 1)], "BAD_USER_INPUT"),
        (vec![(retired.as_str(), 1)], "BAD_USER_INPUT"),
        (vec![(foreign.as_str(), 1)], "BAD_USER_INPUT"),
        (vec![(unknown.as_str(), 1)], "NOT_FOUND"),
        (vec![(popcorn.as_str(), 4)], "SOLD_OUT"),
    ] {
        let refused = hold_items(&sale, &sale.maoyan, &["A1"], &items).await;
        assert_eq!(refused.error_code(), code, "{items:?}: {:#}", refused.0);
        if code == "SOLD_OUT" {
            assert_eq!(
                refused.errors()[0]["extensions"]["product"],
                popcorn.as_str()
            );
        }
    }
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(3), 0, 0));
    assert!(
        sale.inventory().await.holds.is_empty(),
        "no hold was placed"
    );
    // A hold whose seats are taken gives the units it reserved back.
    sale.hold(&sale.wechat, &["A2"]).await.data();
    let taken = hold_items(&sale, &sale.maoyan, &["A2"], &[(&popcorn, 2)]).await;
    assert_eq!(taken.error_code(), "SEAT_UNAVAILABLE");
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(3), 0, 0));
    // Best seats with products.
    let best = sale
        .app
        .graphql_as(
            &sale.maoyan,
            HOLD,
            json!({ "input": { "showtimeId": sale.showtime, "best": { "count": 2 },
                "items": [{ "productId": popcorn, "quantity": 3 }] } }),
        )
        .await;
    assert_eq!(best.data()["holdSeats"]["items"][0]["quantity"], 3);
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(0), 0, 1));
}

#[tokio::test]
async fn stock_is_never_oversold_when_64_holds_race_on_two_gateways() {
    let rows = ["SSSSSSSSSS"; 8];
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &rows).await);
    let other = Arc::new(sale.app.another_gateway().await);
    let wanda = operator(&sale).await;
    let popcorn = Arc::new(product(&sale, &wanda, "限量杯", 6_800, Some(10)).await);
    let tasks: Vec<_> = (0..64)
        .map(|i| {
            let (sale, other, popcorn) =
                (Arc::clone(&sale), Arc::clone(&other), Arc::clone(&popcorn));
            tokio::spawn(async move {
                let seat = format!("{}{}", (b'A' + (i / 10) as u8) as char, i % 10 + 1);
                let items = json!([{ "productId": *popcorn, "quantity": 1 }]);
                let input = json!({ "showtimeId": sale.showtime, "seats": [seat], "items": items });
                let gateway = if i % 2 == 0 { &sale.app } else { &*other };
                let key = sale.key_of_client(i / 2).to_owned();
                let response = gateway
                    .graphql_as(&key, HOLD, json!({ "input": input }))
                    .await;
                (key, response)
            })
        })
        .collect();
    let mut held = Vec::new();
    for task in tasks {
        let (key, response) = task.await.unwrap();
        match response.0.get("errors") {
            None => held.push((key, response.data()["holdSeats"]["id"].clone())),
            Some(_) => {
                assert_eq!(response.error_code(), "SOLD_OUT", "{:#}", response.0);
            }
        }
    }
    assert_eq!(held.len(), 10, "exactly the stock");
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(0), 0, 10));
    assert_eq!(sale.inventory().await.holds.len(), 10);
    // Half released, half confirmed: the released units come back, the sold ones are sold.
    let mut orders = Vec::new();
    for (i, (key, hold)) in held.iter().enumerate() {
        if i % 2 == 0 {
            sale.app
                .graphql_as(
                    key,
                    "mutation ($id: ID!) { releaseHold(holdId: $id) }",
                    json!({ "id": hold }),
                )
                .await
                .data();
        } else {
            let confirmed = sale
                .app
                .graphql_as(key, CONFIRM, json!({ "hold": hold }))
                .await;
            orders.push(confirmed.data()["confirmHold"].clone());
        }
    }
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(5), 5, 0));
    let figures = sales(&sale).await;
    let paid: i64 = orders.iter().map(|o| amount(&o["total"])).sum();
    assert_eq!(
        amount(&figures["revenue"]),
        paid,
        "the orders' sum, to the fen"
    );
    assert_eq!(amount(&figures["concessionRevenue"]), 5 * 6_800);
    assert_eq!(figures["itemsSold"], 5);
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_hold_crashed_after_reserving_stock_is_fenced_and_its_units_given_back() {
    let sale = sale().await;
    let wanda = operator(&sale).await;
    let popcorn = product(&sale, &wanda, "爆米花", 2_500, Some(5)).await;
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::HoldAfterStockReserved);
    let crashed = hold_items(&sale, &sale.maoyan, &["A1"], &[(&popcorn, 2)]).await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    assert_eq!(
        stock_of(&sale, &popcorn).await,
        (Some(3), 0, 1),
        "left reserved"
    );
    let store = &sale.app.store;
    let now = boxoffice::store::now();
    assert_eq!(
        boxoffice::concessions::settle_stock(store, boxoffice::assembly::stock_reconciler(), now)
            .await
            .unwrap(),
        0,
        "not due before the hold would expire"
    );
    let due = now + chrono::Duration::hours(1);
    assert_eq!(
        boxoffice::concessions::settle_stock(store, boxoffice::assembly::stock_reconciler(), due)
            .await
            .unwrap(),
        1
    );
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(5), 0, 0));
    assert_eq!(
        sale.inventory().await.fenced_holds.len(),
        1,
        "never to be placed"
    );
    // A live hold's entry is left; a confirmation whose stock write was lost is sold.
    let live = hold_items(&sale, &sale.maoyan, &["A2"], &[(&popcorn, 1)]).await;
    live.data();
    let held = hold_items(&sale, &sale.maoyan, &["A3"], &[(&popcorn, 1)]).await;
    let hold = held.data()["holdSeats"]["id"].clone();
    sale.app
        .store
        .faults()
        .crash_next_at(CrashPoint::ConfirmAfterSell);
    let crashed = sale
        .app
        .graphql_as(&sale.maoyan, CONFIRM, json!({ "hold": hold }))
        .await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    boxoffice::orders::settle_orders(store, std::time::Duration::ZERO)
        .await
        .unwrap();
    boxoffice::concessions::settle_stock(store, boxoffice::assembly::stock_reconciler(), due)
        .await
        .unwrap();
    assert_eq!(
        stock_of(&sale, &popcorn).await,
        (Some(3), 1, 1),
        "one sold, one live"
    );
}

#[tokio::test]
async fn expiry_by_the_sweeper_gives_the_units_back_once() {
    let policy = boxoffice::holds::rules::HoldPolicy {
        ttl: std::time::Duration::from_millis(300),
        ..BookingArgs::default().hold_policy()
    };
    let sale = crate::sale::sale_with(policy).await;
    let wanda = operator(&sale).await;
    let popcorn = product(&sale, &wanda, "爆米花", 2_500, Some(5)).await;
    hold_items(&sale, &sale.maoyan, &["A1"], &[(&popcorn, 2)])
        .await
        .data();
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(3), 0, 1));
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    boxoffice::holds::sweep_expired_holds(&sale.app.store, &boxoffice::assembly::hold_endings())
        .await
        .unwrap();
    boxoffice::holds::sweep_expired_holds(&sale.app.store, &boxoffice::assembly::hold_endings())
        .await
        .unwrap();
    let due = boxoffice::store::now() + chrono::Duration::hours(1);
    boxoffice::concessions::settle_stock(
        &sale.app.store,
        boxoffice::assembly::stock_reconciler(),
        due,
    )
    .await
    .unwrap();
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(5), 0, 0));
}

#[tokio::test]
async fn products_are_collected_once_with_the_pickup_code_and_then_never_refunded() {
    let sale = sale().await;
    starting_in(&sale, 30).await;
    let wanda = operator(&sale).await;
    let popcorn = product(&sale, &wanda, "爆米花", 2_500, Some(5)).await;
    let cola = product(&sale, &wanda, "可乐", 1_200, None).await;
    let order = order_items(&sale, &["A1", "A2"], &[(&popcorn, 1), (&cola, 2)]).await;
    let code = order["pickupCode"].as_str().unwrap().to_owned();
    let counter = door(&sale, &wanda, "小卖部").await;
    let north = door(&sale, &wanda, "North").await;
    for (bad, says) in [("ABC", "BAD_USER_INPUT"), ("0000000000", "NOT_FOUND")] {
        let refused = collect(&sale, &counter.key, bad, None).await;
        assert_eq!(refused.error_code(), says);
    }
    let refused = collect(&sale, &sale.maoyan, &code, None).await;
    assert_eq!(refused.error_code(), "FORBIDDEN", "a channel is no counter");
    // As typed: lower case, with a dash.
    let typed = format!("{}-{}", code[..5].to_lowercase(), &code[5..]);
    let collected = collect(&sale, &counter.key, &typed, Some("c-1")).await;
    let collected = collected.data()["collectItems"].clone();
    assert_eq!(collected["orderId"], order["id"]);
    assert_eq!(collected["door"], "小卖部");
    assert_eq!(collected["items"].as_array().unwrap().len(), 2);
    let retried = collect(&sale, &counter.key, &code, Some("c-1")).await;
    assert_eq!(retried.data()["collectItems"], collected);
    let again = collect(&sale, &north.key, &code, None).await;
    assert_eq!(again.error_code(), "ALREADY_COLLECTED");
    let extensions = &again.errors()[0]["extensions"];
    assert_eq!(extensions["door"], "小卖部");
    assert_eq!(extensions["collectedAt"], collected["collectedAt"]);
    // Collected products are never refunded; a whole cancellation gives the seats back and
    // keeps what they brought in.
    let refused = cancel(&sale, &order, None, Some(&[&cola]), None).await;
    assert_eq!(refused.error_code(), "REFUND_NOT_ALLOWED");
    let rest = cancel(&sale, &order, None, None, None).await;
    let rest = rest.data()["cancelOrder"].clone();
    assert_eq!(rest["status"], "CANCELLED");
    assert_eq!(amount(&rest["net"]), 2_500 + 2_400);
    assert!(rest["items"]
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["status"] == "COLLECTED"));
    assert_eq!(
        stock_of(&sale, &popcorn).await,
        (Some(4), 1, 0),
        "collected stays sold"
    );
    let figures = sales(&sale).await;
    assert_eq!(
        (
            figures["ticketsSold"].as_i64(),
            figures["itemsSold"].as_i64()
        ),
        (Some(0), Some(3))
    );
    assert_eq!(amount(&figures["concessionRevenue"]), 4_900);
    assert_eq!(amount(&figures["revenue"]), 4_900);
}

#[tokio::test]
async fn a_collection_outside_the_window_or_of_refunded_products_is_refused() {
    let sale = sale().await;
    let wanda = operator(&sale).await;
    let cola = product(&sale, &wanda, "可乐", 1_200, None).await;
    let order = order_items(&sale, &["A1"], &[(&cola, 1)]).await;
    let code = order["pickupCode"].as_str().unwrap().to_owned();
    let counter = door(&sale, &wanda, "小卖部").await;
    // Two hours before the start: the window opens an hour before.
    let early = collect(&sale, &counter.key, &code, None).await;
    assert_eq!(early.error_code(), "ADMISSION_CLOSED");
    starting_in(&sale, 30).await;
    cancel(&sale, &order, None, Some(&[&cola]), None)
        .await
        .data();
    let refunded = collect(&sale, &counter.key, &code, None).await;
    assert_eq!(refunded.error_code(), "TICKET_CANCELLED");
    let read = sale
        .app
        .graphql_as(&sale.maoyan, ORDER, json!({ "id": order["id"] }))
        .await;
    assert_eq!(read.data()["order"]["itemsCollectedAt"], Value::Null);
}

#[tokio::test]
async fn collections_and_refunds_racing_on_two_gateways_take_each_line_once() {
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &["SSSSSSSS"; 3]).await);
    starting_in(&sale, 30).await;
    let other = Arc::new(sale.app.another_gateway().await);
    let wanda = operator(&sale).await;
    let popcorn = product(&sale, &wanda, "爆米花", 2_500, Some(50)).await;
    let counters = [
        door(&sale, &wanda, "东").await.key,
        door(&sale, &wanda, "西").await.key,
    ];
    let mut orders = Vec::new();
    for seat in ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8"] {
        orders.push(order_items(&sale, &[seat], &[(&popcorn, 2)]).await);
    }
    let mut tasks = Vec::new();
    for order in &orders {
        let code = order["pickupCode"].as_str().unwrap().to_owned();
        for (i, counter) in counters.iter().enumerate() {
            let (sale, counter, code) = (Arc::clone(&sale), counter.clone(), code.clone());
            let gateway = if i == 0 {
                Arc::new(sale.app.clone())
            } else {
                Arc::clone(&other)
            };
            tasks.push(tokio::spawn(async move {
                let response = gateway
                    .graphql_as(&counter, COLLECT, json!({ "code": code, "key": null }))
                    .await;
                ("collect", response)
            }));
        }
        let (sale, order, popcorn, gateway) = (
            Arc::clone(&sale),
            order.clone(),
            popcorn.clone(),
            Arc::clone(&other),
        );
        tasks.push(tokio::spawn(async move {
            let response = gateway
                .graphql_as(
                    &sale.maoyan,
                    CANCEL,
                    json!({ "order": order["id"], "items": [popcorn] }),
                )
                .await;
            ("refund", response)
        }));
    }
    let mut outcomes = Vec::new();
    for task in tasks {
        let (what, response) = task.await.unwrap();
        let code = match response.0.get("errors") {
            None => "OK".to_owned(),
            Some(_) => response.error_code().to_owned(),
        };
        outcomes.push((what, code));
    }
    let (mut collected, mut refunded) = (0, 0);
    for per_order in outcomes.chunks(3) {
        let collects: Vec<&str> = per_order[..2].iter().map(|(_, c)| c.as_str()).collect();
        let refund = per_order[2].1.as_str();
        let took = collects.iter().filter(|c| **c == "OK").count();
        assert!(took <= 1, "one collection per order: {per_order:?}");
        match (took, refund) {
            (1, "REFUND_NOT_ALLOWED") => collected += 1,
            (0, "OK") => {
                assert!(
                    collects.iter().all(|c| *c == "TICKET_CANCELLED"),
                    "{per_order:?}"
                );
                refunded += 1;
            }
            _ => panic!("a line taken twice or by nobody: {per_order:?}"),
        }
        assert!(collects
            .iter()
            .all(|c| ["OK", "ALREADY_COLLECTED", "TICKET_CANCELLED"].contains(c)));
    }
    assert_eq!(collected + refunded, 8);
    // Stock: 16 sold, the refunded ones back.
    let (stock, sold, _) = stock_of(&sale, &popcorn).await;
    assert_eq!((stock, sold), (Some(34 + 2 * refunded), 16 - 2 * refunded));
    let figures = sales(&sale).await;
    assert_eq!(figures["itemsSold"].as_i64(), Some(2 * collected));
    let mut paid = 0;
    for order in &orders {
        let read = sale
            .app
            .graphql_as(&sale.maoyan, ORDER, json!({ "id": order["id"] }))
            .await;
        paid += amount(&read.data()["order"]["net"]);
    }
    assert_eq!(
        amount(&figures["revenue"]),
        paid,
        "the orders' sum, to the fen"
    );
}

#[tokio::test]
async fn orders_of_before_and_after_products_read_through_one_query() {
    let sale = sale().await;
    let wanda = operator(&sale).await;
    let cola = product(&sale, &wanda, "可乐", 1_200, None).await;
    let new = order_items(&sale, &["A1"], &[(&cola, 1)]).await;
    // An order as version 1 wrote it: `seats`, no `lines`, no ticket types.
    let db = database(&mongodb_uri(), &sale.app).await;
    let now = bson::DateTime::now();
    let showtime = bson::oid::ObjectId::from_bytes(sale.showtime_id.0);
    let cinema = oid_of(&sale.cinema, "Cinema");
    let old = bson::oid::ObjectId::new();
    let movie = sale
        .app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { movie { id } } }",
            json!({ "id": sale.showtime }),
        )
        .await;
    let movie = oid_of(
        movie.data()["showtime"]["movie"]["id"].as_str().unwrap(),
        "Movie",
    );
    db.collection::<bson::Document>("orders")
        .insert_one(doc! {
            "_id": old, "schemaVersion": 1, "channel": "maoyan", "status": "CONFIRMED",
            "holdId": bson::oid::ObjectId::new(),
            "showtime": { "id": showtime, "cinemaId": cinema, "movieId": movie,
                "startsAt": now, "movieTitle": "电影", "cinemaName": "影城", "hallName": "1号厅" },
            "seats": [
                { "label": "C1", "kind": "COUPLE", "price": 9000 },
                { "label": "C2", "kind": "COUPLE", "price": 9000 },
            ],
            "total": 18000, "currency": "CNY",
            "customer": { "name": "李四", "contact": "13900000000" },
            "createdAt": bson::DateTime::from_millis(now.timestamp_millis() - 60_000),
            "salesCounted": false,
        })
        .await
        .unwrap();
    let listed = sale
        .app
        .graphql_as(
            &sale.maoyan,
            "query { orders(first: 10) { edges { node { id total { amount }
                lines { __typename ... on OrderSeat { label kind ticketType price { amount } }
                ... on OrderItem { name quantity amount { amount } } } } } } }",
            json!({}),
        )
        .await;
    let orders = crate::helpers::nodes(&listed.data()["orders"]);
    assert_eq!(orders.len(), 2);
    assert_eq!(orders[0]["id"], new["id"], "newest first");
    let shapes: Vec<Vec<&str>> = orders
        .iter()
        .map(|o| {
            (o["lines"].as_array().unwrap().iter())
                .map(|l| l["__typename"].as_str().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(
        shapes,
        [
            vec!["OrderSeat", "OrderItem"],
            vec!["OrderSeat", "OrderSeat"]
        ]
    );
    assert_eq!(orders[1]["lines"][0]["kind"], "COUPLE");
    assert_eq!(orders[1]["lines"][0]["ticketType"], "ADULT");
    assert_eq!(orders[1]["lines"][1]["price"]["amount"], 9000);
    // Nothing rewrote the old one; the sales figures count both.
    let stored = db
        .collection::<bson::Document>("orders")
        .find_one(doc! { "_id": old })
        .await
        .unwrap()
        .unwrap();
    assert!(stored.contains_key("seats") && !stored.contains_key("lines"));
    let figures = sales(&sale).await;
    assert_eq!(amount(&figures["revenue"]), 18_000 + amount(&new["total"]));
    assert_eq!(figures["ticketsSold"], 3);
    assert_eq!(figures["itemsSold"], 1);
}

#[tokio::test]
async fn a_cancelled_showtime_refunds_products_in_full_and_gives_every_unit_back() {
    let sale = sale().await;
    let wanda = operator(&sale).await;
    let popcorn = product(&sale, &wanda, "爆米花", 2_500, Some(10)).await;
    let order = order_items(&sale, &["A1"], &[(&popcorn, 2)]).await;
    hold_items(&sale, &sale.wechat, &["A2"], &[(&popcorn, 3)])
        .await
        .data();
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(5), 2, 1));
    let cancelled = sale
        .app
        .graphql_as(
            &wanda,
            crate::cancel_showtime::CANCEL_SHOWTIME,
            json!({ "input": { "showtimeId": sale.showtime } }),
        )
        .await;
    assert_eq!(cancelled.data()["cancelShowtime"]["ordersCancelled"], 1);
    // The live hold's units at once, the order's by its refund.
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(10), 0, 1));
    let read = sale
        .app
        .graphql_as(&sale.maoyan, ORDER, json!({ "id": order["id"] }))
        .await;
    let read = &read.data()["order"];
    assert_eq!(
        (read["status"].as_str(), amount(&read["net"])),
        (Some("CANCELLED"), 0)
    );
    assert_eq!(read["items"][0]["status"], "CANCELLED");
    let figures = sales(&sale).await;
    assert_eq!(
        (amount(&figures["revenue"]), figures["itemsSold"].as_i64()),
        (0, Some(0))
    );
}
