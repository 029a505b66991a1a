//! `findSeats`: the best seats for a party across the showtimes of an area, ranked, priced,
//! in three reads whatever the number of cinemas, and refusing bad input with a code.

use boxoffice::domain::geo::GeoPoint;
use boxoffice::seat_search::rules::{METERS_PER_POINT, SEARCH_SHOWTIMES};
use boxoffice::store::documents::{CinemaDoc, HallDoc, MovieDoc, ShowtimeDoc};
use boxoffice::store::SentCommand;
use chrono::{Duration, Utc};
use serde_json::{json, Value};

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::{nodes, TestApp};
use crate::round_trips::names;

pub const FIND_SEATS: &str = "query ($input: FindSeatsInput!, $first: Int, $after: String) {
    findSeats(input: $input, first: $first, after: $after) {
        edges { cursor node {
            showtime { id startsAt cinema { name } movie { title } }
            distanceMeters seats leavesSingleSeat totalPrice { amount currency } score } }
        pageInfo { hasNextPage endCursor } } }";

/// The searched point (上海 人民广场).
const LATITUDE: f64 = 31.2304;
const LONGITUDE: f64 = 121.4737;
/// A hall of 5 rows of 8 seats.
const HALL: [&str; 5] = ["SSSSSSSS"; 5];

struct Town {
    app: TestApp,
    maoyan: String,
    near: CinemaDoc,
    far: CinemaDoc,
    movie: MovieDoc,
    /// The movie at the nearest cinema in 2 hours, then at the cinema 3 km away in 2 hours.
    showtimes: Vec<ShowtimeDoc>,
}

/// Two cinemas within 5 km (0 m and about 3 km) and one at about 8 km, showing the movie in 2
/// hours; also another movie at the nearest cinema, and the movie there in 30 hours.
async fn town() -> Town {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let maoyan = catalogue.channel("maoyan", "猫眼电影");
    catalogue.channel("wechat", "微信电影票");
    let near = catalogue.cinema("人民广场影城", "上海", LATITUDE, LONGITUDE);
    let far = catalogue.cinema("静安影城", "上海", LATITUDE + 0.027, LONGITUDE);
    let outside = catalogue.cinema("宝山影城", "上海", LATITUDE + 0.072, LONGITUDE);
    let movie = catalogue.movie("流浪地球", &["科幻"]);
    let other = catalogue.movie("另一部", &["剧情"]);
    let prices = [("maoyan", 4000), ("wechat", 3800)];
    let hall = |catalogue: &mut Catalogue, cinema: &CinemaDoc| -> HallDoc {
        catalogue.hall(cinema, "1号厅", &HALL)
    };
    let near_hall = hall(&mut catalogue, &near);
    let near_other_hall = hall(&mut catalogue, &near);
    let far_hall = hall(&mut catalogue, &far);
    let outside_hall = hall(&mut catalogue, &outside);
    let at_near = catalogue.showtime(&near, &near_hall, &movie, 2, &prices);
    let at_far = catalogue.showtime(&far, &far_hall, &movie, 2, &prices);
    catalogue.showtime(&near, &near_other_hall, &other, 2, &prices);
    catalogue.showtime(&outside, &outside_hall, &movie, 2, &prices);
    catalogue.showtime(&near, &near_hall, &movie, 30, &prices);
    catalogue.insert(&app).await;
    Town {
        app,
        maoyan: maoyan.as_str().to_owned(),
        near,
        far,
        movie,
        showtimes: vec![at_near, at_far],
    }
}

impl Town {
    /// The movie, within 5 km, in the next 4 hours, for `party`.
    fn search(&self, party: i64) -> Value {
        json!({
            "movieId": global_id("Movie", self.movie.id),
            "near": { "latitude": LATITUDE, "longitude": LONGITUDE, "radiusMeters": 5000 },
            "startsBefore": Utc::now() + Duration::hours(4),
            "partySize": party,
            "channel": "maoyan",
        })
    }

    async fn find(&self, input: Value) -> Vec<Value> {
        let found = self
            .app
            .graphql(FIND_SEATS, json!({ "input": input }))
            .await;
        nodes(&found.data()["findSeats"])
    }
}

fn seats_of(option: &Value) -> Vec<String> {
    serde_json::from_value(option["seats"].clone()).unwrap()
}

#[tokio::test]
async fn options_are_the_best_seats_of_each_showtime_in_the_area_ranked_by_their_score() {
    let town = town().await;
    let options = town.find(town.search(2)).await;
    // Only the movie, within the radius, in the window: the nearest cinema first.
    let ids: Vec<&Value> = options.iter().map(|o| &o["showtime"]["id"]).collect();
    let expected: Vec<String> = (town.showtimes.iter())
        .map(|s| global_id("Showtime", s.id))
        .collect();
    assert_eq!(ids, expected.iter().collect::<Vec<_>>(), "{options:#?}");
    assert_eq!(options[0]["showtime"]["cinema"]["name"], "人民广场影城");
    assert!(options[0]["distanceMeters"].as_f64().unwrap() < 1.0);
    // The same hall, the same start: the scores differ by the distance alone, in tenths of a
    // point per METERS_PER_POINT.
    let far = GeoPoint::new(town.far.location.latitude(), town.far.location.longitude()).unwrap();
    let meters = GeoPoint::new(LATITUDE, LONGITUDE)
        .unwrap()
        .distance_meters(&far);
    let reported = options[1]["distanceMeters"].as_f64().unwrap();
    assert!((reported - meters).abs() < 5.0, "{reported} vs {meters}");
    let gap = options[1]["score"].as_i64().unwrap() - options[0]["score"].as_i64().unwrap();
    assert_eq!(gap as u64, reported.round() as u64 * 10 / METERS_PER_POINT);
    // Two seats at maoyan's ¥40 each, the seats best-available would choose.
    for option in &options {
        assert_eq!(
            option["totalPrice"],
            json!({ "amount": 8000, "currency": "CNY" })
        );
        assert_eq!(option["leavesSingleSeat"], false);
    }
    let held = town
        .app
        .graphql_as(
            &town.maoyan,
            crate::sale::HOLD,
            json!({ "input": { "showtimeId": expected[0], "best": { "count": 2 } } }),
        )
        .await;
    let held: Vec<&Value> = held.data()["holdSeats"]["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| &seat["label"])
        .collect();
    assert_eq!(
        held,
        options[0]["seats"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>()
    );
    // Held, those seats are never offered again: the next best pair of that showtime is.
    let again = town.find(town.search(2)).await;
    let offered = again
        .iter()
        .find(|o| o["showtime"]["id"] == expected[0].as_str())
        .expect("the showtime still has pairs");
    assert!(seats_of(offered)
        .iter()
        .all(|seat| !seats_of(&options[0]).contains(seat)));
}

#[tokio::test]
async fn pages_follow_the_ranking_and_prices_follow_the_channel_and_ticket_types() {
    let town = town().await;
    let all = town.find(town.search(3)).await;
    assert_eq!(all.len(), 2);
    let first = town
        .app
        .graphql(FIND_SEATS, json!({ "input": town.search(3), "first": 1 }))
        .await;
    let page = &first.data()["findSeats"];
    assert_eq!(nodes(page), all[..1]);
    assert_eq!(page["pageInfo"]["hasNextPage"], true);
    let second = town
        .app
        .graphql(
            FIND_SEATS,
            json!({ "input": town.search(3), "first": 1, "after": page["pageInfo"]["endCursor"] }),
        )
        .await;
    let page = &second.data()["findSeats"];
    assert_eq!(nodes(page), all[1..]);
    assert_eq!(page["pageInfo"]["hasNextPage"], false);
    // wechat's price, and its key's default channel.
    let mut input = town.search(3);
    input["channel"] = json!("wechat");
    let wechat = town.find(input).await;
    assert_eq!(wechat[0]["totalPrice"]["amount"], 3 * 3800);
    let mut input = town.search(3);
    input.as_object_mut().unwrap().remove("channel");
    let by_key = town
        .app
        .graphql_as(&town.maoyan, FIND_SEATS, json!({ "input": input }))
        .await;
    assert_eq!(nodes(&by_key.data()["findSeats"]), all);
    // A ticket type the showtimes have no price for: no option, and no error (CHILD exists).
    let mut input = town.search(2);
    input["ticketTypes"] = json!(["ADULT", "CHILD"]);
    assert!(town.find(input).await.is_empty());
}

#[tokio::test]
async fn a_showtime_without_room_for_the_party_is_no_option() {
    let town = town().await;
    let near = global_id("Showtime", town.showtimes[0].id);
    // Leave no three free seats together at the nearest cinema: hold every third seat.
    for rows in [&["A", "B", "C"][..], &["D", "E"]] {
        let every_third: Vec<String> = rows
            .iter()
            .flat_map(|row| [3, 6].map(|n| format!("{row}{n}")))
            .collect();
        let held = town
            .app
            .graphql_as(
                &town.maoyan,
                crate::sale::HOLD,
                json!({ "input": { "showtimeId": near, "seats": every_third } }),
            )
            .await;
        held.data();
    }
    let for_three = town.find(town.search(3)).await;
    assert_eq!(for_three.len(), 1);
    assert_eq!(for_three[0]["showtime"]["cinema"]["name"], "静安影城");
    // Pairs still fit there.
    assert_eq!(town.find(town.search(2)).await.len(), 2);
}

#[tokio::test]
async fn a_region_search_finds_its_cinemas_without_distances() {
    use boxoffice::catalogue::rules::region::RegionLevel;
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    catalogue.channel("maoyan", "猫眼电影");
    let province = catalogue.region("广东省", RegionLevel::Province, None);
    let city = catalogue.region("深圳市", RegionLevel::City, Some(&province));
    let nanshan = catalogue.region("南山区", RegionLevel::District, Some(&city));
    let futian = catalogue.region("福田区", RegionLevel::District, Some(&city));
    let in_nanshan = catalogue.cinema_in("南山影城", &city, &nanshan);
    let in_futian = catalogue.cinema_in("福田影城", &city, &futian);
    let movie = catalogue.movie("电影", &["剧情"]);
    for cinema in [&in_nanshan, &in_futian] {
        let hall = catalogue.hall(cinema, "1号厅", &HALL);
        catalogue.showtime(cinema, &hall, &movie, 1, &[("maoyan", 4000)]);
    }
    catalogue.insert(&app).await;
    let search = |region: &boxoffice::store::documents::RegionDoc| {
        json!({ "input": {
            "regionId": global_id("Region", region.id),
            "startsBefore": Utc::now() + Duration::hours(3),
            "partySize": 2, "channel": "maoyan",
        } })
    };
    let found = app.graphql(FIND_SEATS, search(&city)).await;
    let options = nodes(&found.data()["findSeats"]);
    assert_eq!(options.len(), 2);
    assert!(options.iter().all(|o| o["distanceMeters"].is_null()));
    let found = app.graphql(FIND_SEATS, search(&nanshan)).await;
    let options = nodes(&found.data()["findSeats"]);
    assert_eq!(options.len(), 1);
    assert_eq!(options[0]["showtime"]["cinema"]["name"], "南山影城");
}

/// The commands one search sends.
async fn commands_of_search(app: &TestApp, input: Value) -> (Vec<SentCommand>, usize) {
    app.store.commands().start();
    let found = app
        .graphql(FIND_SEATS, json!({ "input": input, "first": 50 }))
        .await;
    let commands = app.store.commands().take();
    (commands, nodes(&found.data()["findSeats"]).len())
}

#[tokio::test]
async fn a_search_reads_three_times_whatever_the_number_of_cinemas_and_showtimes() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    catalogue.channel("maoyan", "猫眼电影");
    let movie = catalogue.movie("电影", &["剧情"]);
    for i in 0..12 {
        let cinema = catalogue.cinema(
            &format!("影城{i}"),
            "上海",
            LATITUDE + 0.001 * i as f64,
            LONGITUDE,
        );
        for hours in [1, 2, 3] {
            let hall = catalogue.hall(&cinema, &format!("{hours}号厅"), &HALL);
            catalogue.showtime(&cinema, &hall, &movie, hours, &[("maoyan", 4000)]);
        }
    }
    // The rest of the country: many more showtimes in the window, at cinemas far away, which
    // a plan on `starts` (the window, whatever the cinema) would read and throw away.
    for i in 0..40 {
        let cinema = catalogue.cinema(&format!("北京影城{i}"), "北京", 39.9, 116.4);
        for hours in [1, 2, 3] {
            for hall in 0..3 {
                let hall = catalogue.hall(&cinema, &format!("{hall}号厅"), &["SS"]);
                catalogue.showtime(&cinema, &hall, &movie, hours, &[("maoyan", 4000)]);
            }
        }
    }
    catalogue.insert(&app).await;
    let input = |radius: f64| {
        json!({
            "near": { "latitude": LATITUDE, "longitude": LONGITUDE, "radiusMeters": radius },
            "startsBefore": Utc::now() + Duration::hours(4),
            "partySize": 2, "channel": "maoyan",
        })
    };
    let expected = ["find cinemas", "find seat_inventory", "find showtimes"];
    // One cinema (within 50 m), then all twelve: the same three commands.
    let (one, found) = commands_of_search(&app, input(50.0)).await;
    assert_eq!(
        (names(&one), found),
        (expected.map(String::from).to_vec(), 3)
    );
    let (all, found) = commands_of_search(&app, input(5_000.0)).await;
    assert_eq!(
        (names(&all), found),
        (expected.map(String::from).to_vec(), 36)
    );
    // The showtimes are read through `cinema_starts` (unhinted), and no document outside the
    // cinemas' window is examined.
    let cinemas: Vec<_> = catalogue_cinemas(&app, "上海").await;
    let search = boxoffice::seat_search::store::SearchedShowtimes {
        cinemas: &cinemas,
        movie: None,
        window: boxoffice::seat_search::rules::SearchWindow::new(
            None,
            Some(Utc::now() + Duration::hours(4)),
            Utc::now(),
        )
        .unwrap(),
    };
    let explained =
        boxoffice::seat_search::store::explain_showtimes(&app.store, &search, SEARCH_SHOWTIMES)
            .await
            .unwrap();
    let plan = explained
        .get_document("queryPlanner")
        .and_then(|planner| planner.get_document("winningPlan"))
        .unwrap();
    // An index led by the cinema (`cinema_starts`, one range per cinema merged in start
    // order, on the national demo; here, with few documents, SecantusDB may take
    // `cinema_movie_hall` and sort), never `starts` or `channel_starts`, which read the
    // window's showtimes of the whole country.
    let mut scanned = Vec::new();
    crate::showtimes::scanned_indexes(plan, &mut scanned);
    scanned.dedup();
    assert!(
        scanned.len() == 1 && ["cinema_starts", "cinema_movie_hall"].contains(&&*scanned[0]),
        "{plan}"
    );
    let stats = explained.get_document("executionStats").unwrap();
    let examined = stats
        .get("totalDocsExamined")
        .and_then(bson::Bson::as_i64)
        .or_else(|| stats.get_i32("totalDocsExamined").ok().map(i64::from))
        .unwrap();
    assert!(examined <= 36, "{stats}");
}

/// The ids of the cinemas of `city`.
async fn catalogue_cinemas(app: &TestApp, city: &str) -> Vec<boxoffice::domain::ids::CinemaId> {
    let page = boxoffice::domain::paging::PageRequest {
        first: 100,
        after: None,
    };
    let listed = app
        .store
        .list_cinemas(
            &boxoffice::catalogue::CinemaFilter {
                city: Some(city.to_owned()),
                ..Default::default()
            },
            &page,
        )
        .await
        .unwrap();
    listed
        .items
        .into_iter()
        .map(|(_, cinema)| cinema.id)
        .collect()
}

#[tokio::test]
async fn bad_searches_are_refused_with_a_code_and_unknown_names_are_told_apart() {
    let town = town().await;
    let refused = |change: Value| {
        let mut input = town.search(2);
        for (key, value) in change.as_object().unwrap() {
            if value.is_null() {
                input.as_object_mut().unwrap().remove(key);
            } else {
                input[key] = value.clone();
            }
        }
        input
    };
    let in_an_hour = Utc::now() + Duration::hours(1);
    let cases = [
        (
            json!({ "near": { "latitude": LATITUDE, "longitude": LONGITUDE, "radiusMeters": 0 } }),
            "BAD_USER_INPUT",
            "radiusMeters",
        ),
        (
            json!({ "near": { "latitude": LATITUDE, "longitude": LONGITUDE, "radiusMeters": 60000 } }),
            "BAD_USER_INPUT",
            "radiusMeters",
        ),
        (
            json!({ "near": { "latitude": 91, "longitude": LONGITUDE, "radiusMeters": 10 } }),
            "BAD_USER_INPUT",
            "latitude",
        ),
        (json!({ "near": null }), "BAD_USER_INPUT", "exactly one"),
        (
            json!({ "regionId": global_id("Region", [7u8; 12]) }),
            "BAD_USER_INPUT",
            "exactly one",
        ),
        (
            json!({ "startsFrom": in_an_hour, "startsBefore": in_an_hour + Duration::hours(25) }),
            "BAD_USER_INPUT",
            "24 hours",
        ),
        (
            json!({ "startsBefore": Utc::now() - Duration::hours(1) }),
            "BAD_USER_INPUT",
            "startsBefore",
        ),
        (json!({ "partySize": 0 }), "BAD_USER_INPUT", "partySize"),
        (json!({ "partySize": 11 }), "BAD_USER_INPUT", "partySize"),
        (
            json!({ "kind": "COUPLE", "partySize": 3 }),
            "BAD_USER_INPUT",
            "pairs",
        ),
        (
            json!({ "ticketTypes": ["ADULT"] }),
            "BAD_USER_INPUT",
            "ticketTypes",
        ),
        (
            json!({ "ticketType": "child" }),
            "BAD_USER_INPUT",
            "ticketType",
        ),
        (
            json!({ "ticketType": "NOBODY" }),
            "BAD_USER_INPUT",
            "unknown ticket type NOBODY",
        ),
        (
            json!({ "channel": "nobody" }),
            "BAD_USER_INPUT",
            "no sales channel `nobody`",
        ),
        (
            json!({ "channel": null }),
            "BAD_USER_INPUT",
            "give `channel`",
        ),
        (
            json!({ "movieId": global_id("Movie", [7u8; 12]) }),
            "NOT_FOUND",
            "movie",
        ),
    ];
    for (change, code, says) in cases {
        let input = refused(change.clone());
        let answer = town
            .app
            .graphql(FIND_SEATS, json!({ "input": input }))
            .await;
        assert_eq!(answer.error_code(), code, "{change}: {:?}", answer.errors());
        assert!(
            answer.error_message().contains(says),
            "{change}: {}",
            answer.error_message()
        );
    }
    let unknown_region = json!({ "input": {
        "regionId": global_id("Region", [7u8; 12]),
        "startsBefore": Utc::now() + Duration::hours(3), "partySize": 2, "channel": "maoyan" } });
    let answer = town.app.graphql(FIND_SEATS, unknown_region).await;
    assert_eq!(answer.error_code(), "BAD_USER_INPUT");
    let answer = town
        .app
        .graphql(
            FIND_SEATS,
            json!({ "input": town.search(2), "after": "bm90IGEgY3Vyc29y" }),
        )
        .await;
    assert_eq!(answer.error_code(), "BAD_USER_INPUT");
    // Nothing was held by any of it.
    let options = town.find(town.search(2)).await;
    assert_eq!(options.len(), 2);
    assert!(town.near.name == options[0]["showtime"]["cinema"]["name"]);
}

#[tokio::test]
async fn buyers_racing_for_the_first_option_get_it_once_and_the_next_search_offers_other_seats() {
    let town = town().await;
    let options = town.find(town.search(2)).await;
    let first = options[0].clone();
    let input = json!({ "input": {
        "showtimeId": first["showtime"]["id"], "seats": first["seats"] } });
    let attempts = futures::future::join_all((0..16).map(|_| {
        town.app
            .graphql_as(&town.maoyan, crate::sale::HOLD, input.clone())
    }))
    .await;
    let won = |a: &&crate::helpers::GqlResponse| a.0.get("errors").is_none();
    assert_eq!(attempts.iter().filter(won).count(), 1);
    for lost in attempts.iter().filter(|a| !won(a)) {
        assert_eq!(lost.error_code(), "SEAT_UNAVAILABLE");
    }
    let again = town.find(town.search(2)).await;
    let same_showtime = again
        .iter()
        .find(|o| o["showtime"]["id"] == first["showtime"]["id"])
        .unwrap();
    let taken = seats_of(&first);
    assert!(seats_of(same_showtime).iter().all(|s| !taken.contains(s)));
    // The price of what was held is the price the option showed.
    let held = attempts.iter().find(won).unwrap();
    assert_eq!(
        held.data()["holdSeats"]["total"]["amount"],
        first["totalPrice"]["amount"]
    );
}
