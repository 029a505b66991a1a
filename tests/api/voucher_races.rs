//! A voucher's cap under a race: 64 holds on two gateway processes for a code with a cap of
//! 10, one gateway killed mid-way, every request re-sent with its idempotency key until it is
//! answered. No more than 10 redemptions ever exist; the ones a killed attempt left are given
//! back by the reconciler, and exactly as many more holds as were left then succeed; after the
//! confirmations, the orders' money agrees with the sales figures to the fen.

use std::sync::Arc;
use std::time::{Duration, Instant};

use boxoffice::config::BookingArgs;
use serde_json::{json, Value};

use crate::processes::GatewayProcess;
use crate::sale::{sale_in_hall, Sale};
use crate::vouchers::{batch, counts, hold_with, make, platform, HOLD};

const CLIENTS: usize = 64;
const CAP: i64 = 10;
const ROWS: [&str; 8] = ["SSSSSSSSSS"; 8];
const CONFIRM: &str = "mutation ($hold: ID!) { confirmHold(input: { holdId: $hold,
    customer: { name: \"王五\", contact: \"13700000000\" } }) {
    id status total { amount } discount { amount } } }";
const GIVE_UP: Duration = Duration::from_secs(60);

/// Seat `n` of the hall: A1 … H10.
fn seat(n: usize) -> String {
    format!("{}{}", char::from(b'A' + (n / 10) as u8), n % 10 + 1)
}

/// Sends client `n`'s keyed hold until a gateway answers it (a killed gateway's connection
/// error, or a 503, sends it to the other).
async fn hold_until_answered(
    http: &reqwest::Client,
    urls: &[String; 2],
    sale: &Sale,
    n: usize,
    code: &str,
) -> Value {
    let input = json!({ "showtimeId": sale.showtime, "seats": [seat(n)], "voucher": code,
                        "idempotencyKey": format!("voucher-hold-{n}") });
    let started = Instant::now();
    for attempt in n.. {
        assert!(started.elapsed() < GIVE_UP, "client {n} got no answer");
        let sent = http
            .post(&urls[attempt % 2])
            .bearer_auth(sale.key_of_client(n))
            .json(&json!({ "query": HOLD, "variables": { "input": input } }))
            .send()
            .await;
        let Ok(response) = sent else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let status = response.status().as_u16();
        let Ok(body) = response.json::<Value>().await else {
            continue;
        };
        if status == 503 || body["errors"][0]["extensions"]["code"] == "UNAVAILABLE" {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        return body;
    }
    unreachable!()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_holds_on_two_gateways_one_killed_never_pass_a_cap_of_ten() {
    let sale = Arc::new(sale_in_hall(BookingArgs::default().hold_policy(), &ROWS).await);
    let operator = platform(&sale).await;
    let (batch_id, mut codes) =
        make(&sale, &operator, batch(json!({ "percentOff": 25 }), 1, CAP)).await;
    let code = Arc::new(codes.remove(0));
    let uri = crate::helpers::mongodb_uri();
    let database = sale.app.store.database_name().to_owned();
    // The first gateway pauses every voucher hold after its redemption is reserved, before
    // the hold is placed: killed then, it leaves redemptions no hold will ever have.
    let mut gateways = tokio::task::spawn_blocking(move || {
        let args = ["--key-lease-ms", "1000"];
        let delay = [("BOXOFFICE_TEST_DELAY_AFTER_VOUCHER_RESERVED_MS", "5000")];
        [
            GatewayProcess::start_with_env(&uri, &database, &args, &delay),
            GatewayProcess::start(&uri, &database, &args),
        ]
    })
    .await
    .unwrap();
    let urls = Arc::new([gateways[0].url(), gateways[1].url()]);
    let http = reqwest::Client::new();
    // The even clients start on the first gateway, the odd ones on the second once a first
    // redemption is reserved: the first gateway's holds pause after reserving, and the kill
    // always leaves some half done while both gateways race for the rest.
    let spawn = |n: usize| {
        let (http, urls, sale, code) = (http.clone(), urls.clone(), sale.clone(), code.clone());
        tokio::spawn(async move { hold_until_answered(&http, &urls, &sale, n, &code).await })
    };
    let mut clients: Vec<_> = (0..CLIENTS).map(|_| None).collect();
    for n in (0..CLIENTS).step_by(2) {
        clients[n] = Some(spawn(n));
    }
    let deadline = Instant::now() + GIVE_UP;
    while counts(&sale, &operator, &batch_id).await.0 == 0 {
        assert!(Instant::now() < deadline, "no hold reserved a redemption");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for n in (1..CLIENTS).step_by(2) {
        clients[n] = Some(spawn(n));
    }
    // Killed while the race is on, with its holds half done.
    tokio::time::sleep(Duration::from_millis(200)).await;
    gateways[0].kill();
    let clients: Vec<_> = clients.into_iter().map(Option::unwrap).collect();
    let mut held = Vec::new();
    let mut used_up = 0;
    for (n, client) in clients.into_iter().enumerate() {
        let answer = client.await.unwrap();
        match answer["data"]["holdSeats"]["id"].as_str() {
            Some(id) => {
                // 25% off ¥40 or ¥38, to the fen.
                let total = answer["data"]["holdSeats"]["total"]["amount"]
                    .as_i64()
                    .unwrap();
                assert!([3_000, 2_850].contains(&total), "{answer}");
                held.push((sale.key_of_client(n).to_owned(), id.to_owned()));
            }
            None => {
                let error = &answer["errors"][0]["extensions"];
                assert_eq!(error["code"], "VOUCHER_REFUSED", "{answer}");
                assert_eq!(error["reason"], "USED_UP", "{answer}");
                used_up += 1;
            }
        }
    }
    assert_eq!(held.len() + used_up, CLIENTS);
    assert!(
        held.len() as i64 <= CAP,
        "{} holds used a cap of {CAP}",
        held.len()
    );
    assert!(used_up > 0, "64 holds for 10 redemptions: some are refused");
    // Never more redemptions than the cap, and every number was handed out.
    let redemptions = crate::catalogue_writes::count(&sale.app, "voucher_redemptions").await;
    assert_eq!(redemptions as i64, CAP);
    // The killed gateway's half-done holds left redemptions no hold has: the reconciler gives
    // them back (a check due at the hold's expiry: asked now as if it were later).
    let store = &sale.app.store;
    assert_eq!(counts(&sale, &operator, &batch_id).await, (CAP, 0));
    let later = boxoffice::store::now() + chrono::Duration::hours(1);
    boxoffice::vouchers::settle_redemptions(
        store,
        boxoffice::assembly::orders_of_hold(),
        &boxoffice::assembly::hold_endings(),
        later,
    )
    .await
    .unwrap();
    let (reserved, redeemed) = counts(&sale, &operator, &batch_id).await;
    assert_eq!((reserved, redeemed), (held.len() as i64, 0));
    // Exactly the redemptions left are there to take: one more hold for each, then USED_UP.
    let left = CAP as usize - held.len();
    assert!(
        left > 0,
        "the killed gateway's reservations were left to the reconciler"
    );
    for n in 0..=left {
        let more = hold_with(&sale, &sale.maoyan, &[&seat(CLIENTS + n)], &code, None).await;
        if n < left {
            let id = more.data()["holdSeats"]["id"].as_str().unwrap().to_owned();
            held.push((sale.maoyan.clone(), id));
        } else {
            assert_eq!(more.error_code(), "VOUCHER_REFUSED");
        }
    }
    // Every hold confirmed: each redemption made final, and the money agrees.
    let mut paid = 0;
    for (key, hold) in &held {
        let confirmed = sale
            .app
            .graphql_as(key, CONFIRM, json!({ "hold": hold }))
            .await;
        let order = &confirmed.data()["confirmHold"];
        assert_eq!(order["status"], "CONFIRMED");
        paid += order["total"]["amount"].as_i64().unwrap();
    }
    assert_eq!(counts(&sale, &operator, &batch_id).await, (0, CAP));
    boxoffice::sales::project_sales(store).await.unwrap();
    let figures = sale
        .app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { movie { sales { ticketsSold revenue { amount } } } } }",
            json!({ "id": sale.showtime }),
        )
        .await;
    let sales = &figures.data()["showtime"]["movie"]["sales"];
    assert_eq!(sales["ticketsSold"], CAP);
    assert_eq!(sales["revenue"]["amount"], paid);
    sale.check_orders_agree_with_seats().await;
    sale.check_invariants().await;
}
