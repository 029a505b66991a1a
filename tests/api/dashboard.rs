//! The sales dashboard (`/dashboard`), driven in Chromium by `tests/browser/dashboard.mjs`: a
//! wrong key shows the error state; another chain's key sees none of this cinema; the chain's
//! own key sees the cinema's day, whose occupancy bar shows a hold made through the API within
//! 2 s and drops it when it is released; the revenue it shows is what `hourlySales` says and
//! what the orders add up to, to the fen. The screenshot goes to a temporary directory.

use serde_json::{json, Value};

use crate::browser::{assert_chromium, run};
use crate::concessions::{order_items, product};
use crate::fixtures::{global_id, Catalogue};
use crate::sale::sale;

#[tokio::test]
async fn the_dashboard_and_its_assets_are_served_by_the_gateway() {
    let sale = sale().await;
    let page = sale.app.get("/dashboard").await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    for asset in [
        "/dashboard/assets/dashboard.js",
        "/dashboard/assets/dashboard.css",
        "/playground/vendor/graphql-ws.min.js",
    ] {
        assert!(html.contains(asset), "the page loads {asset}");
    }
    for asset in ["dashboard.js", "charts.js", "format.js", "dashboard.css"] {
        let response = sale.app.get(&format!("/dashboard/assets/{asset}")).await;
        assert_eq!(response.status(), 200, "{asset}");
        assert!(response.bytes().await.unwrap().len() > 1_000, "{asset}");
    }
    assert_eq!(
        sale.app.get("/dashboard/assets/nope.js").await.status(),
        404
    );
}

/// The revenue of the cinema's hourly buckets in `[from, before)`, as the API says.
async fn api_revenue(sale: &crate::sale::Sale, from: &str, before: &str) -> (i64, i64, i64) {
    let read = sale
        .app
        .graphql(
            "query ($id: ID!, $from: DateTime!, $before: DateTime!) { node(id: $id) {
             ... on Cinema { hourlySales(from: $from, before: $before, first: 100) { edges { node {
             sales { revenue { amount } ticketRevenue { amount } concessionRevenue { amount } } } } } } } }",
            json!({ "id": sale.cinema, "from": from, "before": before }),
        )
        .await;
    let nodes = crate::helpers::nodes(&read.data()["node"]["hourlySales"]);
    let sum = |field: &str| -> i64 {
        (nodes.iter())
            .map(|node| node["sales"][field]["amount"].as_i64().unwrap())
            .sum()
    };
    (
        sum("revenue"),
        sum("ticketRevenue"),
        sum("concessionRevenue"),
    )
}

#[tokio::test]
async fn the_dashboard_shows_a_cinemas_day_live_and_only_to_its_operators() {
    let sale = sale().await;
    assert_chromium();
    // Sales to show: a seat (¥40), and a seat with a product (¥40 + ¥25); counted by the
    // projection as it runs every second.
    let wanda = crate::admissions::operator(&sale).await;
    let popcorn = product(&sale, &wanda, "爆米花", 2_500, Some(5)).await;
    let hold = sale.hold_id(&sale.maoyan, &["A3"]).await;
    let first = sale.confirm(&sale.maoyan, &hold).await.data()["confirmHold"].clone();
    let second = order_items(&sale, &["B1"], &[(&popcorn, 1)]).await;
    boxoffice::sales::project_sales(&sale.app.store)
        .await
        .unwrap();
    let orders_total = [&first, &second]
        .iter()
        .map(|order| order["total"]["amount"].as_i64().unwrap())
        .sum::<i64>();
    // Another chain with a cinema of its own.
    let mut catalogue = Catalogue::default();
    let bona = catalogue.cinema("博纳国际", "北京", 39.9, 116.4);
    catalogue.insert(&sale.app).await;
    let bona_id = global_id("Cinema", bona.id);
    let other = sale
        .app
        .operator_key("bona", Some(std::slice::from_ref(&bona_id)))
        .await;

    let screenshots =
        std::env::temp_dir().join(format!("boxoffice-dashboard-{}", std::process::id()));
    std::fs::create_dir_all(&screenshots).unwrap();
    let screenshot = screenshots.join("dashboard.png");
    let base = sale.app.url("");
    let args = [
        base.as_str(),
        &sale.cinema,
        &sale.showtime,
        &wanda,
        &other,
        &sale.maoyan,
        screenshot.to_str().unwrap(),
    ];
    let summary = run("dashboard.mjs", &args).await;
    println!("dashboard.mjs: {summary:#}");
    println!("screenshot: {}", screenshot.display());
    assert_eq!(summary["errors"], json!([]), "no script errors");

    // A wrong key: the error state, in words; the form again; the key not kept.
    let wrong = &summary["wrongKey"];
    assert_eq!(
        (&wrong["state"], &wrong["code"]),
        (&json!("error"), &json!("UNAUTHENTICATED"))
    );
    assert_eq!(
        wrong["error"],
        "This key was refused: check it and enter it again."
    );
    assert_eq!(
        (&wrong["keyFormShown"], &wrong["kept"]),
        (&json!(true), &Value::Null)
    );

    // Another chain sees its cinema, none of this one.
    let other = &summary["other"];
    assert_eq!(other["cinemas"], json!([bona_id]));
    let listed = other["showtimes"].as_array().unwrap();
    assert!(!listed.contains(&json!(sale.showtime)), "{listed:?}");
    // Nothing of this cinema shows: its name (影城), its hall, its film.
    let text = other["text"].as_str().unwrap();
    assert!(text.contains("博纳国际"), "{text}");
    for shown in ["影城", "1号厅", "电影"] {
        assert!(!text.contains(shown), "{shown} in {text}");
    }

    // The chain's own day: the showtime, its bar as the API counts its seats.
    let shown = &summary["shown"];
    let counts = sale
        .app
        .graphql(
            "query ($id: ID!) { showtime(id: $id) { movie { title } hall { name }
             seatMap { counts { available held sold blocked capacity } } } }",
            json!({ "id": sale.showtime }),
        )
        .await
        .data()["showtime"]
        .clone();
    let entry = shown["text"].as_str().unwrap();
    assert!(
        entry.contains(counts["movie"]["title"].as_str().unwrap())
            && entry.contains(counts["hall"]["name"].as_str().unwrap()),
        "{entry}"
    );
    let bar = &shown["bar"];
    let api = &counts["seatMap"]["counts"];
    for state in ["sold", "held", "available", "blocked", "capacity"] {
        assert_eq!(bar[state], api[state].to_string(), "{state}: {bar}");
    }
    assert_eq!(bar["sold"], "2");
    assert_eq!(shown["waiting"], "0", "nobody in its waiting list");
    assert!(
        shown["figures"]
            .as_str()
            .unwrap()
            .starts_with("13% sold · 2 sold"),
        "{shown}"
    );

    // Revenue: what hourlySales says over the page's window, what the orders add up to.
    let revenue = &shown["revenue"];
    let (from, before) = (
        revenue["from"].as_str().unwrap(),
        revenue["before"].as_str().unwrap(),
    );
    let (total, tickets, concessions) = api_revenue(&sale, from, before).await;
    assert_eq!(
        (
            &revenue["total"],
            &revenue["tickets"],
            &revenue["concessions"]
        ),
        (&json!(total), &json!(tickets), &json!(concessions))
    );
    assert_eq!(total, orders_total, "the orders' totals, to the fen");
    assert_eq!((tickets, concessions), (8_000, 2_500));
    assert_eq!(revenue["totalText"], "¥105.00");
    let drawn: i64 = (revenue["hours"].as_array().unwrap().iter())
        .map(|hour| hour["tickets"].as_i64().unwrap() + hour["concessions"].as_i64().unwrap())
        .sum();
    assert_eq!(drawn, total, "the bars add up to the total");

    // Live: the hold within 2 s of its answer, and gone within 2 s of the release.
    let hold_ms = summary["holdSeenMs"].as_i64().unwrap();
    assert!(
        hold_ms <= 2_000,
        "the hold showed {hold_ms} ms after its answer"
    );
    assert_eq!(summary["heldBar"]["held"], "2");
    let release_ms = summary["releaseSeenMs"].as_i64().unwrap();
    assert!(
        release_ms <= 2_000,
        "the release showed {release_ms} ms after its answer"
    );

    // The showtime's seats: sold ones in the state map; the hall's sold seats in the heat map.
    let mut sold = summary["maps"]["sold"].as_array().unwrap().clone();
    sold.sort_by_key(|seat| seat.as_str().unwrap().to_owned());
    assert_eq!(sold, [json!("A3"), json!("B1")]);
    let shares = &summary["maps"]["shares"];
    let share = |seat: &str| shares[seat].as_f64().unwrap();
    assert_eq!((share("A3"), share("B1"), share("A1")), (1.0, 1.0, 0.0));

    // The key never went into the address; it is kept in the tab.
    for url in summary["urls"].as_array().unwrap() {
        assert!(!url.as_str().unwrap().contains("bop_"), "{url}");
    }
    assert_eq!(summary["kept"], wanda.as_str());
    assert!(
        screenshot.is_file(),
        "a screenshot at {}",
        screenshot.display()
    );
}
