//! Sales channels and their API keys: who is calling, and what defaults to the caller.

use serde_json::json;

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::{GqlResponse, TestApp};

const CURRENT: &str = "{ currentChannel { code name } }";

#[tokio::test]
async fn a_channel_is_recognised_by_its_key_and_anonymous_reads_stay_open() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let key = catalogue.channel("maoyan", "猫眼电影");
    catalogue.channel("wechat", "微信电影票");
    catalogue.insert(&app).await;

    let anonymous = app.graphql(CURRENT, json!({})).await;
    assert_eq!(anonymous.data()["currentChannel"], serde_json::Value::Null);
    let known = app.graphql_as(key.as_str(), CURRENT, json!({})).await;
    assert_eq!(
        known.data()["currentChannel"],
        json!({ "code": "maoyan", "name": "猫眼电影" })
    );
}

#[tokio::test]
async fn wrong_credentials_are_refused_not_treated_as_anonymous() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let key = catalogue.channel("maoyan", "猫眼电影");
    catalogue.insert(&app).await;
    let unknown = boxoffice::domain::api_key::ApiKey::generate(&mut rand::rng());
    let body = json!({ "query": CURRENT });
    for (authorization, says) in [
        (format!("Bearer {}", unknown.as_str()), "unknown API key"),
        ("Bearer bo_nope".to_owned(), "malformed"),
        (format!("Basic {}", key.as_str()), "Bearer"),
        (format!("Bearer {}x", key.as_str()), "malformed"),
    ] {
        let (status, response) = app.post_with_authorization(&authorization, &body).await;
        assert_eq!(status, 401, "{authorization}");
        let response = GqlResponse(response);
        assert_eq!(response.error_code(), "UNAUTHENTICATED");
        assert!(
            response.error_message().contains(says),
            "{}",
            response.error_message()
        );
        assert!(response.0.get("data").is_none_or(|d| d.is_null()));
    }
}

#[tokio::test]
async fn a_showtime_price_defaults_to_the_calling_channel() {
    let app = TestApp::spawn().await;
    let mut catalogue = Catalogue::default();
    let maoyan = catalogue.channel("maoyan", "猫眼电影");
    let wechat = catalogue.channel("wechat", "微信电影票");
    let cinema = catalogue.cinema("影城", "上海", 31.2, 121.4);
    let hall = catalogue.hall(&cinema, "1号厅", &["SSSS"]);
    let movie = catalogue.movie("电影", &["剧情"]);
    let showtime = catalogue.showtime(&cinema, &hall, &movie, 2, &[("maoyan", 3900)]);
    catalogue.insert(&app).await;

    let query = "query ($id: ID!) { showtime(id: $id) { price { amount } other: price(channel: \"wechat\") { amount } } }";
    let id = json!({ "id": global_id("Showtime", showtime.id) });
    let as_maoyan = app.graphql_as(maoyan.as_str(), query, id.clone()).await;
    assert_eq!(
        as_maoyan.data()["showtime"],
        json!({ "price": { "amount": 3900 }, "other": null })
    );
    // wechat does not sell this showtime: its own price is null.
    let as_wechat = app
        .graphql_as(
            wechat.as_str(),
            "query ($id: ID!) { showtime(id: $id) { price { amount } } }",
            id.clone(),
        )
        .await;
    assert_eq!(
        as_wechat.data()["showtime"]["price"],
        serde_json::Value::Null
    );
    let anonymous = app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { price { amount } } }",
            id,
        )
        .await;
    assert_eq!(anonymous.error_code(), "BAD_USER_INPUT");
    assert!(anonymous.error_message().contains("name a `channel`"));
}

#[tokio::test]
async fn created_channels_get_a_working_key_and_codes_stay_unique() {
    let app = TestApp::spawn().await;
    let key = boxoffice::domain::api_key::ApiKey::generate(&mut rand::rng());
    app.store
        .create_channel("newapp", "新应用", key.hash(), None)
        .await
        .expect("create");
    let again = app
        .store
        .create_channel("newapp", "另一个", key.hash(), None)
        .await
        .unwrap_err();
    assert_eq!(again.code().as_str(), "BAD_USER_INPUT");
    assert!(again.to_string().contains("exists already"));
    let response = app.graphql_as(key.as_str(), CURRENT, json!({})).await;
    assert_eq!(response.data()["currentChannel"]["code"], "newapp");
}

#[tokio::test]
async fn the_demo_channels_keys_authenticate() {
    let app = TestApp::spawn().await;
    let plan = boxoffice::demo::DemoPlan {
        cinemas: 1,
        days: 1,
        ..boxoffice::demo::DemoPlan::small()
    };
    let loaded = boxoffice::demo::load(&app.store, &plan, false)
        .await
        .unwrap();
    assert_eq!(loaded.channel_keys.len(), 4);
    for (code, key) in &loaded.channel_keys {
        let response = app.graphql_as(key, CURRENT, json!({})).await;
        assert_eq!(&response.data()["currentChannel"]["code"], code.as_str());
    }
}
