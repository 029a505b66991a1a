//! The seat-aware waiting list: parties in line for a showtime are offered freed seats that
//! fit them (side by side when they asked so) as ordinary holds of their channel, in the
//! order they joined, never skipping one; an offer is confirmed, declined or lapses; releases
//! racing on two gateway processes, one killed between its releases and its offers, leave no
//! party unserved and no seat offered twice.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use boxoffice::config::BookingArgs;
use boxoffice::holds::rules::HoldPolicy;
use boxoffice::holds::ShowtimeLocks;
use boxoffice::shutdown::Shutdown;
use boxoffice::waiting_list::Offers;
use serde_json::{json, Value};

use crate::helpers::{GqlResponse, TestApp};
use crate::processes::GatewayProcess;
use crate::sale::{sale_in_hall, sale_with, Sale};

const JOIN: &str = "mutation ($input: JoinWaitingListInput!) { joinWaitingList(input: $input) {
    id showtimeId customerId partySize kind together status offerHoldId offerExpiresAt } }";
const ENTRY: &str = "query ($id: ID!) { waitingListEntry(id: $id) {
    id customerId status offerHoldId offeredAt } }";
const LEAVE: &str = "mutation ($id: ID!) { leaveWaitingList(entryId: $id) { id status } }";
const HOLD_OF: &str = "query ($id: ID!) { hold(id: $id) { id seats { label } expiresAt } }";
const CONFIRM: &str = "mutation ($hold: ID!) { confirmHold(input: { holdId: $hold,
    customer: { name: \"赵六\", contact: \"13600000000\" } }) { id status } }";
const RELEASE: &str = "mutation ($id: ID!) { releaseHold(holdId: $id) }";
const OFFERS: &str = "query { events(first: 50, types: [WAITING_LIST_OFFERED]) {
    edges { node { type holdId seats customerId } } } }";

/// Joins `customer` with a party of `size` (`together` or not) as maoyan.
pub async fn join(sale: &Sale, customer: &str, size: i64, together: bool) -> GqlResponse {
    let input = json!({ "showtimeId": sale.showtime, "partySize": size, "kind": "STANDARD",
                        "together": together, "customerId": customer });
    sale.app
        .graphql_as(&sale.maoyan, JOIN, json!({ "input": input }))
        .await
}

pub async fn joined(sale: &Sale, customer: &str, size: i64, together: bool) -> Value {
    join(sale, customer, size, together).await.data()["joinWaitingList"].clone()
}

async fn entry(sale: &Sale, id: &Value) -> Value {
    let read = sale
        .app
        .graphql_as(&sale.maoyan, ENTRY, json!({ "id": id }))
        .await;
    read.data()["waitingListEntry"].clone()
}

/// Waits (up to 10 s) until entry `id` says `status`; the entry then.
async fn until_status(sale: &Sale, id: &Value, status: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let read = entry(sale, id).await;
        if read["status"] == status {
            return read;
        }
        assert!(
            Instant::now() < deadline,
            "{id} never became {status}: {read}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The seats of hold `id` (maoyan's).
async fn seats_of(sale: &Sale, id: &Value) -> Vec<String> {
    let read = sale
        .app
        .graphql_as(&sale.maoyan, HOLD_OF, json!({ "id": id }))
        .await;
    let seats = read.data()["hold"]["seats"].as_array().unwrap().clone();
    seats
        .iter()
        .map(|s| s["label"].as_str().unwrap().to_owned())
        .collect()
}

/// The offers' loop of `app`'s gateway (what `background::run` runs), until the test ends.
fn offers_of(app: &TestApp, policy: HoldPolicy) -> Shutdown {
    let shutdown = Shutdown::default();
    let offers = Offers::new(
        app.store.clone(),
        boxoffice::assembly::hold_endings(),
        Arc::new(ShowtimeLocks::default()),
        policy,
    );
    tokio::spawn(offers.run(shutdown.clone()));
    shutdown
}

async fn release(sale: &Sale, hold: &Value) {
    sale.app
        .graphql_as(&sale.wechat, RELEASE, json!({ "id": hold }))
        .await
        .data();
}

/// A sale whose standard seats (rows A and B, an aisle in B) wechat holds all; the couple
/// seats of row C are free. The hold of B1-B3 is returned, to release.
pub async fn standard_seats_held(policy: HoldPolicy) -> (Sale, Value) {
    let sale = sale_with(policy).await;
    sale.hold_id(&sale.wechat, &["A1", "A2", "A3", "A4", "A5", "A6"])
        .await;
    let b = sale.hold_id(&sale.wechat, &["B1", "B2", "B3"]).await;
    sale.hold_id(&sale.wechat, &["B5", "B6", "B7"]).await;
    (sale, b)
}

#[tokio::test]
async fn a_party_is_offered_freed_seats_that_fit_in_the_order_parties_joined() {
    let policy = BookingArgs::default().hold_policy();
    let sale = sale_with(policy).await;
    let _offers = offers_of(&sale.app, policy);
    // Every standard seat is held by another channel's buyers.
    let a = sale
        .hold_id(&sale.wechat, &["A1", "A2", "A3", "A4", "A5", "A6"])
        .await;
    let b_left = sale.hold_id(&sale.wechat, &["B1", "B2", "B3"]).await;
    let b_right = sale.hold_id(&sale.wechat, &["B5", "B6", "B7"]).await;
    let first = joined(&sale, "u-1", 2, true).await;
    let second = joined(&sale, "u-2", 1, false).await;
    let third = joined(&sale, "u-3", 3, true).await;
    for party in [&first, &second, &third] {
        assert_eq!(party["status"], "WAITING", "{party}");
        assert_eq!(party["offerHoldId"], Value::Null);
    }
    // Joining again keeps the customer's place.
    assert_eq!(joined(&sale, "u-1", 2, true).await["id"], first["id"]);
    // Bad input changes nothing.
    let wanda = crate::admissions::operator(&sale).await;
    for (input, code) in [
        (json!({ "partySize": 0 }), "BAD_USER_INPUT"),
        (json!({ "partySize": 11 }), "BAD_USER_INPUT"),
        (
            json!({ "kind": "COUPLE", "partySize": 3 }),
            "BAD_USER_INPUT",
        ),
        (
            json!({ "kind": "COUPLE", "together": false }),
            "BAD_USER_INPUT",
        ),
        (json!({ "customerId": "" }), "BAD_USER_INPUT"),
        (json!({ "customerId": "x".repeat(65) }), "BAD_USER_INPUT"),
        (json!({ "showtimeId": sale.cinema }), "BAD_USER_INPUT"),
    ] {
        let mut full = json!({ "showtimeId": sale.showtime, "partySize": 2, "kind": "STANDARD",
                               "together": true, "customerId": "u-9" });
        for (field, value) in input.as_object().unwrap() {
            full[field] = value.clone();
        }
        let refused = sale
            .app
            .graphql_as(&sale.maoyan, JOIN, json!({ "input": full }))
            .await;
        assert_eq!(refused.error_code(), code, "{full}");
    }
    let as_operator = sale
        .app
        .graphql_as(
            &wanda,
            JOIN,
            json!({ "input": { "showtimeId": sale.showtime,
            "partySize": 1, "kind": "STANDARD", "together": true, "customerId": "u-9" } }),
        )
        .await;
    assert_eq!(as_operator.error_code(), "FORBIDDEN");
    assert_eq!(
        crate::catalogue_writes::count(&sale.app, "waiting_list").await,
        3
    );

    // B1-B3 come back: the first party gets two side by side, the second the third seat; the
    // third party (three together) waits.
    let released_at = Instant::now();
    release(&sale, &b_left).await;
    let first = until_status(&sale, &first["id"], "OFFERED").await;
    println!(
        "release -> offer seen by the channel: {} ms",
        released_at.elapsed().as_millis()
    );
    let second = until_status(&sale, &second["id"], "OFFERED").await;
    let mut offered = seats_of(&sale, &first["offerHoldId"]).await;
    assert_eq!(offered.len(), 2);
    assert!(offered.iter().all(|seat| seat.starts_with('B')));
    offered.extend(seats_of(&sale, &second["offerHoldId"]).await);
    offered.sort();
    assert_eq!(offered, ["B1", "B2", "B3"]);
    assert_eq!(entry(&sale, &third["id"]).await["status"], "WAITING");
    // The channel was told, with its customer.
    let events = crate::events::log_of(&sale.app, &sale.maoyan, 2).await;
    let told: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "WAITING_LIST_OFFERED")
        .collect();
    assert_eq!(told.len(), 2, "{events:#?}");
    let listed = sale.app.graphql_as(&sale.maoyan, OFFERS, json!({})).await;
    let listed = crate::helpers::nodes(&listed.data()["events"]);
    let customers: HashSet<&str> = listed
        .iter()
        .map(|e| e["customerId"].as_str().unwrap())
        .collect();
    assert_eq!(customers, HashSet::from(["u-1", "u-2"]));

    // The first confirms its offer (ACCEPTED); the second declines by leaving (DECLINED),
    // which frees B-something; the third still needs three together and keeps waiting.
    let order = sale
        .app
        .graphql_as(
            &sale.maoyan,
            CONFIRM,
            json!({ "hold": first["offerHoldId"] }),
        )
        .await;
    assert_eq!(order.data()["confirmHold"]["status"], "CONFIRMED");
    // Leaving once the offer is sold declines nothing: the entry says ACCEPTED.
    let too_late = sale
        .app
        .graphql_as(&sale.maoyan, LEAVE, json!({ "id": first["id"] }))
        .await;
    assert_eq!(too_late.data()["leaveWaitingList"]["status"], "ACCEPTED");
    assert_eq!(entry(&sale, &first["id"]).await["status"], "ACCEPTED");
    let left = sale
        .app
        .graphql_as(&sale.maoyan, LEAVE, json!({ "id": second["id"] }))
        .await;
    assert_eq!(left.data()["leaveWaitingList"]["status"], "DECLINED");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(entry(&sale, &third["id"]).await["status"], "WAITING");
    // B5-B7 come back: three together, for the third.
    release(&sale, &b_right).await;
    let third = until_status(&sale, &third["id"], "OFFERED").await;
    let mut seats = seats_of(&sale, &third["offerHoldId"]).await;
    seats.sort();
    assert_eq!(seats, ["B5", "B6", "B7"]);
    // Another channel's entry is nobody else's business.
    let foreign = sale
        .app
        .graphql_as(&sale.wechat, ENTRY, json!({ "id": third["id"] }))
        .await;
    assert_eq!(foreign.error_code(), "NOT_FOUND");
    drop(a);
    sale.check_invariants().await;
}

#[tokio::test]
async fn seats_freed_where_nobody_waits_cost_no_read_of_the_lines_and_a_join_makes_them_count() {
    let policy = BookingArgs::default().hold_policy();
    let sale = sale_with(policy).await;
    sale.hold_id(&sale.wechat, &["A1", "A2", "A3", "A4", "A5", "A6"])
        .await;
    let b = sale.hold_id(&sale.wechat, &["B1", "B2", "B3"]).await;
    let b_right = sale.hold_id(&sale.wechat, &["B5", "B6", "B7"]).await;
    let commands = sale.app.store.commands();
    commands.start();
    let _offers = offers_of(&sale.app, policy);
    // The loop's first pass reads which showtimes have a line (none).
    let deadline = Instant::now() + Duration::from_secs(10);
    while !commands.take().iter().any(|sent| sent.name == "aggregate") {
        assert!(Instant::now() < deadline, "no pass over the lines");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    release(&sale, &b).await;
    // Longer than the offers let frees gather before serving them.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let lines = |sent: &[boxoffice::store::SentCommand]| {
        (sent.iter())
            .filter(|sent| sent.collection.as_deref() == Some("waiting_list"))
            .filter(|sent| sent.name != "aggregate")
            .count()
    };
    assert_eq!(lines(&commands.take()), 0, "seats freed where nobody waits");
    // A party joins through this gateway: the seats freed next are offered to it.
    let party = joined(&sale, "u-1", 2, true).await;
    release(&sale, &b_right).await;
    let offered = until_status(&sale, &party["id"], "OFFERED").await;
    let mut seats = seats_of(&sale, &offered["offerHoldId"]).await;
    seats.sort();
    assert_eq!(seats.len(), 2, "{seats:?}");
    assert!(lines(&commands.take()) > 0);
    sale.check_invariants().await;
}

#[tokio::test]
async fn the_earliest_party_is_served_first_and_none_behind_it_goes_before() {
    let policy = BookingArgs::default().hold_policy();
    let sale = sale_with(policy).await;
    let a = sale
        .hold_id(&sale.wechat, &["A1", "A2", "A3", "A4", "A5", "A6"])
        .await;
    let b = sale.hold_id(&sale.wechat, &["B1", "B2", "B3"]).await;
    sale.hold_id(&sale.wechat, &["B5", "B6", "B7"]).await;
    let four = joined(&sale, "big", 4, true).await;
    let one = joined(&sale, "small", 1, true).await;
    let store = &sale.app.store;
    let locks = ShowtimeLocks::default();
    // Three seats come back: they do not fit the first party, and the second, which they
    // would fit, is not served before it.
    release(&sale, &b).await;
    let served = serve(store, &locks, &policy, sale.showtime_id).await;
    assert_eq!(served, 0);
    assert_eq!(entry(&sale, &one["id"]).await["status"], "WAITING");
    // Six more: the first party gets four side by side in row A, then the second one seat.
    release(&sale, &a).await;
    let served = serve(store, &locks, &policy, sale.showtime_id).await;
    assert_eq!(served, 2);
    let four = entry(&sale, &four["id"]).await;
    let seats = seats_of(&sale, &four["offerHoldId"]).await;
    assert_eq!(seats.len(), 4);
    assert!(seats.iter().all(|seat| seat.starts_with('A')), "{seats:?}");
    assert_eq!(entry(&sale, &one["id"]).await["status"], "OFFERED");
    // A pass again offers nothing twice.
    let again = serve(store, &locks, &policy, sale.showtime_id).await;
    assert_eq!(again, 0);
    sale.check_invariants().await;
}

#[tokio::test]
async fn an_offer_that_lapses_passes_its_seats_to_the_next_party() {
    let (sale, b) = standard_seats_held(BookingArgs::default().hold_policy()).await;
    let first = joined(&sale, "late", 2, true).await;
    let next = joined(&sale, "next", 2, true).await;
    // Offers made under a short hold time.
    let short = HoldPolicy {
        ttl: Duration::from_millis(800),
        ..BookingArgs::default().hold_policy()
    };
    let (store, locks) = (&sale.app.store, ShowtimeLocks::default());
    release(&sale, &b).await;
    serve(store, &locks, &short, sale.showtime_id).await;
    let first = entry(&sale, &first["id"]).await;
    assert_eq!(first["status"], "OFFERED");
    let mut seats = seats_of(&sale, &first["offerHoldId"]).await;
    assert_eq!(
        entry(&sale, &next["id"]).await["status"],
        "WAITING",
        "one seat left"
    );
    // Unconfirmed, the offer lapses; the next pass expires it and offers its seats on.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    serve(store, &locks, &short, sale.showtime_id).await;
    assert_eq!(entry(&sale, &first["id"]).await["status"], "LAPSED");
    let next = entry(&sale, &next["id"]).await;
    assert_eq!(next["status"], "OFFERED");
    let mut again = seats_of(&sale, &next["offerHoldId"]).await;
    again.sort();
    seats.sort();
    assert_eq!(again, seats, "the same seats, for the next party");
    // A lapsed party joining again goes to the end of the line.
    let rejoined = joined(&sale, "late", 2, true).await;
    assert_eq!(rejoined["id"], first["id"]);
    assert_eq!(rejoined["status"], "WAITING");
    sale.check_invariants().await;
}

#[tokio::test]
async fn an_offer_its_channel_releases_is_declined_and_its_seats_go_to_the_next_party() {
    let policy = BookingArgs::default().hold_policy();
    let (sale, b) = standard_seats_held(policy).await;
    let first = joined(&sale, "first", 2, true).await;
    let next = joined(&sale, "next", 2, true).await;
    let (store, locks) = (&sale.app.store, ShowtimeLocks::default());
    release(&sale, &b).await;
    serve(store, &locks, &policy, sale.showtime_id).await;
    let offered = entry(&sale, &first["id"]).await;
    assert_eq!(offered["status"], "OFFERED");
    assert_eq!(entry(&sale, &next["id"]).await["status"], "WAITING");
    // The channel releases the offer's hold as any hold of its own: holds tells the waiting
    // list's handler (registered in `assembly`), which marks the entry DECLINED at once.
    let released = sale
        .app
        .graphql_as(
            &sale.maoyan,
            RELEASE,
            json!({ "id": offered["offerHoldId"] }),
        )
        .await;
    assert_eq!(released.data()["releaseHold"].as_array().unwrap().len(), 2);
    assert_eq!(entry(&sale, &first["id"]).await["status"], "DECLINED");
    serve(store, &locks, &policy, sale.showtime_id).await;
    assert_eq!(entry(&sale, &next["id"]).await["status"], "OFFERED");
    sale.check_invariants().await;
}

const ROWS: [&str; 8] = ["SSSSSSSSSS"; 8];
const PARTIES: usize = 16;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn releases_racing_on_two_gateways_one_killed_before_offering_skip_no_party() {
    let policy = BookingArgs::default().hold_policy();
    let sale = Arc::new(sale_in_hall(policy, &ROWS).await);
    // The other channel holds every seat, two by two.
    let mut holds = Vec::new();
    for row in 'A'..='H' {
        for pair in 0..5 {
            let seats = [
                format!("{row}{}", 2 * pair + 1),
                format!("{row}{}", 2 * pair + 2),
            ];
            let seats: Vec<&str> = seats.iter().map(String::as_str).collect();
            holds.push(sale.hold_id(&sale.wechat, &seats).await);
        }
    }
    // Sixteen parties of one or two (24 seats), most side by side, in line.
    let mut parties = Vec::new();
    for n in 0..PARTIES {
        let party = joined(&sale, &format!("p-{n}"), 1 + (n % 2) as i64, n % 3 != 0).await;
        assert_eq!(party["status"], "WAITING");
        parties.push(party);
    }
    let uri = crate::helpers::mongodb_uri();
    let database = sale.app.store.database_name().to_owned();
    // The first gateway is told of the seats its releases free, and dies before offering
    // them (its offers wait a minute); the second offers what it frees at once, and the
    // first's by its periodic pass.
    let mut gateways = tokio::task::spawn_blocking(move || {
        let delay = [("BOXOFFICE_TEST_DELAY_BEFORE_OFFER_MS", "60000")];
        [
            GatewayProcess::start_with_env(&uri, &database, &[], &delay),
            GatewayProcess::start(&uri, &database, &[]),
        ]
    })
    .await
    .unwrap();
    let urls = [gateways[0].url(), gateways[1].url()];
    let http = reqwest::Client::new();
    let release_through = |hold: &Value, gateway: usize| {
        let (http, url, key, hold) = (
            http.clone(),
            urls[gateway].clone(),
            sale.wechat.clone(),
            hold.clone(),
        );
        tokio::spawn(async move {
            let body = json!({ "query": RELEASE, "variables": { "id": hold } });
            let answer: Value = http
                .post(url)
                .bearer_auth(key)
                .json(&body)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            assert!(answer["errors"].is_null(), "{answer}");
        })
    };
    // Eight holds (16 seats) released at once, four through each gateway: the parties need
    // 24, so those first in line are served and the rest wait.
    let racing: Vec<_> = (0..8).map(|n| release_through(&holds[n], n % 2)).collect();
    for release in racing {
        release.await.unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    let served = loop {
        let mut served = 0;
        for party in &parties {
            if entry(&sale, &party["id"]).await["status"] == "OFFERED" {
                served += 1;
            }
        }
        if served >= 8 || Instant::now() > deadline {
            break served;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        (8..PARTIES).contains(&served),
        "{served} served of 16 seats"
    );
    // Four more released through the first gateway only, which dies before offering them:
    // the second gateway learns of them by its periodic pass alone.
    let alone: Vec<_> = (8..12).map(|n| release_through(&holds[n], 0)).collect();
    for release in alone {
        release.await.unwrap();
    }
    let released_at = Instant::now();
    gateways[0].kill();
    // Every party is offered (the 24 seats freed fit all of them), in line order.
    let mut offered = Vec::new();
    for party in &parties {
        offered.push(until_status(&sale, &party["id"], "OFFERED").await);
    }
    println!(
        "release -> last offer, the releasing gateway killed before offering: {} ms",
        released_at.elapsed().as_millis()
    );
    // Never two offers of one seat, never two for one party; each party's seats fit it.
    let inventory = sale.inventory().await;
    let mut seats_seen = HashSet::new();
    let mut by_entry: HashMap<String, usize> = HashMap::new();
    for hold in inventory.holds.iter().filter(|h| h.offer.is_some()) {
        *by_entry
            .entry(hold.offer.as_ref().unwrap().entry.to_string())
            .or_default() += 1;
        for seat in &hold.seats {
            assert!(seats_seen.insert(seat.clone()), "{seat} offered twice");
        }
    }
    assert_eq!(by_entry.len(), PARTIES);
    assert!(by_entry.values().all(|&n| n == 1), "{by_entry:?}");
    for (n, party) in offered.iter().enumerate() {
        let seats = seats_of(&sale, &party["offerHoldId"]).await;
        assert_eq!(seats.len(), 1 + n % 2, "{party}");
        if n % 3 != 0 && seats.len() == 2 {
            let (row, numbers): (Vec<char>, Vec<u32>) = seats
                .iter()
                .map(|s| (s.chars().next().unwrap(), s[1..].parse::<u32>().unwrap()))
                .unzip();
            assert_eq!(row[0], row[1], "together: {seats:?}");
            assert_eq!(numbers[0].abs_diff(numbers[1]), 1, "together: {seats:?}");
        }
    }
    // Served in line: each offer made no earlier than the one before it in line.
    let made: Vec<chrono::DateTime<chrono::Utc>> = offered
        .iter()
        .map(|p| p["offeredAt"].as_str().unwrap().parse().unwrap())
        .collect();
    assert!(made.windows(2).all(|w| w[0] <= w[1]), "{made:?}");
    gateways[1].stop();
    sale.check_invariants().await;
}

#[tokio::test]
async fn seats_back_from_a_refund_or_an_unblock_are_offered_at_once_and_told_by_webhook() {
    let policy = BookingArgs::default().hold_policy();
    let sale = crate::webhooks::local_sale().await;
    let _offers = offers_of(&sale.app, policy);
    let receiver = crate::webhooks::Receiver::start().await;
    let (_endpoint, secret) = crate::webhooks::endpoint(&sale, &receiver.url()).await;
    let _deliveries = crate::webhooks::deliver_from(&sale.app.store, Duration::from_secs(2));
    let chain = sale.chain().await;
    // Every standard seat taken: row A sold to another channel, B1-B3 blocked, B5-B7 held.
    let order = sale
        .order(&sale.wechat, &["A1", "A2", "A3", "A4", "A5", "A6"])
        .await;
    sale.block(&chain, &["B1", "B2", "B3"], json!({}))
        .await
        .data();
    sale.hold_id(&sale.wechat, &["B5", "B6", "B7"]).await;
    let pair = joined(&sale, "u-pair", 2, true).await;
    let trio = joined(&sale, "u-trio", 3, true).await;
    // A refund of A1 and A2 gives two seats side by side back: the pair's.
    sale.app
        .graphql_as(
            &sale.wechat,
            "mutation ($order: ID!) { cancelOrder(orderId: $order, seats: [\"A1\", \"A2\"]) { status } }",
            json!({ "order": order }),
        )
        .await
        .data();
    let pair = until_status(&sale, &pair["id"], "OFFERED").await;
    let mut seats = seats_of(&sale, &pair["offerHoldId"]).await;
    seats.sort();
    assert_eq!(seats, ["A1", "A2"]);
    // Unblocked B1-B3: the trio's.
    sale.unblock(&chain, &["B1", "B2", "B3"], json!({}))
        .await
        .data();
    let trio = until_status(&sale, &trio["id"], "OFFERED").await;
    let mut seats = seats_of(&sale, &trio["offerHoldId"]).await;
    seats.sort();
    assert_eq!(seats, ["B1", "B2", "B3"]);
    // The channel's webhook is told of both offers (its only events), with the customers.
    let delivered = crate::webhooks::receive(&receiver, &secret, 2, Duration::from_secs(20)).await;
    assert!(
        delivered
            .iter()
            .all(|e| e["type"] == "WAITING_LIST_OFFERED"),
        "{delivered:#?}"
    );
    let customers: HashSet<String> = delivered
        .iter()
        .map(|event| event["data"]["customer"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        customers,
        HashSet::from(["u-pair".to_owned(), "u-trio".to_owned()])
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_cancelled_showtime_closes_its_line_and_passes_leave_it_be() {
    let policy = BookingArgs::default().hold_policy();
    let sale = sale_with(policy).await;
    sale.hold_id(&sale.wechat, &["A1", "A2", "A3", "A4", "A5", "A6"])
        .await;
    let waiting = joined(&sale, "u-1", 6, true).await;
    let chain = sale.chain().await;
    sale.app
        .graphql_as(
            &chain,
            crate::cancel_showtime::CANCEL_SHOWTIME,
            json!({ "input": { "showtimeId": sale.showtime } }),
        )
        .await
        .data();
    let offers = Offers::new(
        sale.app.store.clone(),
        boxoffice::assembly::hold_endings(),
        Arc::new(ShowtimeLocks::default()),
        policy,
    );
    // The cancellation released row A: the pass finds the showtime cancelled and closes
    // its line, and the next pass has no showtime to look at.
    assert_eq!(offers.pass().await.unwrap(), 0);
    assert_eq!(entry(&sale, &waiting["id"]).await["status"], "CLOSED");
    let commands = sale.app.store.commands();
    commands.start();
    assert_eq!(offers.pass().await.unwrap(), 0);
    let sent = commands.take();
    assert_eq!(
        sent.len(),
        1,
        "one aggregation finds no showtime with parties: {sent:?}"
    );
    let late = join(&sale, "u-2", 1, true).await;
    assert_eq!(late.error_code(), "BAD_USER_INPUT");
}

/// One pass over `showtime`'s line, as the gateway's offers make it; how many offers it made.
async fn serve(
    store: &boxoffice::store::Store,
    locks: &ShowtimeLocks,
    policy: &HoldPolicy,
    showtime: boxoffice::domain::ids::ShowtimeId,
) -> usize {
    let endings = boxoffice::assembly::hold_endings();
    boxoffice::waiting_list::serve_showtime(store, &endings, locks, policy, showtime)
        .await
        .unwrap()
}
