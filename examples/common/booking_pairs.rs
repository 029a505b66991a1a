//! One hold of the best two seats (one ADULT and one CHILD ticket) and its confirmation, the
//! booking benchmarks' unit of work, three ways: through the gateway's HTTP API, through the
//! booking layer (no HTTP or GraphQL), and the floor: written by hand with the driver (read the
//! seats, choose the best pair, one conditional update to hold; write the order, one
//! conditional update to sell, mark the order confirmed), with none of the gateway's code
//! around them.

use std::sync::Arc;

use boxoffice::domain::best_seats::{best_adjacent, Cell, SeatGrid};
use boxoffice::domain::global_id::GlobalId;
use boxoffice::domain::ids::ShowtimeId;
use boxoffice::domain::pricing::TicketType;
use boxoffice::domain::seat::{SeatKind, SeatState};
use boxoffice::holds::rules::HoldPolicy;
use boxoffice::holds::{self, HoldRequest, SeatChoice, ShowtimeLocks};
use boxoffice::idempotency::Attempt;
use boxoffice::orders::{self, Customer};
use boxoffice::store::Store;
use bson::oid::ObjectId;
use bson::DateTime;
use serde_json::json;

/// What the floor reads of a seat inventory: each seat's state, the rows in their order.
#[derive(serde::Deserialize)]
struct SeatsOnly {
    seats: indexmap::IndexMap<String, Vec<Option<StateOnly>>>,
}

#[derive(serde::Deserialize)]
struct StateOnly {
    state: SeatState,
}

/// One hold + confirm with hand-written driver calls; false when the seats kept being taken.
/// Choosing takes the showtime's lock, as the gateway does.
pub async fn driver_pair(
    db: mongodb::Database,
    locks: Arc<ShowtimeLocks>,
    showtime: ShowtimeId,
) -> bool {
    use bson::{doc, Document};
    let chooser = locks
        .lock(showtime)
        .await
        .expect("no deadline outside a request");
    let inventories = db.collection::<Document>("seat_inventory");
    let id = ObjectId::from_bytes(showtime.0);
    let hold = ObjectId::new();
    let mut held = None;
    for _ in 0..8 {
        // Only the seats, decoded into typed rows (as the gateway decodes its documents).
        let inventory = inventories
            .clone_with_type::<SeatsOnly>()
            .find_one(doc! { "_id": id })
            .projection(doc! { "seats": 1 })
            .await
            .unwrap()
            .unwrap();
        let rows: Vec<(String, Vec<Cell>)> = inventory
            .seats
            .into_iter()
            .map(|(row, cells)| {
                let cells = cells.iter().map(|cell| match cell {
                    None => Cell::Gap,
                    Some(seat) => Cell::Seat {
                        kind: SeatKind::Standard,
                        free: seat.state == SeatState::Available,
                    },
                });
                (row, cells.collect())
            })
            .collect();
        let grid = SeatGrid::new(rows.iter().map(|(_, cells)| cells.clone()).collect());
        let Some(pair) = best_adjacent(&grid, 2, SeatKind::Standard) else {
            return false;
        };
        let paths: Vec<String> = pair
            .iter()
            .map(|p| format!("seats.{}.{}", rows[p.row].0, p.column))
            .collect();
        // `$expr` inside `$and`, not beside `_id`, as the gateway writes it: SecantusDB plans
        // the latter as a collection scan.
        let mut filter =
            doc! { "$and": [{ "_id": id }, { "$expr": { "$gt": ["$startsAt", "$$NOW"] } }] };
        let mut set = Document::new();
        for path in &paths {
            filter.insert(format!("{path}.state"), "AVAILABLE");
            set.insert(format!("{path}.state"), "HELD");
            set.insert(format!("{path}.hold"), hold);
        }
        let now = DateTime::now();
        let expires = DateTime::from_millis(now.timestamp_millis() + 600_000);
        let update = doc! {
            "$set": set,
            "$push": { "holds": { "id": hold, "channel": "bench", "expiresAt": expires } },
            "$inc": { "counts.available": -2, "counts.held": 2 },
        };
        if inventories
            .update_one(filter, update)
            .await
            .unwrap()
            .modified_count
            == 1
        {
            held = Some(paths);
            break;
        }
    }
    drop(chooser);
    let Some(paths) = held else { return false };
    let orders = db.collection::<Document>("orders");
    let order = ObjectId::new();
    orders
        .insert_one(doc! { "_id": order, "status": "PENDING", "holdId": hold, "channel": "bench" })
        .await
        .unwrap();
    let mut filter = doc! {
        "_id": id,
        "holds": { "$elemMatch": { "id": hold, "channel": "bench" } },
    };
    let mut set = Document::new();
    let mut unset = Document::new();
    for path in &paths {
        filter.insert(format!("{path}.state"), "HELD");
        filter.insert(format!("{path}.hold"), hold);
        set.insert(format!("{path}.state"), "SOLD");
        set.insert(format!("{path}.order"), order);
        unset.insert(format!("{path}.hold"), "");
    }
    let update = doc! {
        "$set": set,
        "$unset": unset,
        "$pull": { "holds": { "id": hold } },
        "$inc": { "counts.held": -2, "counts.sold": 2 },
    };
    if inventories
        .update_one(filter, update)
        .await
        .unwrap()
        .modified_count
        != 1
    {
        return false;
    }
    orders
        .update_one(
            doc! { "_id": order, "status": "PENDING" },
            doc! { "$set": { "status": "CONFIRMED" } },
        )
        .await
        .unwrap();
    true
}

/// One hold + confirm through the gateway's HTTP API, with `voucher` when given.
pub async fn gateway_pair(
    client: reqwest::Client,
    url: String,
    auth: String,
    showtime: ShowtimeId,
    voucher: Option<String>,
) -> bool {
    let id = GlobalId::Showtime(showtime).encode();
    let hold: serde_json::Value = client.post(&url).header("authorization", &auth)
        // One ADULT and one CHILD ticket, as the booking path holds them: the price matrix at work.
        .json(&json!({ "query": "mutation ($id: ID!, $voucher: String) { holdSeats(input: { showtimeId: $id, best: { count: 2 }, ticketTypes: [\"ADULT\", \"CHILD\"], voucher: $voucher }) { id } }", "variables": { "id": id, "voucher": voucher } }))
        .send().await.unwrap().json().await.unwrap();
    let Some(hold) = hold["data"]["holdSeats"]["id"].as_str() else {
        if std::env::var_os("BENCH_SHOW_FAILURES").is_some() {
            eprintln!("hold failed: {hold}");
        }
        return false;
    };
    let order: serde_json::Value = client.post(&url).header("authorization", &auth)
        .json(&json!({ "query": "mutation ($id: ID!) { confirmHold(input: { holdId: $id, customer: { name: \"n\", contact: \"c\" } }) { id } }", "variables": { "id": hold } }))
        .send().await.unwrap().json().await.unwrap();
    let confirmed = order["data"]["confirmHold"]["id"].is_string();
    if !confirmed && std::env::var_os("BENCH_SHOW_FAILURES").is_some() {
        eprintln!("confirm failed: {order}");
    }
    confirmed
}

/// One hold + confirm through the booking layer.
pub async fn booking_pair(
    store: Store,
    (locks, confirmations): (Arc<ShowtimeLocks>, Arc<orders::Confirmations>),
    policy: HoldPolicy,
    showtime: ShowtimeId,
) -> bool {
    // Two seats, one ADULT and one CHILD: the price matrix at work.
    let request = HoldRequest {
        showtime,
        choice: SeatChoice::Best {
            count: 2,
            kind: SeatKind::Standard,
        },
        ticket_types: vec![
            TicketType::adult(),
            TicketType::parse("bench", "CHILD").expect("built in"),
        ],
        carriage: None,
        offer: None,
    };
    let Ok(held) = holds::hold_seats(
        &store,
        &boxoffice::assembly::hold_endings(),
        &locks,
        "bench",
        &request,
        &policy,
        Attempt::unkeyed(),
        None,
    )
    .await
    else {
        return false;
    };
    let customer = Customer {
        name: "n".into(),
        contact: "c".into(),
    };
    let hold = held.hold.id;
    orders::confirm_hold(
        &store,
        &boxoffice::assembly::hold_endings(),
        &confirmations,
        &boxoffice::domain::ticket_codes::TicketSecret::random(),
        "bench",
        showtime,
        hold,
        customer,
        &policy,
        Attempt::unkeyed(),
    )
    .await
    .is_ok()
}
