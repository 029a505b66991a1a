//! Seat maps as the query asks for them: counts without reading a single seat, and a compact
//! form (a string of states and one of kinds per row) that says what the full form says.

use serde_json::json;

use crate::helpers::nodes;
use crate::sale::sale;

/// The sale's hall (A: 6 seats, B: 3 + aisle + 3, C: 4 couple seats) with A1 and A2 held,
/// B2 sold.
#[tokio::test]
async fn the_compact_rows_say_what_the_seats_say() {
    let sale = sale().await;
    sale.hold_id(&sale.maoyan, &["A1", "A2"]).await;
    let sold = sale.hold_id(&sale.wechat, &["B2"]).await;
    let confirm = "mutation ($hold: ID!) { confirmHold(input: { holdId: $hold,
        customer: { name: \"张三\", contact: \"13800000000\" } }) { id } }";
    sale.app
        .graphql_as(&sale.wechat, confirm, json!({ "hold": sold }))
        .await
        .data();

    let query = "query ($id: ID!) { showtime(id: $id) { seatMap {
        rows { label states kinds seats { column kind state } } } } }";
    let response = sale
        .app
        .graphql(query, json!({ "id": sale.showtime }))
        .await;
    let rows = response.data()["showtime"]["seatMap"]["rows"]
        .as_array()
        .unwrap()
        .clone();
    let compact: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|row| {
            let text = |field: &str| row[field].as_str().unwrap();
            (text("label"), text("states"), text("kinds"))
        })
        .collect();
    assert_eq!(
        compact,
        [
            ("A", "hhaaaa", "ssssss"),
            ("B", "asa_aaa", "sss_sss"),
            ("C", "aaaa", "cccc")
        ]
    );
    // Character `column` of a row is the seat at that column, in either form.
    for row in &rows {
        let states: Vec<char> = row["states"].as_str().unwrap().chars().collect();
        for seat in row["seats"].as_array().unwrap() {
            let column = seat["column"].as_u64().unwrap() as usize;
            let state = seat["state"].as_str().unwrap();
            assert_eq!(
                states[column],
                state.to_ascii_lowercase().chars().next().unwrap(),
                "{row}"
            );
        }
    }
}

/// `find seat_inventory` as a page of showtimes asks for `fields` of each seat map: the bytes
/// of its reply.
async fn seat_map_bytes(app: &crate::helpers::TestApp, fields: &str) -> usize {
    let query =
        format!("{{ showtimes(first: 50) {{ edges {{ node {{ seatMap {{ {fields} }} }} }} }} }}");
    let (response, bytes) = app
        .graphql_reading("seat_inventory", &query, json!({}))
        .await;
    assert_eq!(nodes(&response.data()["showtimes"]).len(), 1);
    bytes
}

#[tokio::test]
async fn counts_read_no_seats_and_rows_read_no_holds() {
    let sale = sale().await;
    // Holds fill the inventory's `holds` list, which no seat map reads.
    for seat in ["A1", "A2", "A3", "A4", "A5", "A6"] {
        sale.hold_id(&sale.maoyan, &[seat]).await;
    }
    let counts = seat_map_bytes(&sale.app, "counts { available held }").await;
    let compact = seat_map_bytes(&sale.app, "rows { states }").await;
    let width = seat_map_bytes(&sale.app, "width counts { held }").await;
    println!("seat_inventory reply: counts {counts} B, rows {compact} B, width {width} B");
    // The counts and the capacity of one document, and the reply's envelope.
    assert!(counts < 400, "{counts}");
    // The 16 seats' kinds and states (and a held seat's hold id): at most 70 bytes each. Not
    // the six holds, each with its id, channel, seats, price and times (over 100 bytes each).
    assert!(compact > counts + 16 * 20, "{compact} vs {counts}");
    assert!(compact < counts + 16 * 70, "{compact} vs {counts}");
    assert_eq!(width, compact, "`width` needs the seats too");
}
