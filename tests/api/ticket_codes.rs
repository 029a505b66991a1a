//! A confirmed order's tickets: a QR payload per seat that names its ticket and cannot be
//! forged, and a pickup code for kiosks; both derived from the deployment's secret, so every
//! gateway gives the same ones, and gone with the seats they stood for.

use boxoffice::domain::global_id;
use boxoffice::domain::ticket_codes::Ticket;
use serde_json::{json, Value};

use crate::helpers::{mongodb_uri, test_ticket_secret};
use crate::processes::GatewayProcess;
use crate::sale::sale;

const TICKETS: &str = "query ($id: ID!) { order(id: $id) { status pickupCode
    tickets { seat code } } }";

fn tickets(order: &Value) -> Vec<(String, String)> {
    order["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["seat"].as_str().unwrap().to_owned(),
                t["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_confirmed_orders_tickets_carry_codes_that_verify_to_their_seat() {
    let sale = sale().await;
    let order = sale.order(&sale.maoyan, &["A1", "A2"]).await;
    let read = sale
        .app
        .graphql_as(&sale.maoyan, TICKETS, json!({ "id": order }))
        .await;
    let read = read.data()["order"].clone();
    let issued = tickets(&read);
    assert_eq!(issued.len(), 2);
    let order_id = global_id::order_id(order.as_str().unwrap()).unwrap();
    let cinema = global_id::cinema_id(&sale.cinema).unwrap();
    for (seat, code) in &issued {
        let ticket = Ticket::verify(&test_ticket_secret(), code).expect("a code of ours");
        assert_eq!(
            ticket,
            Ticket {
                cinema,
                showtime: sale.showtime_id,
                order: order_id,
                seat: seat.clone(),
            }
        );
        let forged = format!("{}A", &code[..code.len() - 1]);
        assert!(
            forged == *code || Ticket::verify(&test_ticket_secret(), &forged).is_err(),
            "an altered code is refused"
        );
    }
    let pickup = read["pickupCode"].as_str().unwrap();
    assert_eq!(pickup.len(), 10);
    let other = sale.order(&sale.maoyan, &["A3"]).await;
    let other = sale
        .app
        .graphql_as(&sale.maoyan, TICKETS, json!({ "id": other }))
        .await;
    assert_ne!(other.data()["order"]["pickupCode"], pickup, "one per order");

    // Another gateway process of the deployment gives the same codes.
    let process = GatewayProcess::start(&mongodb_uri(), sale.app.store.database_name(), &[]);
    let response: Value = reqwest::Client::new()
        .post(process.url())
        .bearer_auth(&sale.maoyan)
        .json(&json!({ "query": TICKETS, "variables": { "id": order } }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(response["data"]["order"], read);

    // A cancelled seat's ticket is gone; a cancelled order has none and no pickup code.
    sale.cancel_seats(&order, Some(&["A2"])).await.data();
    let read = sale
        .app
        .graphql_as(&sale.maoyan, TICKETS, json!({ "id": order }))
        .await;
    let left = tickets(&read.data()["order"]);
    assert_eq!(left, issued[..1].to_vec());
    sale.cancel_seats(&order, None).await.data();
    let read = sale
        .app
        .graphql_as(&sale.maoyan, TICKETS, json!({ "id": order }))
        .await;
    assert_eq!(read.data()["order"]["tickets"], json!([]));
    assert_eq!(read.data()["order"]["pickupCode"], Value::Null);
}
