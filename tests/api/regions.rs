//! Regions as a tree: browsing provinces, cities and districts, the cinemas under a region of
//! any level in one indexed query, a cinema's region, regions as nodes, bad ids.

use boxoffice::catalogue::rules::region::RegionLevel::{City, District, Province};
use boxoffice::store::documents::RegionDoc;
use boxoffice::store::SentCommand;
use serde_json::{json, Value};

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::{field_of, nodes, TestApp};

const REGIONS: &str = r#"
query ($parent: ID, $first: Int, $after: String) {
  regions(parent: $parent, first: $first, after: $after) {
    edges { node { id name level parent { name } ancestors { name level } } }
    pageInfo { hasNextPage endCursor }
  }
}"#;

const CINEMAS_IN_REGION: &str = r#"
query ($region: ID, $first: Int, $after: String) {
  cinemas(region: $region, first: $first, after: $after) {
    edges { node { name city } }
    pageInfo { hasNextPage endCursor }
  }
}"#;

/// The fixture's tree and cinemas.
struct Tree {
    app: TestApp,
    guangdong: RegionDoc,
    shenzhen: RegionDoc,
    nanshan: RegionDoc,
    futian: RegionDoc,
}

/// 广东省 {广州 {天河区}, 深圳 {南山区, 福田区}}, 浙江省 {杭州 {西湖区}}, 北京市 {北京 {朝阳区}},
/// cinemas in most districts, and one cinema of 深圳 written before regions (no path).
async fn tree() -> Tree {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let guangdong = catalogue.region("广东省", Province, None);
    let zhejiang = catalogue.region("浙江省", Province, None);
    let beijing_province = catalogue.region("北京市", Province, None);
    let shenzhen = catalogue.region("深圳", City, Some(&guangdong));
    let guangzhou = catalogue.region("广州", City, Some(&guangdong));
    let hangzhou = catalogue.region("杭州", City, Some(&zhejiang));
    let beijing = catalogue.region("北京", City, Some(&beijing_province));
    let nanshan = catalogue.region("南山区", District, Some(&shenzhen));
    let futian = catalogue.region("福田区", District, Some(&shenzhen));
    let tianhe = catalogue.region("天河区", District, Some(&guangzhou));
    let xihu = catalogue.region("西湖区", District, Some(&hangzhou));
    let chaoyang = catalogue.region("朝阳区", District, Some(&beijing));
    for name in ["C南山", "A南山", "B南山"] {
        catalogue.cinema_in(name, &shenzhen, &nanshan);
    }
    for name in ["D福田", "A福田"] {
        catalogue.cinema_in(name, &shenzhen, &futian);
    }
    for name in ["B天河", "A天河"] {
        catalogue.cinema_in(name, &guangzhou, &tianhe);
    }
    catalogue.cinema_in("A西湖", &hangzhou, &xihu);
    catalogue.cinema_in("A朝阳", &beijing, &chaoyang);
    catalogue.cinema("Z无区", "深圳", 22.5, 114.0);
    catalogue.insert(&app).await;
    Tree {
        app,
        guangdong,
        shenzhen,
        nanshan,
        futian,
    }
}

fn region_id(region: &RegionDoc) -> String {
    global_id("Region", region.id)
}

/// Every page of `query`'s connection at `field`, `first` at a time: the names page by page.
async fn pages(
    app: &TestApp,
    query: &str,
    field: &str,
    variables: Value,
    first: i64,
) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut after = Value::Null;
    loop {
        let mut vars = variables.clone();
        vars["first"] = json!(first);
        vars["after"] = after;
        let response = app.graphql(query, vars).await;
        let connection = &response.data()[field];
        pages.push(field_of(connection, "name"));
        if !connection["pageInfo"]["hasNextPage"].as_bool().unwrap() {
            return pages;
        }
        after = connection["pageInfo"]["endCursor"].clone();
    }
}

#[tokio::test]
async fn the_tree_is_browsed_from_the_provinces_down_with_ancestors_root_first() {
    let tree = tree().await;
    let app = &tree.app;

    let provinces = app.graphql(REGIONS, json!({})).await;
    let provinces = &provinces.data()["regions"];
    // Name order is the order of the names' bytes: 北 (U+5317) < 广 (U+5E7F) < 浙 (U+6D59).
    assert_eq!(field_of(provinces, "name"), ["北京市", "广东省", "浙江省"]);
    for province in nodes(provinces) {
        assert_eq!(province["level"], "PROVINCE");
        assert_eq!(province["parent"], Value::Null);
        assert_eq!(province["ancestors"], json!([]));
    }
    let guangdong = nodes(provinces)[1]["id"].clone();
    assert_eq!(guangdong, json!(region_id(&tree.guangdong)));

    let cities = app.graphql(REGIONS, json!({ "parent": guangdong })).await;
    let cities = &cities.data()["regions"];
    assert_eq!(field_of(cities, "name"), ["广州", "深圳"]);
    let shenzhen = &nodes(cities)[1];
    assert_eq!(shenzhen["level"], "CITY");
    assert_eq!(shenzhen["parent"]["name"], "广东省");
    assert_eq!(
        shenzhen["ancestors"],
        json!([{ "name": "广东省", "level": "PROVINCE" }])
    );

    // Districts one page at a time, through the keyset cursor.
    let districts = pages(
        app,
        REGIONS,
        "regions",
        json!({ "parent": shenzhen["id"] }),
        1,
    )
    .await;
    assert_eq!(districts, [vec!["南山区"], vec!["福田区"]]);
    let nanshan = app
        .graphql(REGIONS, json!({ "parent": shenzhen["id"], "first": 1 }))
        .await;
    let nanshan = &nodes(&nanshan.data()["regions"])[0];
    assert_eq!(nanshan["level"], "DISTRICT");
    assert_eq!(nanshan["parent"]["name"], "深圳");
    assert_eq!(
        nanshan["ancestors"],
        json!([
            { "name": "广东省", "level": "PROVINCE" },
            { "name": "深圳", "level": "CITY" }
        ])
    );

    // The same tree through `children`; a district has none.
    let nested = app
        .graphql(
            "query ($id: ID!) { node(id: $id) { ... on Region {
                children { edges { node { name children { edges { node { name
                  children { edges { node { name } } } } } } } } } } } }",
            json!({ "id": region_id(&tree.guangdong) }),
        )
        .await;
    assert_eq!(
        nested.data()["node"]["children"],
        json!({ "edges": [
            { "node": { "name": "广州", "children": { "edges": [
                { "node": { "name": "天河区", "children": { "edges": [] } } }] } } },
            { "node": { "name": "深圳", "children": { "edges": [
                { "node": { "name": "南山区", "children": { "edges": [] } } },
                { "node": { "name": "福田区", "children": { "edges": [] } } }] } } }
        ] })
    );
}

#[tokio::test]
async fn cinemas_of_a_province_a_city_and_a_district_come_in_city_then_name_order_across_pages() {
    let tree = tree().await;
    let app = &tree.app;
    let cases = [
        (
            &tree.guangdong,
            // 广州 (U+5E7F) before 深圳 (U+6DF1); the cinema without a path is in none.
            vec![
                "A天河", "B天河", "A南山", "A福田", "B南山", "C南山", "D福田",
            ],
        ),
        (
            &tree.shenzhen,
            vec!["A南山", "A福田", "B南山", "C南山", "D福田"],
        ),
        (&tree.nanshan, vec!["A南山", "B南山", "C南山"]),
        (&tree.futian, vec!["A福田", "D福田"]),
    ];
    for (region, expected) in cases {
        let found = pages(
            app,
            CINEMAS_IN_REGION,
            "cinemas",
            json!({ "region": region_id(region) }),
            2,
        )
        .await;
        assert!(found.iter().all(|page| page.len() <= 2), "{found:?}");
        assert_eq!(found.concat(), expected, "cinemas under {}", region.name);
    }
    // Every cinema is still listed without the filter, the one without a region too.
    let all = pages(app, CINEMAS_IN_REGION, "cinemas", json!({}), 50).await;
    assert_eq!(all.concat().len(), 10);
}

#[tokio::test]
async fn a_cinema_knows_its_district_and_through_it_its_city_and_province() {
    let tree = tree().await;
    let response = tree
        .app
        .graphql(
            r#"query ($region: ID) { cinemas(region: $region, first: 1) { edges { node {
                name district region { name level ancestors { name } } } } } }"#,
            json!({ "region": region_id(&tree.futian) }),
        )
        .await;
    assert_eq!(
        nodes(&response.data()["cinemas"])[0],
        json!({ "name": "A福田", "district": "福田区", "region": {
            "name": "福田区", "level": "DISTRICT",
            "ancestors": [{ "name": "广东省" }, { "name": "深圳" }] } })
    );
    let legacy = tree
        .app
        .graphql(
            r#"{ cinemas(nameContains: "无区") { edges { node { name region { name } } } } }"#,
            json!({}),
        )
        .await;
    assert_eq!(
        nodes(&legacy.data()["cinemas"]),
        [json!({ "name": "Z无区", "region": null })]
    );
}

#[tokio::test]
async fn a_region_is_a_node() {
    let tree = tree().await;
    let response = tree
        .app
        .graphql(
            "query ($id: ID!) { node(id: $id) { id ... on Region { name level
                parent { name } cinemas(first: 10) { edges { node { name } } } } } }",
            json!({ "id": region_id(&tree.nanshan) }),
        )
        .await;
    let node = &response.data()["node"];
    assert_eq!(node["id"], json!(region_id(&tree.nanshan)));
    assert_eq!(node["name"], "南山区");
    assert_eq!(node["level"], "DISTRICT");
    assert_eq!(node["parent"]["name"], "深圳");
    assert_eq!(
        field_of(&node["cinemas"], "name"),
        ["A南山", "B南山", "C南山"]
    );
    let unknown = global_id("Region", [7u8; 12]);
    let missing = tree
        .app
        .graphql(
            "query ($id: ID!) { node(id: $id) { id } }",
            json!({ "id": unknown }),
        )
        .await;
    assert_eq!(missing.data()["node"], Value::Null);
}

#[tokio::test]
async fn bad_region_ids_are_bad_user_input_and_unknown_regions_have_nothing() {
    let tree = tree().await;
    let app = &tree.app;
    let cinema = global_id("Cinema", [1u8; 12]);
    for bad in ["not-an-id", cinema.as_str()] {
        let listed = app
            .graphql(CINEMAS_IN_REGION, json!({ "region": bad }))
            .await;
        assert_eq!(listed.error_code(), "BAD_USER_INPUT", "{bad}");
        let browsed = app.graphql(REGIONS, json!({ "parent": bad })).await;
        assert_eq!(browsed.error_code(), "BAD_USER_INPUT", "{bad}");
    }
    let unknown = global_id("Region", [7u8; 12]);
    let listed = app
        .graphql(CINEMAS_IN_REGION, json!({ "region": unknown }))
        .await;
    assert_eq!(nodes(&listed.data()["cinemas"]), Vec::<Value>::new());
    let browsed = app.graphql(REGIONS, json!({ "parent": unknown })).await;
    assert_eq!(nodes(&browsed.data()["regions"]), Vec::<Value>::new());
}

/// Runs `query` and returns its data and the commands it sent.
async fn recorded(app: &TestApp, query: &str, variables: Value) -> (Value, Vec<SentCommand>) {
    app.store.commands().start();
    let data = app.graphql(query, variables).await.data().clone();
    (data, app.store.commands().take())
}

#[tokio::test]
async fn cinemas_of_a_region_with_their_regions_cost_three_finds_whatever_the_page() {
    let tree = tree().await;
    let query = r#"query ($region: ID) { cinemas(region: $region, first: 50) { edges { node {
        name region { name ancestors { name } } } } } }"#;
    for region in [&tree.guangdong, &tree.nanshan] {
        let (data, commands) =
            recorded(&tree.app, query, json!({ "region": region_id(region) })).await;
        assert!(!nodes(&data["cinemas"]).is_empty());
        let sent: Vec<String> = commands
            .iter()
            .map(|c| format!("{} {}", c.name, c.collection.as_deref().unwrap_or("")))
            .collect();
        // The page, the districts of its cinemas (one `$in`), their ancestors (one `$in`).
        assert_eq!(
            sent,
            ["find cinemas", "find regions", "find regions"],
            "{}",
            region.name
        );
    }
}

/// Explains the one `find` of `cinemas(region:)`: served by `region_city_name`, no collection
/// scan, no sort in memory, and no more documents read than returned (plus the one read to
/// know whether there is a next page). Gives (returned, documents examined, keys examined).
async fn examined(app: &TestApp, region: &str, first: i64) -> (usize, i64, i64) {
    let (data, commands) = recorded(
        app,
        CINEMAS_IN_REGION,
        json!({ "region": region, "first": first }),
    )
    .await;
    let returned = nodes(&data["cinemas"]).len();
    assert_eq!(commands.len(), 1, "one query: {commands:?}");
    let plan = app
        .store
        .plan_of(&commands[0])
        .await
        .unwrap()
        .expect("a find is explained");
    assert_eq!(plan.command, "find");
    assert!(
        !plan.collection_scan && plan.winning_plan.contains("region_city_name"),
        "not served by region_city_name: {}",
        plan.winning_plan
    );
    assert!(
        !plan.winning_plan.contains("\"SORT\""),
        "sorted in memory: {}",
        plan.winning_plan
    );
    let read = returned as i64 + i64::from(data["cinemas"]["pageInfo"]["hasNextPage"] == true);
    assert!(
        plan.docs_examined <= read && plan.keys_examined <= read + 1,
        "{region}: {returned} returned, {} documents and {} keys examined",
        plan.docs_examined,
        plan.keys_examined
    );
    (returned, plan.docs_examined, plan.keys_examined)
}

#[tokio::test]
async fn cinemas_of_a_region_are_one_indexed_query_at_every_level() {
    let tree = tree().await;
    // Enough other cinemas that a scan, or a walk of the city-and-name index, would show.
    let mut more = Catalogue::default();
    let province = more.region("四川省", Province, None);
    let city = more.region("成都", City, Some(&province));
    let district = more.region("锦江区", District, Some(&city));
    for i in 0..40 {
        more.cinema_in(&format!("影城{i:02}"), &city, &district);
    }
    more.insert(&tree.app).await;
    for region in [&tree.guangdong, &tree.shenzhen, &tree.nanshan] {
        let (returned, docs, keys) = examined(&tree.app, &region_id(region), 50).await;
        println!(
            "cinemas(region: {}): {returned} returned, {docs} documents and {keys} keys examined",
            region.name
        );
    }
    let (returned, docs, _) = examined(&tree.app, &region_id(&tree.guangdong), 2).await;
    assert_eq!(
        (returned, docs),
        (2, 3),
        "a page reads one document past its end"
    );
}

/// The region tree of the small demo (40 cinemas): each level of `cinemas(region:)` reads the
/// cinemas it returns and no others, and a city's cinemas are the same as `cinemas(city:)`'s.
#[tokio::test]
async fn the_demo_writes_regions_and_every_cinema_has_its_path() {
    let app = TestApp::spawn().await;
    boxoffice::demo::load(&app.store, &boxoffice::demo::DemoPlan::small(), false)
        .await
        .expect("demo loads");
    let provinces = app.graphql(REGIONS, json!({ "first": 50 })).await;
    let provinces = nodes(&provinces.data()["regions"]);
    assert_eq!(provinces.len(), 20);
    let guangdong = provinces
        .iter()
        .find(|p| p["name"] == "广东省")
        .expect("广东省")["id"]
        .clone();
    let cities = app
        .graphql(REGIONS, json!({ "parent": guangdong, "first": 50 }))
        .await;
    let cities = nodes(&cities.data()["regions"]);
    assert_eq!(
        cities.iter().map(|c| c["name"].clone()).collect::<Vec<_>>(),
        ["广州", "深圳"]
    );
    let shenzhen = cities[1]["id"].as_str().unwrap().to_owned();

    let by_region = pages(
        &app,
        CINEMAS_IN_REGION,
        "cinemas",
        json!({ "region": shenzhen }),
        3,
    )
    .await
    .concat();
    let by_city = pages(
        &app,
        CINEMAS_IN_REGION
            .replace("$region: ID", "$city: String")
            .replace("region: $region", "city: $city")
            .as_str(),
        "cinemas",
        json!({ "city": "深圳" }),
        3,
    )
    .await
    .concat();
    assert!(!by_region.is_empty());
    assert_eq!(by_region, by_city);

    // A district of 深圳 with cinemas, through a cinema's region.
    let cinema = app
        .graphql(
            r#"query ($region: ID) { cinemas(region: $region, first: 1) { edges { node {
                region { id name ancestors { name } } } } } }"#,
            json!({ "region": shenzhen }),
        )
        .await;
    let district = nodes(&cinema.data()["cinemas"])[0]["region"].clone();
    assert_eq!(
        district["ancestors"],
        json!([{ "name": "广东省" }, { "name": "深圳" }])
    );
    let guangdong = guangdong.as_str().unwrap();
    for (level, id) in [
        ("province 广东省", guangdong),
        ("city 深圳", shenzhen.as_str()),
        ("district", district["id"].as_str().unwrap()),
    ] {
        let (returned, docs, keys) = examined(&app, id, 100).await;
        println!(
            "demo (40 cinemas) cinemas(region: {level}): {returned} returned, {docs} documents and {keys} keys examined"
        );
        assert_eq!(docs, returned as i64, "{level}");
    }
}

/// A measurement, not a test: the documents and keys `cinemas(region:)` examines at each level
/// on a demo catalogue of `BOXOFFICE_REGION_FIGURES_CINEMAS` cinemas (default 500, one day),
/// every page of 50 walked. `cargo test --test api -- --ignored region_figures --nocapture`.
#[tokio::test]
#[ignore = "a measurement, not a test"]
async fn region_figures() {
    let cinemas = std::env::var("BOXOFFICE_REGION_FIGURES_CINEMAS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(500);
    let app = TestApp::spawn().await;
    let plan = boxoffice::demo::DemoPlan {
        cinemas,
        days: 1,
        ..boxoffice::demo::DemoPlan::small()
    };
    boxoffice::demo::load(&app.store, &plan, false)
        .await
        .expect("demo loads");
    let id_named = |connection: &Value, name: &str| {
        nodes(connection)
            .into_iter()
            .find(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let provinces = app.graphql(REGIONS, json!({ "first": 50 })).await;
    let guangdong = id_named(&provinces.data()["regions"], "广东省");
    let cities = app
        .graphql(REGIONS, json!({ "parent": guangdong, "first": 50 }))
        .await;
    let shenzhen = id_named(&cities.data()["regions"], "深圳");
    let districts = app
        .graphql(REGIONS, json!({ "parent": shenzhen, "first": 50 }))
        .await;
    let nanshan = id_named(&districts.data()["regions"], "南山区");
    for (level, region) in [
        ("province 广东省", guangdong),
        ("city 深圳", shenzhen),
        ("district 南山区", nanshan),
    ] {
        let (mut returned, mut docs, mut keys, mut queries) = (0, 0, 0, 0);
        let mut after = Value::Null;
        loop {
            let (data, commands) = recorded(
                &app,
                CINEMAS_IN_REGION,
                json!({ "region": region, "first": 50, "after": after }),
            )
            .await;
            queries += commands.len();
            for command in &commands {
                let plan = app.store.plan_of(command).await.unwrap().unwrap();
                assert!(plan.winning_plan.contains("region_city_name"));
                docs += plan.docs_examined;
                keys += plan.keys_examined;
            }
            returned += nodes(&data["cinemas"]).len();
            if data["cinemas"]["pageInfo"]["hasNextPage"] != true {
                break;
            }
            after = data["cinemas"]["pageInfo"]["endCursor"].clone();
        }
        println!(
            "{cinemas} cinemas, {level}: {returned} cinemas in {queries} queries (pages of 50), {docs} documents and {keys} keys examined"
        );
    }
}
