//! Operators creating and changing cinemas and movies: the happy paths read back through the
//! public queries, every validation error, scope, callers that may not, idempotent retries and
//! the audit log.

use boxoffice::catalogue::rules::region::RegionLevel;
use boxoffice::store::documents::RegionDoc;
use serde_json::{json, Value};

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::TestApp;

pub const CREATE_CINEMA: &str =
    "mutation ($input: CreateCinemaInput!) { createCinema(input: $input) {
    id name city district address amenities location { latitude longitude } region { id name } } }";
pub const UPDATE_CINEMA: &str =
    "mutation ($input: UpdateCinemaInput!) { updateCinema(input: $input) {
    id name city district address amenities location { latitude longitude } region { id } } }";
pub const CREATE_MOVIE: &str = "mutation ($input: CreateMovieInput!) { createMovie(input: $input) {
    id title originalTitle year runtimeMinutes genres directors topCast posterUrl
    details { plot fullPlot languages countries cast { name character } } } }";
pub const UPDATE_MOVIE: &str = "mutation ($input: UpdateMovieInput!) { updateMovie(input: $input) {
    id title runtimeMinutes genres details { plot cast { name } } } }";
const CINEMA: &str = "query ($id: ID!) { node(id: $id) { ... on Cinema { name city district
    address amenities location { latitude longitude } region { id } } } }";
const MOVIE: &str = "query ($id: ID!) { node(id: $id) { ... on Movie { title year runtimeMinutes
    genres details { plot cast { name character } } } } }";
pub const AUDIT: &str = "query { auditLog(first: 20) { edges { node {
    operator operation subject cinemaId before after } } } }";

/// A province, a city and two districts; a chain operator with no cinema yet, the platform.
pub struct Tree {
    pub app: TestApp,
    pub city: RegionDoc,
    pub nanshan: RegionDoc,
    pub futian: RegionDoc,
    pub platform: String,
    pub chain: String,
    pub channel: String,
}

pub async fn tree() -> Tree {
    tree_on(TestApp::spawn().await).await
}

/// The same tree on `app`'s database (a gateway with other policies).
pub async fn tree_on(app: TestApp) -> Tree {
    let mut catalogue = Catalogue::default();
    let channel = catalogue.channel("maoyan", "猫眼").as_str().to_owned();
    let province = catalogue.region("广东省", RegionLevel::Province, None);
    let city = catalogue.region("深圳", RegionLevel::City, Some(&province));
    let nanshan = catalogue.region("南山区", RegionLevel::District, Some(&city));
    let futian = catalogue.region("福田区", RegionLevel::District, Some(&city));
    catalogue.insert(&app).await;
    let platform = app.operator_key("platform", None).await;
    let chain = app.operator_key("wanda", Some(&[])).await;
    Tree {
        app,
        city,
        nanshan,
        futian,
        platform,
        chain,
        channel,
    }
}

pub fn cinema_input(district: &RegionDoc) -> Value {
    json!({
        "name": " 万达影城（南山店） ",
        "address": "南山区海德三道1号",
        "regionId": global_id("Region", district.id),
        "location": { "latitude": 22.52, "longitude": 113.93 },
        "amenities": ["停车场", "IMAX"],
    })
}

pub fn movie_input() -> Value {
    json!({
        "title": "流浪地球3",
        "year": 2027,
        "runtimeMinutes": 150,
        "genres": ["科幻"],
        "directors": ["郭帆"],
        "topCast": ["吴京"],
        "posterUrl": "https://img.example.cn/posters/wde3.jpg",
        "plot": "太阳即将毁灭。",
        "languages": ["汉语普通话"],
        "cast": [{ "name": "吴京", "character": "刘培强" }],
    })
}

fn with(mut input: Value, changes: Value) -> Value {
    for (field, value) in changes.as_object().expect("an object") {
        input[field] = value.clone();
    }
    input
}

/// A collection of the app's database, read with the driver (to check what was written).
pub async fn raw(app: &TestApp, collection: &str) -> mongodb::Collection<bson::Document> {
    mongodb::Client::with_uri_str(crate::helpers::mongodb_uri())
        .await
        .expect("connect")
        .database(app.store.database_name())
        .collection(collection)
}

pub async fn count(app: &TestApp, collection: &str) -> u64 {
    raw(app, collection)
        .await
        .count_documents(bson::doc! {})
        .await
        .expect("count")
}

#[tokio::test]
async fn a_chain_creates_a_cinema_in_a_district_and_may_then_change_it() {
    let t = tree().await;
    let created = t
        .app
        .graphql_as(
            &t.chain,
            CREATE_CINEMA,
            json!({ "input": cinema_input(&t.nanshan) }),
        )
        .await;
    let cinema = created.data()["createCinema"].clone();
    assert_eq!(cinema["name"], "万达影城（南山店）", "trimmed");
    // City and district come from the region tree, not from the caller.
    assert_eq!(cinema["city"], "深圳");
    assert_eq!(cinema["district"], "南山区");
    assert_eq!(cinema["region"]["name"], "南山区");
    assert_eq!(cinema["amenities"], json!(["停车场", "IMAX"]));
    let read = t.app.graphql(CINEMA, json!({ "id": cinema["id"] })).await;
    assert_eq!(read.data()["node"]["address"], "南山区海德三道1号");
    assert_eq!(read.data()["node"]["location"]["latitude"], 22.52);
    // The new cinema joined the chain's scope: it may change it.
    let moved = t
        .app
        .graphql_as(
            &t.chain,
            UPDATE_CINEMA,
            json!({ "input": { "cinemaId": cinema["id"], "regionId": global_id("Region", t.futian.id),
                "amenities": ["餐饮"] } }),
        )
        .await;
    let moved = &moved.data()["updateCinema"];
    assert_eq!(moved["district"], "福田区");
    assert_eq!(moved["region"]["id"], global_id("Region", t.futian.id));
    assert_eq!(moved["name"], "万达影城（南山店）", "kept");
    assert_eq!(moved["amenities"], json!(["餐饮"]));

    let audit = t.app.graphql_as(&t.platform, AUDIT, json!({})).await;
    let entries = audit.data()["auditLog"]["edges"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(entries.len(), 2);
    let update = &entries[0]["node"];
    assert_eq!(update["operator"], "wanda");
    assert_eq!(update["operation"], "updateCinema");
    assert_eq!(update["subject"], cinema["id"]);
    assert_eq!(update["cinemaId"], cinema["id"]);
    let before: Value = serde_json::from_str(update["before"].as_str().unwrap()).unwrap();
    let after: Value = serde_json::from_str(update["after"].as_str().unwrap()).unwrap();
    assert_eq!(before["district"], "南山区");
    assert_eq!(after["district"], "福田区");
    assert_eq!(after["amenities"], json!(["餐饮"]));
    assert!(
        after.get("name").is_none(),
        "only the written fields: {after}"
    );
    assert_eq!(entries[1]["node"]["operation"], "createCinema");
    assert!(entries[1]["node"]["before"].is_null());
}

#[tokio::test]
async fn every_bad_cinema_is_refused_with_what_is_wrong_and_nothing_is_written() {
    let t = tree().await;
    let long = "路".repeat(201);
    let cases = [
        (json!({ "name": "  " }), "name must not be empty"),
        (json!({ "name": "影\u{7}城" }), "control character"),
        (
            json!({ "address": long }),
            "address has 201 characters; at most 200",
        ),
        (
            json!({ "location": { "latitude": 91.0, "longitude": 113.9 } }),
            "latitude 91 is not between -90 and 90",
        ),
        (
            json!({ "location": { "latitude": 22.5, "longitude": 181.0 } }),
            "longitude 181 is not between -180 and 180",
        ),
        (
            json!({ "amenities": ["停车场", "停车场"] }),
            "names `停车场` twice",
        ),
        (
            json!({ "amenities": [""] }),
            "amenities[0] must not be empty",
        ),
        (
            json!({ "regionId": global_id("Region", t.city.id) }),
            "is a City, not a district",
        ),
        (
            json!({ "regionId": global_id("Region", [7; 12]) }),
            "does not exist",
        ),
        (
            json!({ "regionId": global_id("Movie", [7; 12]) }),
            "is the id of a Movie, not of a Region",
        ),
    ];
    for (change, message) in cases {
        let input = with(cinema_input(&t.nanshan), change.clone());
        let refused = t
            .app
            .graphql_as(&t.chain, CREATE_CINEMA, json!({ "input": input }))
            .await;
        assert_eq!(refused.error_code(), "BAD_USER_INPUT", "{change}");
        assert!(
            refused.error_message().contains(message),
            "{change}: {}",
            refused.error_message()
        );
    }
    assert_eq!(count(&t.app, "cinemas").await, 0);
    let nothing = t
        .app
        .graphql_as(
            &t.platform,
            UPDATE_CINEMA,
            json!({ "input": { "cinemaId": global_id("Cinema", [1; 12]) } }),
        )
        .await;
    assert_eq!(nothing.error_code(), "BAD_USER_INPUT");
    assert!(nothing.error_message().contains("nothing to change"));
    let missing = t
        .app
        .graphql_as(
            &t.platform,
            UPDATE_CINEMA,
            json!({ "input": { "cinemaId": global_id("Cinema", [1; 12]), "name": "新" } }),
        )
        .await;
    assert_eq!(missing.error_code(), "NOT_FOUND");
}

#[tokio::test]
async fn only_an_operator_of_the_cinema_may_change_it() {
    let t = tree().await;
    let created = t
        .app
        .graphql_as(
            &t.chain,
            CREATE_CINEMA,
            json!({ "input": cinema_input(&t.nanshan) }),
        )
        .await;
    let id = created.data()["createCinema"]["id"].clone();
    let other = t.app.operator_key("cgv", Some(&[])).await;
    let rename = json!({ "input": { "cinemaId": id, "name": "被改名" } });
    let refused = t
        .app
        .graphql_as(&other, UPDATE_CINEMA, rename.clone())
        .await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    assert!(refused
        .error_message()
        .contains("operator `cgv` may not write cinema"));
    let refused = t
        .app
        .graphql_as(&t.channel, UPDATE_CINEMA, rename.clone())
        .await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    let refused = t
        .app
        .graphql_as(
            &t.channel,
            CREATE_CINEMA,
            json!({ "input": cinema_input(&t.nanshan) }),
        )
        .await;
    assert_eq!(refused.error_code(), "FORBIDDEN");
    let refused = t.app.graphql(UPDATE_CINEMA, rename.clone()).await;
    assert_eq!(refused.error_code(), "UNAUTHENTICATED");
    let refused = t
        .app
        .graphql(CREATE_CINEMA, json!({ "input": cinema_input(&t.nanshan) }))
        .await;
    assert_eq!(refused.error_code(), "UNAUTHENTICATED");
    let read = t.app.graphql(CINEMA, json!({ "id": id })).await;
    assert_eq!(
        read.data()["node"]["name"],
        "万达影城（南山店）",
        "unchanged"
    );
    assert_eq!(count(&t.app, "cinemas").await, 1);
    // The platform writes every cinema.
    let renamed = t.app.graphql_as(&t.platform, UPDATE_CINEMA, rename).await;
    assert_eq!(renamed.data()["updateCinema"]["name"], "被改名");
}

#[tokio::test]
async fn a_retried_create_makes_one_cinema_and_a_reused_key_is_refused() {
    let t = tree().await;
    let input = with(
        cinema_input(&t.nanshan),
        json!({ "idempotencyKey": "cinema-1" }),
    );
    let first = t
        .app
        .graphql_as(&t.chain, CREATE_CINEMA, json!({ "input": input }))
        .await;
    let again = t
        .app
        .graphql_as(&t.chain, CREATE_CINEMA, json!({ "input": input }))
        .await;
    assert_eq!(first.data(), again.data());
    assert_eq!(count(&t.app, "cinemas").await, 1);
    let other = with(input.clone(), json!({ "name": "另一家" }));
    let reused = t
        .app
        .graphql_as(&t.chain, CREATE_CINEMA, json!({ "input": other }))
        .await;
    assert_eq!(reused.error_code(), "IDEMPOTENCY_KEY_REUSED");
    // Keys are per operator: another operator's same key is its own.
    let cgv = t.app.operator_key("cgv", Some(&[])).await;
    let theirs = t
        .app
        .graphql_as(&cgv, CREATE_CINEMA, json!({ "input": input }))
        .await;
    assert_ne!(
        theirs.data()["createCinema"]["id"],
        first.data()["createCinema"]["id"]
    );
    let audit = t.app.graphql_as(&t.platform, AUDIT, json!({})).await;
    assert_eq!(
        audit.data()["auditLog"]["edges"].as_array().unwrap().len(),
        2
    );
}

#[tokio::test]
async fn the_platform_creates_and_changes_movies_and_a_chain_may_not() {
    let t = tree().await;
    let input = with(movie_input(), json!({ "idempotencyKey": "movie-1" }));
    let created = t
        .app
        .graphql_as(&t.platform, CREATE_MOVIE, json!({ "input": input }))
        .await;
    let movie = created.data()["createMovie"].clone();
    assert_eq!(movie["title"], "流浪地球3");
    assert_eq!(movie["originalTitle"], "流浪地球3", "defaults to the title");
    assert_eq!(movie["details"]["cast"][0]["character"], "刘培强");
    let again = t
        .app
        .graphql_as(&t.platform, CREATE_MOVIE, json!({ "input": input }))
        .await;
    assert_eq!(again.data(), created.data());
    assert_eq!(count(&t.app, "movies").await, 1);
    assert_eq!(count(&t.app, "movie_details").await, 1);
    let reused = t
        .app
        .graphql_as(
            &t.platform,
            CREATE_MOVIE,
            json!({ "input": with(input, json!({ "year": 2026 })) }),
        )
        .await;
    assert_eq!(reused.error_code(), "IDEMPOTENCY_KEY_REUSED");

    let update = json!({ "input": { "movieId": movie["id"], "runtimeMinutes": 155,
        "genres": ["科幻", "冒险"], "plot": "地球再次出发。", "cast": [{ "name": "刘德华" }] } });
    let updated = t
        .app
        .graphql_as(&t.platform, UPDATE_MOVIE, update.clone())
        .await;
    let updated = &updated.data()["updateMovie"];
    assert_eq!(updated["runtimeMinutes"], 155);
    assert_eq!(updated["title"], "流浪地球3", "kept");
    assert_eq!(updated["details"]["plot"], "地球再次出发。");
    let read = t.app.graphql(MOVIE, json!({ "id": movie["id"] })).await;
    assert_eq!(read.data()["node"]["genres"], json!(["科幻", "冒险"]));
    assert_eq!(
        read.data()["node"]["details"]["cast"],
        json!([{ "name": "刘德华", "character": "" }])
    );

    for caller in [&t.chain, &t.channel] {
        let refused = t.app.graphql_as(caller, UPDATE_MOVIE, update.clone()).await;
        assert_eq!(refused.error_code(), "FORBIDDEN");
        let refused = t
            .app
            .graphql_as(caller, CREATE_MOVIE, json!({ "input": movie_input() }))
            .await;
        assert_eq!(refused.error_code(), "FORBIDDEN");
    }
    let refused = t
        .app
        .graphql_as(&t.chain, UPDATE_MOVIE, update.clone())
        .await;
    assert!(refused
        .error_message()
        .contains("only the platform operator writes movies"));
    let refused = t.app.graphql(UPDATE_MOVIE, update).await;
    assert_eq!(refused.error_code(), "UNAUTHENTICATED");
    assert_eq!(count(&t.app, "movies").await, 1);

    let audit = t.app.graphql_as(&t.platform, AUDIT, json!({})).await;
    let entries = audit.data()["auditLog"]["edges"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(entries.len(), 2);
    let entry = &entries[0]["node"];
    assert_eq!(entry["operation"], "updateMovie");
    assert!(entry["cinemaId"].is_null());
    let before: Value = serde_json::from_str(entry["before"].as_str().unwrap()).unwrap();
    let after: Value = serde_json::from_str(entry["after"].as_str().unwrap()).unwrap();
    assert_eq!(before["runtimeMinutes"], 150);
    assert_eq!(after["runtimeMinutes"], 155);
    assert_eq!(after["plot"], "地球再次出发。");
}

#[tokio::test]
async fn every_bad_movie_is_refused_with_what_is_wrong_and_nothing_is_written() {
    let t = tree().await;
    let cases = [
        (json!({ "title": "" }), "title must not be empty"),
        (json!({ "year": 1887 }), "year 1887 is not between 1888 and"),
        (
            json!({ "runtimeMinutes": 0 }),
            "runtimeMinutes 0 is not between 1 and 600",
        ),
        (json!({ "runtimeMinutes": 601 }), "runtimeMinutes 601"),
        (json!({ "genres": [] }), "genres needs at least one genre"),
        (
            json!({ "genres": ["科幻", "科幻"] }),
            "genres names `科幻` twice",
        ),
        (
            json!({ "genres": ["a", "b", "c", "d", "e", "f"] }),
            "genres has 6 entries; at most 5",
        ),
        (
            json!({ "posterUrl": "http://img.example.cn/p.jpg" }),
            "posterUrl must be an https://",
        ),
        (
            json!({ "plot": "字".repeat(1001) }),
            "plot has 1001 characters; at most 1000",
        ),
        (
            json!({ "cast": [{ "name": " " }] }),
            "cast[0].name must not be empty",
        ),
        (
            json!({ "directors": vec!["某"; 11] }),
            "directors has 11 entries; at most 10",
        ),
    ];
    for (change, message) in cases {
        let input = with(movie_input(), change.clone());
        let refused = t
            .app
            .graphql_as(&t.platform, CREATE_MOVIE, json!({ "input": input }))
            .await;
        assert_eq!(refused.error_code(), "BAD_USER_INPUT", "{change}");
        assert!(
            refused.error_message().contains(message),
            "{change}: {}",
            refused.error_message()
        );
    }
    assert_eq!(count(&t.app, "movies").await, 0);
    assert_eq!(count(&t.app, "movie_details").await, 0);
    let missing = json!({ "input": { "movieId": global_id("Movie", [3; 12]), "plot": "x" } });
    let refused = t.app.graphql_as(&t.platform, UPDATE_MOVIE, missing).await;
    assert_eq!(refused.error_code(), "NOT_FOUND");
    let nothing = json!({ "input": { "movieId": global_id("Movie", [3; 12]) } });
    let refused = t.app.graphql_as(&t.platform, UPDATE_MOVIE, nothing).await;
    assert_eq!(refused.error_code(), "BAD_USER_INPUT");
    assert!(refused.error_message().contains("nothing to change"));
}

#[tokio::test]
async fn the_store_refuses_a_document_that_breaks_a_rule_whoever_writes_it() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let cinema = catalogue.cinema("影城", "北京", 39.9, 116.4);
    let mut hall = catalogue.hall(&cinema, "1号厅", &["SSSS"]);
    hall.capacity = 5;
    let error = app.store.insert_halls(&[hall]).await.unwrap_err();
    assert_eq!(error.code().as_str(), "BAD_USER_INPUT");
    assert!(error
        .client_message()
        .contains("capacity 5 is not the layout's 4 seats"));
    let untrimmed = boxoffice::store::documents::CinemaDoc {
        name: " 影城".into(),
        ..cinema.clone()
    };
    let error = app.store.insert_cinemas(&[untrimmed]).await.unwrap_err();
    assert!(
        error.client_message().contains("to be stored as"),
        "{error}"
    );
    // A cinema whose city is not its district's city in the tree the batch carries.
    let mut batch = Catalogue::default();
    let province = batch.region("广东省", RegionLevel::Province, None);
    let city = batch.region("深圳", RegionLevel::City, Some(&province));
    let district = batch.region("南山区", RegionLevel::District, Some(&city));
    let mut wrong = batch.cinema_in("影城", &city, &district);
    wrong.city = "广州".into();
    *batch.0.cinemas.last_mut().unwrap() = wrong;
    let error = app.store.insert_catalogue(&batch.0).await.unwrap_err();
    assert!(
        error
            .client_message()
            .contains("do not match the region tree"),
        "{error}"
    );
    assert_eq!(
        count(&app, "regions").await,
        0,
        "nothing of the batch written"
    );
    assert_eq!(count(&app, "cinemas").await, 0);
    assert_eq!(count(&app, "theaters").await, 0);
}
