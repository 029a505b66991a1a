//! Live seat maps from JavaScript: the `graphql-ws` npm client gets a SNAPSHOT and then a hold
//! as CHANGES, and the seat picker page (`/seats/{id}`), driven in Chromium, shows one buyer's
//! hold on another buyer's screen within a second, then the sale; it also sells the cinema's
//! products with a voucher, and the door page's counter mode hands them over once. The scripts
//! and their pinned packages are in `tests/browser`; `scripts/test` installs them and Debian's
//! Chromium.

use std::path::Path;

use boxoffice::domain::seat::SeatState;
use serde_json::{json, Value};

use crate::sale::sale;

#[tokio::test]
async fn the_seat_picker_and_its_assets_are_served_by_the_gateway() {
    let sale = sale().await;
    for path in ["/seats".to_owned(), format!("/seats/{}", sale.showtime)] {
        let page = sale.app.get(&path).await;
        assert_eq!(page.status(), 200, "{path}");
        let html = page.text().await.unwrap();
        assert!(html.contains("/seats/assets/seats.js"), "{path}");
        assert!(
            html.contains("/playground/vendor/graphql-ws.min.js"),
            "{path}"
        );
    }
    for (path, content_type) in [
        ("/seats/assets/seats.js", "text/javascript; charset=utf-8"),
        ("/seats/assets/hall.js", "text/javascript; charset=utf-8"),
        ("/seats/assets/seats.css", "text/css; charset=utf-8"),
        (
            "/playground/vendor/graphql-ws.min.js",
            "text/javascript; charset=utf-8",
        ),
    ] {
        let response = sale.app.get(path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["content-type"], content_type, "{path}");
        assert!(
            response.bytes().await.unwrap().len() > 1_000,
            "{path} has content"
        );
    }
    assert_eq!(sale.app.get("/seats/assets/nope.js").await.status(), 404);
}

/// Runs `node SCRIPT ARGS…` in `tests/browser` and parses its JSON summary.
pub async fn run(script: &str, args: &[&str]) -> Value {
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let packages = ["graphql-ws", "ws", "playwright-core"];
    crate::helpers::node_summary("browser", &packages, script, &args).await
}

/// Fails with a hint when there is no Chromium to drive.
pub fn assert_chromium() {
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned());
    assert!(
        Path::new(&chromium).exists(),
        "no Chromium at {chromium}: scripts/test installs Debian's (apt-get install chromium)"
    );
}

/// The hall of `sale()`: rows A (6 seats), B (3 + aisle + 3), C (4 couple seats), all free.
fn all_free() -> Value {
    json!({ "available": 16, "held": 0, "sold": 0, "blocked": 0, "capacity": 16 })
}

#[tokio::test]
async fn a_graphql_ws_client_gets_a_snapshot_then_a_hold_as_the_next_version() {
    let sale = sale().await;
    let base = sale.app.url("");
    let summary = run("subscribe.mjs", &[&base, &sale.showtime, &sale.maoyan]).await;
    println!("subscribe.mjs: {summary:#}");

    let snapshot = &summary["snapshot"];
    assert_eq!(snapshot["kind"], "SNAPSHOT");
    assert_eq!(snapshot["counts"], all_free());
    assert_eq!(
        summary["held"],
        json!(["A1", "A2"]),
        "the first two free seats"
    );
    assert_eq!(
        snapshot["seats"],
        json!({ "A1": "AVAILABLE", "A2": "AVAILABLE" })
    );

    let change = &summary["change"];
    assert_eq!(change["kind"], "CHANGES");
    let version = snapshot["version"].as_i64().expect("a version");
    assert_eq!(
        change["version"].as_i64(),
        Some(version + 1),
        "one hold, one version"
    );
    assert!(
        change["seatMap"].is_null(),
        "CHANGES carry no map: {change}"
    );
    let seat = |label: &str, column: u32| {
        let state = "HELD";
        json!({ "label": label, "row": "A", "column": column, "state": state, "kind": "STANDARD" })
    };
    let mut changes = change["changes"].as_array().expect("changes").clone();
    changes.sort_by_key(|c| c["column"].as_u64());
    assert_eq!(changes, vec![seat("A1", 0), seat("A2", 1)]);
    assert_eq!(
        change["counts"],
        json!({ "available": 14, "held": 2, "sold": 0, "blocked": 0, "capacity": 16 })
    );
}

#[tokio::test]
async fn the_seat_picker_shows_a_hold_on_another_screen_within_a_second_then_the_sale() {
    let sale = sale().await;
    assert_chromium();
    // maoyan also sells CHILD tickets here, for less.
    let operator = crate::admissions::operator(&sale).await;
    let prices = json!([
        { "channel": "maoyan", "amount": 4000 },
        { "channel": "maoyan", "ticketType": "CHILD", "amount": 2800 },
        { "channel": "wechat", "amount": 3800 },
    ]);
    let changed = sale
        .app
        .graphql_as(
            &operator,
            crate::price_revisions::CHANGE,
            json!({ "input": { "showtimeId": sale.showtime, "prices": prices } }),
        )
        .await;
    changed.data();
    let base = sale.app.url("");
    let summary = run("seat-picker.mjs", &[&base, &sale.showtime, &sale.maoyan]).await;
    println!("seat-picker.mjs: {summary:#}");
    // The buyer chose a CHILD ticket for the second seat: each seat's price and the total.
    assert_eq!(summary["typesOffered"], json!(["ADULT", "CHILD"]));
    assert_eq!(summary["selectionPrices"], json!(["¥40.00", "¥28.00"]));
    assert_eq!(summary["selectionTotal"], "¥68.00");
    assert_eq!(summary["heldTypes"], json!(["ADULT", "CHILD"]));
    assert_eq!(summary["holdTotal"], "¥68.00");

    // B saw A's two seats held within 1 s of A's hold answer (it may even be before it).
    let latency = summary["latencyMs"].as_i64().expect("a latency");
    assert!(
        latency <= 1_000,
        "B saw the hold {latency} ms after A's answer"
    );
    let countdown = summary["countdown"].as_str().unwrap_or_default();
    assert!(countdown.contains(':'), "a countdown, not {countdown:?}");
    // After a reload the page recovered the hold (`holds(showtimeId:)`) and counts down again.
    assert_eq!(summary["recoveredHoldId"], summary["holdId"]);
    let recovered = summary["recoveredCountdown"].as_str().unwrap_or_default();
    assert!(recovered.contains(':'), "a countdown, not {recovered:?}");
    let seats: Vec<String> = serde_json::from_value(summary["seats"].clone()).unwrap();
    assert_eq!(seats.len(), 2);

    // A confirmed: A shows the order, both pages the seats sold.
    assert_eq!(summary["orderStatus"], "CONFIRMED");
    assert!(summary["orderId"].as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!(summary["orderSeats"], seats.join(", "));
    let sold = json!({ seats[0].clone(): "sold", seats[1].clone(): "sold" });
    assert_eq!(summary["statesOnA"], sold);
    assert_eq!(summary["statesOnB"], sold);
    assert_eq!(summary["soldCountOnB"], 2);
    assert_eq!(summary["errorOnA"], "", "no error shown");
    assert_eq!(summary["errorOnB"], "", "no error shown (B has no key)");
    assert_eq!(summary["pageErrors"], json!([]));
    // A's order shows a ticket per seat: its code (which verifies to that seat of the order)
    // and its QR code; and the pickup code.
    let tickets = summary["tickets"].as_array().expect("tickets");
    assert_eq!(tickets.len(), 2, "{tickets:?}");
    let order =
        boxoffice::domain::global_id::order_id(summary["orderId"].as_str().unwrap()).unwrap();
    for (ticket, seat) in tickets.iter().zip(&seats) {
        assert_eq!(ticket["seat"], seat.as_str());
        let code = ticket["code"].as_str().unwrap();
        let verified = boxoffice::domain::ticket_codes::Ticket::verify(
            &crate::helpers::test_ticket_secret(),
            code,
        )
        .expect("a code of ours");
        assert_eq!((&verified.seat, verified.order), (seat, order));
        assert!(
            ticket["qrWidth"].as_i64().unwrap() > 50,
            "a QR code drawn: {ticket}"
        );
    }
    assert_eq!(summary["pickupCode"].as_str().unwrap().len(), 10);

    // A fresh read agrees, and so does the stored inventory.
    let answer = sale
        .app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { seatMap { counts { sold held } } } }",
            json!({ "id": sale.showtime }),
        )
        .await;
    assert_eq!(
        answer.data()["showtime"]["seatMap"]["counts"],
        json!({ "sold": 2, "held": 0 })
    );
    let stored = sale.check_invariants().await;
    for label in &seats {
        assert!(
            stored.contains(&(label.clone(), SeatState::Sold)),
            "{label} is sold in the store: {stored:?}"
        );
    }
}

#[tokio::test]
async fn the_door_page_admits_a_ticket_then_refuses_it_with_when_and_where() {
    let (sale, _order, codes, north) = crate::admissions::admission_sale().await;
    for (path, status) in [
        (format!("/door/{}", sale.cinema), 200),
        ("/door/assets/door.js".to_owned(), 200),
        ("/door/assets/door.css".to_owned(), 200),
        ("/door/assets/nope.js".to_owned(), 404),
    ] {
        assert_eq!(
            sale.app.get(&path).await.status().as_u16(),
            status,
            "{path}"
        );
    }
    let base = sale.app.url("");
    let summary = run("door.mjs", &[&base, &sale.cinema, &north.key, &codes[0].1]).await;
    println!("door.mjs: {summary:#}");
    assert_eq!(summary["errors"], json!([]), "no script errors");
    assert_eq!(
        summary["unknownCinema"],
        "No such cinema: check the address"
    );
    assert_eq!(summary["unknownListed"], false);
    // The page names its cinema (not its id) and lists the showtime its tickets are for.
    let read = sale
        .app
        .graphql(
            "query($cinema: ID!, $showtime: ID!) { cinema(id: $cinema) { name city } \
             showtime(id: $showtime) { movie { title } hall { name } } }",
            json!({ "cinema": sale.cinema, "showtime": sale.showtime }),
        )
        .await;
    let data = read.data();
    let text = |value: &Value| value.as_str().unwrap().to_owned();
    let named = format!(
        "{} · {}",
        text(&data["cinema"]["name"]),
        text(&data["cinema"]["city"])
    );
    assert_eq!(summary["cinema"], named.as_str());
    let listed: Vec<&Value> = (summary["showtimes"].as_array().unwrap().iter())
        .filter(|listed| listed["id"] == sale.showtime.as_str())
        .collect();
    assert_eq!(listed.len(), 1, "the showtime is listed once: {summary}");
    let entry = text(&listed[0]["text"]);
    let title = text(&data["showtime"]["movie"]["title"]);
    let hall = text(&data["showtime"]["hall"]["name"]);
    assert!(entry.contains(&title) && entry.contains(&hall), "{entry}");
    let admitted = &summary["admitted"];
    assert_eq!(admitted["outcome"], "admitted");
    assert_eq!(admitted["verdict"], "Admitted · A1");
    assert_eq!(admitted["codeFieldEmpty"], true, "ready for the next scan");
    let again = &summary["again"];
    assert_eq!(
        (&again["outcome"], &again["verdict"]),
        (&json!("refused"), &json!("Already admitted"))
    );
    assert!(
        again["detail"].as_str().unwrap().ends_with("through North"),
        "{again}"
    );
    assert_eq!(summary["bad"]["verdict"], "Not a ticket");
    assert_eq!(summary["logEntries"], 3);
    assert_eq!(sale.inventory().await.admitted, 1, "admitted once");
}

#[tokio::test]
async fn the_find_seats_panel_lists_the_options_and_leads_to_the_seat_map() {
    let sale = sale().await;
    // What the API finds for the same search: the sale's one showtime, 7.8 km from the centre.
    let input = json!({
        "near": { "latitude": 31.2304, "longitude": 121.4737, "radiusMeters": 10000 },
        "partySize": 2, "channel": "maoyan",
    });
    let found = sale
        .app
        .graphql(crate::seat_search::FIND_SEATS, json!({ "input": input }))
        .await;
    let expected = crate::helpers::nodes(&found.data()["findSeats"]);
    assert_eq!(expected.len(), 1);
    let summary = run("find-seats.mjs", &[&sale.app.url("")]).await;
    println!("find-seats.mjs: {summary:#}");
    assert_eq!(summary["errors"], json!([]), "no script errors");
    assert_eq!(summary["movies"], json!(["Any movie", "电影"]));
    let options = summary["options"].as_array().unwrap();
    assert_eq!(options.len(), 1, "{summary}");
    let path = format!("/seats/{}", sale.showtime);
    assert_eq!(options[0]["href"], path.as_str());
    assert_eq!(options[0]["seats"], expected[0]["seats"]);
    assert!(
        options[0]["text"].as_str().unwrap().contains("¥80.00"),
        "{summary}"
    );
    assert_eq!(summary["landedOn"], path.as_str());
}

const RETIRE: &str =
    "mutation ($id: ID!) { updateProduct(input: { productId: $id, retired: true }) {
    retired onSale } }";
const ORDER: &str = "query ($id: ID!) { order(id: $id) { status total { amount }
    discount { amount } seats { label price { amount } } items { productId name quantity
    amount { amount } status } itemsCollectedAt } }";

#[tokio::test]
async fn the_seat_picker_holds_products_with_a_voucher_and_says_why_it_refuses_them() {
    use crate::concessions::{product, stock_of};
    use crate::vouchers::{batch, counts, make, platform};

    let sale = sale().await;
    assert_chromium();
    // The cinema's products, oldest first: 薯片 has one left (another buyer takes it while
    // the page shows it), 热狗 none, and the retired one is not offered.
    let wanda = crate::admissions::operator(&sale).await;
    let popcorn = product(&sale, &wanda, "爆米花", 2_500, Some(5)).await;
    let cola = product(&sale, &wanda, "可乐", 1_200, None).await;
    let crisps = product(&sale, &wanda, "薯片", 800, Some(1)).await;
    let hot_dog = product(&sale, &wanda, "热狗", 1_500, Some(0)).await;
    let old = product(&sale, &wanda, "旧套餐", 3_000, None).await;
    let retired = sale
        .app
        .graphql_as(&wanda, RETIRE, json!({ "id": old }))
        .await;
    assert_eq!(retired.data()["updateProduct"]["onSale"], false);
    // ¥10 off each seat, once; and a voucher valid only from an hour on.
    let platform = platform(&sale).await;
    let (batch_id, mut codes) =
        make(&sale, &platform, batch(json!({ "amountOff": 1_000 }), 1, 1)).await;
    let voucher = codes.remove(0);
    let mut later = batch(json!({ "amountOff": 1_000 }), 1, 1);
    later["validFrom"] = json!((chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339());
    let not_yet = make(&sale, &platform, later).await.1.remove(0);

    let base = sale.app.url("");
    let args = [
        &base,
        &sale.showtime,
        &sale.maoyan,
        &sale.wechat,
        &voucher,
        &not_yet,
    ];
    let args: Vec<&str> = args.iter().map(|arg| arg.as_str()).collect();
    let summary = run("seat-picker-products.mjs", &args).await;
    println!("seat-picker-products.mjs: {summary:#}");
    assert_eq!(summary["errors"], json!([]), "no script errors");

    // What it offers: name, price, a stepper up to 20 or the stock, or "sold out".
    let offered: Vec<Value> = (summary["offered"].as_array().unwrap().iter())
        .map(|p| json!([p["id"], p["name"], p["price"], p["max"], p["shown"]]))
        .collect();
    assert_eq!(
        offered,
        [
            json!([popcorn, "爆米花", "¥25.00", "5", null]),
            json!([cola, "可乐", "¥12.00", "20", null]),
            json!([crisps, "薯片", "¥8.00", "1", null]),
            json!([hot_dog, "热狗", "¥15.00", null, "sold out"]),
        ]
    );
    assert_eq!(
        summary["offered"][0]["label"], "爆米花 ¥25.00",
        "the stepper's label names the product and its price"
    );

    // 1. The voucher not valid yet: its reason in words, nothing held.
    let refused = &summary["badVoucherShown"];
    assert_eq!(
        refused["error"],
        "Voucher refused: this voucher is not valid yet."
    );
    assert_eq!(refused["reason"], "NOT_YET_VALID");
    assert_eq!(refused["voucherInvalid"], "true");
    assert_eq!(refused["held"], false);

    // 2. Two seats at ¥40, 2 × ¥25 and ¥8 before the voucher; 薯片 went meanwhile: SOLD_OUT
    //    names it, and the list read again shows it sold out, 爆米花 still chosen.
    assert_eq!(summary["totalBeforeVoucher"], "¥138.00");
    let sold_out = &summary["soldOutShown"];
    assert_eq!(sold_out["product"], "薯片");
    assert!(
        sold_out["error"]
            .as_str()
            .unwrap()
            .starts_with("Sold out: 薯片 "),
        "{sold_out}"
    );
    assert_eq!(sold_out["held"], false);
    let crisps_after = (summary["afterSoldOut"].as_array().unwrap().iter())
        .find(|p| p["name"] == "薯片")
        .unwrap();
    assert_eq!(
        (&crisps_after["soldOut"], &crisps_after["shown"]),
        (&json!(true), &json!("sold out"))
    );
    assert_eq!(summary["popcornKept"], "2");

    // 3. Held with the voucher: each seat ¥30, the item, ¥20 off, ¥60 + ¥50 in all.
    let shown = &summary["holdShown"];
    assert_eq!(summary["held"]["error"], "", "no error shown");
    let seats: Vec<String> = serde_json::from_value(summary["seats"].clone()).unwrap();
    for (text, seat) in shown["seats"].as_array().unwrap().iter().zip(&seats) {
        let text = text.as_str().unwrap();
        assert!(
            text.starts_with(seat.as_str()) && text.ends_with("¥30.00"),
            "{text}"
        );
    }
    assert_eq!(shown["items"], json!(["爆米花 × 2 ¥50.00"]));
    assert_eq!(shown["discount"], "−¥20.00");
    assert_eq!(shown["total"], "¥110.00");
    assert_eq!(shown["voucherField"], "", "the voucher went into the hold");
    let order = &summary["order"];
    assert_eq!(order["status"], "CONFIRMED");
    assert_eq!(order["items"], "爆米花 × 2");
    assert_eq!(order["total"], "¥110.00");
    assert_eq!(order["pickupCode"].as_str().unwrap().len(), 10);

    // The API and the store agree: the order as shown, the stock taken once (the refused
    // holds took nothing), the voucher redeemed once, the seats sold.
    let read = sale
        .app
        .graphql_as(&sale.maoyan, ORDER, json!({ "id": order["id"] }))
        .await;
    let stored = &read.data()["order"];
    assert_eq!(
        (&stored["total"]["amount"], &stored["discount"]["amount"]),
        (&json!(11_000), &json!(2_000))
    );
    assert_eq!(
        stored["items"],
        json!([{ "productId": popcorn, "name": "爆米花", "quantity": 2,
            "amount": { "amount": 5_000 }, "status": "SOLD" }])
    );
    assert_eq!(stock_of(&sale, &popcorn).await, (Some(3), 2, 0));
    assert_eq!(
        stock_of(&sale, &crisps).await,
        (Some(0), 0, 1),
        "the other buyer's hold has it"
    );
    assert_eq!(stock_of(&sale, &hot_dog).await, (Some(0), 0, 0));
    assert_eq!(counts(&sale, &platform, &batch_id).await, (0, 1));
    let labels: Vec<&str> = seats.iter().map(String::as_str).collect();
    assert_eq!(
        sale.states(&labels).await,
        [SeatState::Sold, SeatState::Sold]
    );
}

#[tokio::test]
async fn the_door_pages_counter_mode_hands_products_over_once_then_says_when_and_by_whom() {
    use crate::admissions::{door, operator, starting_in};
    use crate::concessions::{order_items, product};

    let sale = sale().await;
    assert_chromium();
    starting_in(&sale, 30).await; // inside the admission window
    let wanda = operator(&sale).await;
    let popcorn = product(&sale, &wanda, "爆米花", 2_500, Some(5)).await;
    let cola = product(&sale, &wanda, "可乐", 1_200, None).await;
    let order = order_items(&sale, &["A1", "A2"], &[(&popcorn, 1), (&cola, 2)]).await;
    let code = order["pickupCode"].as_str().unwrap();
    let counter = door(&sale, &wanda, "小卖部").await;
    let north = door(&sale, &wanda, "North").await;
    // As staff type it: lower case, with a dash.
    let typed = format!("{}-{}", code[..5].to_lowercase(), &code[5..]);
    let base = sale.app.url("");
    let summary = run(
        "door-counter.mjs",
        &[&base, &sale.cinema, &counter.key, &north.key, &typed],
    )
    .await;
    println!("door-counter.mjs: {summary:#}");
    assert_eq!(summary["errors"], json!([]), "no script errors");
    assert_eq!(summary["focusedOnSwitch"], "pickup", "ready to type");

    // What to hand over, in green.
    let collected = &summary["collected"];
    assert_eq!(
        (&collected["outcome"], &collected["verdict"]),
        (&json!("collected"), &json!("Hand over"))
    );
    assert_eq!(collected["items"], json!(["爆米花 × 1", "可乐 × 2"]));
    assert_eq!(collected["detail"], "3 items in all");
    assert_eq!(collected["background"], "rgb(27, 127, 58)");
    assert_eq!(
        collected["pickupFieldEmpty"], true,
        "ready for the next code"
    );

    // Collected once: the order says when, which the page shows in Shanghai's time.
    let read = sale
        .app
        .graphql_as(&sale.maoyan, ORDER, json!({ "id": order["id"] }))
        .await;
    let stored = &read.data()["order"];
    let statuses: Vec<&Value> = (stored["items"].as_array().unwrap().iter())
        .map(|item| &item["status"])
        .collect();
    assert_eq!(statuses, [&json!("COLLECTED"), &json!("COLLECTED")]);
    let at = chrono::DateTime::parse_from_rfc3339(stored["itemsCollectedAt"].as_str().unwrap())
        .unwrap()
        .with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap());
    let when = format!("at {} by 小卖部", at.format("%H:%M:%S"));

    // Again, at the counter and at the North door: when, and by the counter.
    for again in [&summary["again"], &summary["atNorth"]] {
        assert_eq!(
            (&again["outcome"], &again["verdict"]),
            (&json!("refused"), &json!("Already collected"))
        );
        assert_eq!(again["detail"], when.as_str());
        assert_eq!(again["items"], json!([]), "nothing to hand over");
        assert_eq!(again["background"], "rgb(179, 38, 30)");
    }
    assert_eq!(summary["short"]["verdict"], "Not a pickup code");
    assert_eq!(summary["unknown"]["verdict"], "Unknown code");
    let log = summary["log"].as_array().unwrap();
    assert_eq!(log.len(), 4, "{log:?}");
    assert!(
        log[3]
            .as_str()
            .unwrap()
            .ends_with("Hand over · 3 items in all · 爆米花 × 1, 可乐 × 2"),
        "{log:?}"
    );

    // The mode is kept over a reload; tickets come back at a click.
    assert_eq!(
        summary["afterReload"],
        json!({ "mode": "counter", "keyForm": false, "counterForm": true, "ticketForm": false })
    );
    assert_eq!(
        summary["backToTickets"],
        json!({ "counterForm": false, "focused": "code" })
    );
}
