//! A small sale for the booking tests, and the checks of the seat invariants they share.

use std::collections::{HashMap, HashSet};

use boxoffice::config::{BookingArgs, Limits};
use boxoffice::domain::ids::ShowtimeId;
use boxoffice::domain::seat::{SeatCounts, SeatState};
use boxoffice::holds::rules::HoldPolicy;
use boxoffice::idempotency::KeyPolicy;
use boxoffice::store::documents::SeatInventoryDoc;
use serde_json::{json, Value};

use crate::fixtures::{global_id, order_global_id, Catalogue};
use crate::helpers::TestApp;

pub const HOLD: &str = "mutation ($input: HoldSeatsInput!) { holdSeats(input: $input) {
    id channel expiresAt seats { label kind price { amount } } total { amount currency } } }";
const ORDERS_PAGE: &str = "query ($after: String) { orders(first: 100, after: $after) {
    edges { node { id status seats { label status } } } pageInfo { hasNextPage endCursor } } }";

pub struct Sale {
    pub app: TestApp,
    pub maoyan: String,
    pub wechat: String,
    pub showtime: String,
    pub showtime_id: ShowtimeId,
    /// The cinema's global id (for operator scopes).
    pub cinema: String,
}

/// A 3-row hall (A: 6 seats, B: 3 + aisle + 3, C: 4 couple seats) on sale on maoyan (¥40) and
/// wechat (¥38), starting in 2 hours.
pub async fn sale_with(policy: HoldPolicy) -> Sale {
    sale_in_hall(policy, &["SSSSSS", "SSS_SSS", "CCCC"]).await
}

/// The same sale in a hall of `rows` (`S` standard, `C` couple, `_` aisle).
pub async fn sale_in_hall(policy: HoldPolicy, rows: &[&str]) -> Sale {
    sale_with_keys(policy, KeyPolicy::default(), rows).await
}

/// The same sale on a gateway whose idempotency keys follow `keys`.
pub async fn sale_with_keys(policy: HoldPolicy, keys: KeyPolicy, rows: &[&str]) -> Sale {
    let app = TestApp::spawn_with_keys(Limits::default(), policy, keys).await;
    sale_on(app, rows).await
}

/// The sale on `app`'s database, in a hall of `rows`.
pub async fn sale_on(app: TestApp, rows: &[&str]) -> Sale {
    let mut catalogue = Catalogue::default();
    let maoyan = catalogue.channel("maoyan", "猫眼电影");
    let wechat = catalogue.channel("wechat", "微信电影票");
    catalogue.channel("taopiaopiao", "淘票票");
    let cinema = catalogue.cinema("影城", "上海", 31.2, 121.4);
    let hall = catalogue.hall(&cinema, "1号厅", rows);
    let movie = catalogue.movie("电影", &["剧情"]);
    let showtime = catalogue.showtime(
        &cinema,
        &hall,
        &movie,
        2,
        &[("maoyan", 4000), ("wechat", 3800)],
    );
    catalogue.insert(&app).await;
    Sale {
        app,
        maoyan: maoyan.as_str().to_owned(),
        wechat: wechat.as_str().to_owned(),
        showtime: global_id("Showtime", showtime.id),
        showtime_id: showtime.id,
        cinema: global_id("Cinema", cinema.id),
    }
}

pub async fn sale() -> Sale {
    sale_with(BookingArgs::default().hold_policy()).await
}

impl Sale {
    /// The API key of client `i` of a race: maoyan for even clients, wechat for odd ones.
    pub fn key_of_client(&self, i: usize) -> &str {
        if i.is_multiple_of(2) {
            &self.maoyan
        } else {
            &self.wechat
        }
    }

    pub async fn hold(&self, key: &str, seats: &[&str]) -> crate::helpers::GqlResponse {
        let input = json!({ "showtimeId": self.showtime, "seats": seats });
        self.app
            .graphql_as(key, HOLD, json!({ "input": input }))
            .await
    }

    pub async fn inventory(&self) -> SeatInventoryDoc {
        self.app
            .store
            .inventory(self.showtime_id)
            .await
            .unwrap()
            .unwrap()
    }

    /// Checks invariants 2 and 5 on the stored inventory; returns (label, state) of every seat.
    pub async fn check_invariants(&self) -> Vec<(String, SeatState)> {
        let inventory = self.inventory().await;
        let mut seats = Vec::new();
        let mut claimed = HashSet::new();
        let ids: HashSet<_> = inventory.holds.iter().map(|hold| hold.id).collect();
        assert_eq!(ids.len(), inventory.holds.len(), "two holds with one id");
        for fenced in &inventory.fenced_holds {
            assert!(!ids.contains(fenced), "fenced-off hold {fenced} is live");
        }
        for hold in &inventory.holds {
            for label in &hold.seats {
                assert!(claimed.insert(label.clone()), "{label} is in two holds");
            }
        }
        for (row, positions) in &inventory.seats {
            for (column, cell) in positions.iter().enumerate() {
                let Some(cell) = cell else { continue };
                let label = format!("{row}{}", column + 1);
                match cell.state {
                    SeatState::Held => {
                        let hold = inventory.holds.iter().find(|h| Some(h.id) == cell.hold);
                        let hold =
                            hold.unwrap_or_else(|| panic!("{label} is held by no live hold"));
                        assert!(hold.seats.contains(&label), "{label} is not in its hold");
                    }
                    _ => assert!(
                        !claimed.contains(&label),
                        "{label} is in a hold but not HELD"
                    ),
                }
                seats.push((label, cell.state));
            }
        }
        let tally = SeatCounts::tally(seats.iter().map(|(_, state)| *state));
        assert_eq!(inventory.counts, tally, "counts agree with the seats");
        assert_eq!(tally.total(), inventory.capacity as u32);
        seats
    }

    pub async fn states(&self, labels: &[&str]) -> Vec<SeatState> {
        let seats = self.check_invariants().await;
        labels
            .iter()
            .map(|l| seats.iter().find(|(label, _)| label == l).unwrap().1)
            .collect()
    }
}

impl Sale {
    /// Every order of the channel with API key `key`, through the API (all pages).
    pub async fn all_orders(&self, key: &str) -> Vec<Value> {
        let mut orders = Vec::new();
        let mut after = Value::Null;
        loop {
            let page = self
                .app
                .graphql_as(key, ORDERS_PAGE, json!({ "after": after }))
                .await;
            let connection = &page.data()["orders"];
            for edge in connection["edges"].as_array().unwrap() {
                orders.push(edge["node"].clone());
            }
            if connection["pageInfo"]["hasNextPage"] != true {
                return orders;
            }
            after = connection["pageInfo"]["endCursor"].clone();
        }
    }

    /// Checks invariant 6 as the channels see it: every CONFIRMED order's seats are SOLD under
    /// it, and every SOLD seat belongs to a CONFIRMED order that lists it. Returns the
    /// confirmed orders by id.
    pub async fn check_orders_agree_with_seats(&self) -> HashMap<String, Value> {
        let mut confirmed = HashMap::new();
        for key in [&self.maoyan, &self.wechat] {
            for order in self.all_orders(key).await {
                if order["status"] == "CONFIRMED" {
                    confirmed.insert(order["id"].as_str().unwrap().to_owned(), order);
                }
            }
        }
        let inventory = self.inventory().await;
        let mut sold_to: HashMap<String, Vec<String>> = HashMap::new();
        for (row, positions) in &inventory.seats {
            for (column, cell) in positions.iter().enumerate() {
                let Some(cell) = cell.as_ref().filter(|c| c.state == SeatState::Sold) else {
                    continue;
                };
                let label = format!("{row}{}", column + 1);
                let order = cell
                    .order
                    .unwrap_or_else(|| panic!("{label} is SOLD to no order"));
                sold_to
                    .entry(order_global_id(self.showtime_id, order))
                    .or_default()
                    .push(label);
            }
        }
        let mut seen = HashSet::new();
        for (id, order) in &confirmed {
            // Its seats that are still its own (a partial cancellation gave the others back).
            let mut labels: Vec<String> = order["seats"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|seat| seat["status"] == "SOLD")
                .map(|seat| seat["label"].as_str().unwrap().to_owned())
                .collect();
            labels.sort();
            for label in &labels {
                assert!(seen.insert(label.clone()), "{label} is in two orders");
            }
            let mut sold = sold_to.remove(id).unwrap_or_default();
            sold.sort();
            assert_eq!(labels, sold, "order {id}'s seats are SOLD under it");
        }
        assert!(
            sold_to.is_empty(),
            "seats SOLD to no confirmed order: {sold_to:?}"
        );
        confirmed
    }
}
