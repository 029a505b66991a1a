//! What the event relay costs a booking: a channel without webhook endpoints is marked due
//! never, and the entries of changes in quick succession are pulled off their inventory in
//! one update per `CLEAR_AFTER`, not one per change; an endpoint made while the relay thought
//! its channel had none still gets the events appended meanwhile.

use std::time::{Duration, Instant};

use boxoffice::channel_events::CLEAR_AFTER;
use boxoffice::store::SentCommand;

use crate::event_faults::outbox_empty;
use crate::events::log_of;
use crate::sale::sale;
use crate::webhooks::{deliver_from, endpoint, local_sale, receive, Receiver};

fn is_clear(command: &SentCommand) -> bool {
    command.background
        && command.name == "update"
        && command.collection.as_deref() == Some("seat_inventory")
}

#[tokio::test]
async fn bookings_of_a_channel_without_endpoints_mark_none_and_share_their_pulls() {
    let sale = sale().await;
    let commands = sale.app.store.commands();
    commands.start_with_background();
    let started = Instant::now();
    // 16 changes one after another on one inventory.
    for seat in ["A1", "A2", "A3", "A4", "A5", "A6", "B1", "B2"] {
        let hold = sale.hold_id(&sale.maoyan, &[seat]).await;
        sale.confirm(&sale.maoyan, &hold).await.data();
    }
    let changed = started.elapsed();
    log_of(&sale.app, &sale.maoyan, 16).await;
    assert!(outbox_empty(&sale).await, "every entry is pulled off");
    let sent = commands.take();
    // After the take: a reading or pull recorded happened before it.
    let elapsed = started.elapsed();
    let endpoints: Vec<&str> = (sent.iter())
        .filter(|command| command.collection.as_deref() == Some("webhook_endpoints"))
        .map(|command| command.name.as_str())
        .collect();
    assert!(
        endpoints.iter().all(|&name| name == "distinct"),
        "no endpoint is marked due: {endpoints:?}"
    );
    let readings = 1 + elapsed.as_secs() as usize;
    assert!(endpoints.len() <= readings, "{endpoints:?} in {elapsed:?}");
    // Pulls are at least CLEAR_AFTER apart: one per change when each change is slower.
    let clears = sent.iter().filter(|command| is_clear(command)).count();
    let periods = 1 + (elapsed.as_millis() / CLEAR_AFTER.as_millis()) as usize;
    assert!(clears >= 1, "the entries are pulled off");
    assert!(
        clears <= periods,
        "{clears} pulls for 16 changes in {changed:?} ({elapsed:?} until the last pull)"
    );
}

#[tokio::test]
async fn an_endpoint_made_after_the_relay_looked_gets_the_events_appended_meanwhile() {
    let sale = local_sale().await;
    let receiver = Receiver::start().await;
    let _deliveries = deliver_from(&sale.app.store, Duration::from_secs(30));
    // The relay appends the first event and learns maoyan has no endpoint.
    sale.hold_id(&sale.maoyan, &["A1"]).await;
    log_of(&sale.app, &sale.maoyan, 1).await;
    let (_, secret) = endpoint(&sale, &receiver.url()).await;
    // Appended while the relay still thinks maoyan has no endpoint (the endpoint starts
    // after the first event): the next reading marks it due, and it is the only event.
    let second = sale.hold_id(&sale.maoyan, &["A2"]).await;
    let got = receive(&receiver, &secret, 1, Duration::from_secs(10)).await;
    assert_eq!(got[0]["type"], "HOLD_PLACED");
    assert_eq!(got[0]["data"]["hold"], second);
    assert_eq!(got[0]["sequence"], 2);
}

/// The commands of one seat change, the relay's included: a hold sends its three and one
/// insert into the log; a confirmation its five and one insert. The relay appends the entries
/// its process noted, without reading them back off the inventory (a read it made per change
/// before). Its pull of relayed entries is shared by the changes of `CLEAR_AFTER`.
#[tokio::test]
async fn a_seat_change_and_its_event_cost_a_fixed_set_of_commands_and_no_read_back() {
    let sale = sale().await;
    // The key is looked up once, then remembered; the relay learns the channel's log head.
    let warm = sale.hold_id(&sale.maoyan, &["A1"]).await;
    sale.confirm(&sale.maoyan, &warm).await.data();
    log_of(&sale.app, &sale.maoyan, 2).await;
    tokio::time::sleep(CLEAR_AFTER * 3).await;
    let commands = sale.app.store.commands();
    commands.start_with_background();
    let hold = sale.hold_id(&sale.maoyan, &["A2"]).await;
    log_of(&sale.app, &sale.maoyan, 3).await;
    let held = commands.take();
    commands.start_with_background();
    sale.confirm(&sale.maoyan, &hold).await.data();
    log_of(&sale.app, &sale.maoyan, 4).await;
    let confirmed = commands.take();
    let named = |sent: &[SentCommand], pulls: bool| {
        let mut names: Vec<String> = (sent.iter())
            .filter(|command| pulls || !is_clear(command))
            // The relay's periodic look at which channels have webhook endpoints.
            .filter(|command| command.collection.as_deref() != Some("webhook_endpoints"))
            // This test's own polls of the log (`log_of`).
            .filter(|command| command.background || command.collection.as_deref() != Some("events"))
            .map(|command| {
                let collection = command.collection.as_deref().unwrap_or("");
                format!("{} {collection}", command.name)
            })
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        named(&held, false),
        [
            "find seat_inventory",
            "find showtimes",
            "findAndModify seat_inventory",
            "insert events"
        ],
        "{held:#?}"
    );
    assert_eq!(
        named(&confirmed, false),
        [
            "find seat_inventory",
            "find showtimes",
            "findAndModify seat_inventory",
            "insert events",
            "insert orders",
            "update orders"
        ],
        "{confirmed:#?}"
    );
    // Neither read an outbox back: the only reads of the inventory are the request's own (the
    // change's `findAndModify` returns the outbox it left, for the relay to keep the
    // document's order).
    for sent in [&held, &confirmed] {
        assert!(
            !sent
                .iter()
                .any(|command| command.background && command.name == "find"),
            "{sent:#?}"
        );
    }
}
