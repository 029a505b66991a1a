//! The playground page, its assets, and its example operations.

use crate::helpers::TestApp;

#[tokio::test]
async fn the_playground_and_its_assets_are_served_by_the_gateway() {
    let app = TestApp::spawn().await;
    let page = app.get("/").await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("/playground/vendor/graphiql.min.js"));
    for asset in [
        "graphiql.min.js",
        "graphiql.min.css",
        "react.production.min.js",
        "react-dom.production.min.js",
    ] {
        let response = app.get(&format!("/playground/vendor/{asset}")).await;
        assert_eq!(response.status(), 200, "{asset}");
        assert!(
            response.bytes().await.unwrap().len() > 1_000,
            "{asset} has content"
        );
    }
    assert_eq!(app.get("/playground/vendor/nope.js").await.status(), 404);
    assert_eq!(app.get("/health").await.status(), 200);
}

#[tokio::test]
async fn every_example_file_is_offered_by_the_playground() {
    let app = TestApp::spawn().await;
    let offered: Vec<serde_json::Value> = app
        .get("/playground/examples.json")
        .await
        .json()
        .await
        .unwrap();
    let mut offered: Vec<String> = offered
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/playground/examples");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|entry| {
            let name = entry.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".graphql").map(str::to_owned)
        })
        .collect();
    offered.sort();
    on_disk.sort();
    assert_eq!(offered, on_disk);
}
