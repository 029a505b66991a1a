//! Each channel's log has one appender among the live gateways, and the others' relays hand
//! it their events (`channel_events::handoff`, `http::relay_handoff`): the gateway that made a
//! change sends no insert to a log another appends, and the log stays gap-free and in order;
//! an appender that cannot be reached leaves the events to the relay that had them.

use std::time::Duration;

use boxoffice::gateways::{Membership, Peer};
use boxoffice::store::{PausePoint, SentCommand};
use serde_json::json;

use crate::helpers::TestApp;
use crate::sale::{sale_on, Sale};

const HOLD: &str = "mutation ($id: ID!, $seats: [String!]) { holdSeats(input: {
    showtimeId: $id, seats: $seats }) { id } }";

/// Two peered gateways with a sale whose showtime's owner (which makes its changes) does not
/// append one of the channels selling it: (sale, the owner, the appender, that channel, the
/// owner's membership, the appender's id). Fresh gateways until it is so (each channel's
/// appender is the owner one time in two). A hold's events go to its own channel's log.
async fn handing_sale() -> (Sale, TestApp, TestApp, &'static str, Membership, String) {
    for _ in 0..12 {
        let (first, second, mut memberships) = TestApp::peered().await;
        let sale = sale_on(first.clone(), &["SSSSSS"]).await;
        let owner_is_first = memberships[0]
            .peers()
            .owner_elsewhere(sale.showtime_id)
            .is_none();
        let (owner, appender, at) = match owner_is_first {
            true => (first, second, 0),
            false => (second, first, 1),
        };
        let owner_view = memberships[at].peers();
        for channel in ["maoyan", "wechat"] {
            if let Some(elsewhere) = owner_view.appender_elsewhere(channel) {
                let membership = memberships.swap_remove(at);
                return (sale, owner, appender, channel, membership, elsewhere.id);
            }
        }
    }
    panic!("the showtime's owner appended both channels in every try");
}

/// The API key of `channel` ("maoyan" or "wechat") in `sale`.
fn key_of<'a>(sale: &'a Sale, channel: &str) -> &'a str {
    match channel {
        "maoyan" => &sale.maoyan,
        _ => &sale.wechat,
    }
}

/// The events `sent` appended to `channel`'s log.
fn inserted_into(sent: &[SentCommand], channel: &str) -> usize {
    (sent.iter())
        .filter(|command| command.name == "insert")
        .filter(|command| command.collection.as_deref() == Some("events"))
        .flat_map(|command| command.inserted_documents())
        .filter(|event| event.get_str("channel").ok() == Some(channel))
        .count()
}

/// `channel`'s log once it holds `count` events (within 5 s): their sequence numbers, checked
/// gap-free and each event once.
async fn log_of(sale: &Sale, channel: &str, count: usize) -> Vec<String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let stored =
            boxoffice::channel_events::events_after(&sale.app.store, channel, 0, None, 100)
                .await
                .unwrap();
        if stored.len() >= count || tokio::time::Instant::now() > deadline {
            let sequences: Vec<i64> = stored.iter().map(|event| event.sequence).collect();
            assert_eq!(sequences, (1..=stored.len() as i64).collect::<Vec<_>>());
            return stored.into_iter().map(|event| event.id).collect();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_gateway_hands_a_channel_s_events_to_the_gateway_that_appends_its_log() {
    let (sale, owner, appender, channel, _owner_membership, _) = handing_sale().await;
    owner.store.commands().start_with_background();
    appender.store.commands().start_with_background();
    for seats in [["A1", "A2"], ["A3", "A4"], ["A5", "A6"]] {
        let held = owner
            .graphql_as(
                key_of(&sale, channel),
                HOLD,
                json!({ "id": sale.showtime, "seats": seats }),
            )
            .await;
        held.data();
    }
    let log = log_of(&sale, channel, 3).await;
    assert_eq!(log.len(), 3, "{log:?}");
    let (made, appended) = (
        owner.store.commands().take(),
        appender.store.commands().take(),
    );
    assert_eq!(
        inserted_into(&made, channel),
        0,
        "the gateway that made the changes"
    );
    assert_eq!(
        inserted_into(&appended, channel),
        3,
        "the channel's appender"
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn a_relay_whose_appender_cannot_be_reached_appends_the_events_itself() {
    let (sale, owner, _appender, channel, owner_membership, appender_id) = handing_sale().await;
    // The appender went (its port closed) while the owner still counts it alive.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", port.local_addr().unwrap());
    drop(port);
    owner_membership.peers().set_live(vec![Peer {
        id: appender_id,
        url,
    }]);
    owner.store.commands().start_with_background();
    let held = owner
        .graphql_as(
            key_of(&sale, channel),
            HOLD,
            json!({ "id": sale.showtime, "seats": ["A1"] }),
        )
        .await;
    held.data();
    assert_eq!(log_of(&sale, channel, 1).await.len(), 1);
    let made = owner.store.commands().take();
    assert_eq!(
        inserted_into(&made, channel),
        1,
        "appended where it was made"
    );
    sale.check_invariants().await;
}

#[tokio::test]
async fn handed_events_without_the_deployment_s_mac_or_too_large_are_refused_and_append_nothing() {
    let (sale, owner, _appender, channel, _membership, _) = handing_sale().await;
    let url = format!("http://{}/internal/events", owner.address);
    let client = reqwest::Client::new();
    let post = |body: Vec<u8>, mac: &'static str| {
        (client.post(&url))
            .header("content-type", "application/bson")
            .header("x-boxoffice-handed", mac)
            .body(body)
            .send()
    };
    let unsigned = post(b"\x05\x00\x00\x00\x00".to_vec(), "forged")
        .await
        .unwrap();
    assert_eq!(unsigned.status(), 403);
    let huge = post(vec![0; (1 << 20) + 1], "forged").await.unwrap();
    assert_eq!(huge.status(), 413);
    assert!(
        log_of(&sale, channel, 0).await.is_empty(),
        "nothing appended"
    );
}

/// Two peered gateways change one showtime in turn, the first's relay paused before it
/// appends: the channel's appender (the second) appends the first's entry with its own, in
/// the showtime's order, while the first is still paused; the first, resumed, hands its entry
/// over and the appender, knowing it appended it, sends nothing. Each event is sent to the
/// log once. (That the appender reads nothing of the log for it is measured by
/// `examples/overload`: 0.01 `events` finds per change.)
#[tokio::test]
async fn the_appender_appends_another_s_entries_on_a_document_in_order_and_each_once() {
    let (sale, owner, appender, channel, _membership, _) = handing_sale().await;
    let key = key_of(&sale, channel);
    let held = owner
        .graphql_as(
            key,
            HOLD,
            json!({ "id": sale.showtime, "seats": ["A1", "A2"] }),
        )
        .await;
    let hold = held.data()["holdSeats"]["id"].clone();
    let confirmed = owner
        .graphql_as(key, crate::orders::CONFIRM, json!({ "hold": hold }))
        .await;
    let order = confirmed.data()["confirmHold"]["id"].clone();
    let before = log_of(&sale, channel, 2).await.len();
    let stalled = (owner.store.faults()).pause_next_at(PausePoint::RelayBeforeAppend);
    let held = owner
        .graphql_as(key, HOLD, json!({ "id": sale.showtime, "seats": ["A3"] }))
        .await;
    held.data();
    stalled.reached().await;
    owner.store.commands().start_with_background();
    appender.store.commands().start_with_background();
    // A cancellation by an order id issued before ids named their showtime is served where
    // it comes: on the appender, after the hold (by the order's id as issued now, it would
    // go to the owner).
    let id = boxoffice::domain::global_id::order_id(order.as_str().unwrap()).unwrap();
    let older = boxoffice::domain::global_id::GlobalId::Order(None, id).encode();
    let cancel = "mutation ($id: ID!) { cancelOrder(orderId: $id) { id } }";
    appender
        .graphql_as(key, cancel, json!({ "id": older }))
        .await
        .data();
    // The hold's event and the cancellation's, the first gateway still paused.
    let appended = log_of(&sale, channel, before + 2).await;
    assert_eq!(appended.len(), before + 2, "{appended:?}");
    stalled.resume();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let log = boxoffice::channel_events::events_after(&sale.app.store, channel, 0, None, 100)
        .await
        .unwrap();
    let kinds: Vec<String> = (log.iter().skip(before))
        .map(|event| format!("{:?}", event.kind))
        .collect();
    assert_eq!(
        kinds,
        ["HoldPlaced", "OrderCancelled"],
        "the showtime's order"
    );
    let (made, appending) = (
        owner.store.commands().take(),
        appender.store.commands().take(),
    );
    assert_eq!(inserted_into(&made, channel), 0, "the paused gateway");
    assert_eq!(inserted_into(&appending, channel), 2, "each event once");
    sale.check_invariants().await;
}
