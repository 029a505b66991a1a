//! Want-to-see lists: a channel's customers mark movies; the by-customer and by-movie sides
//! agree after a crash between their writes and after racing markers and unmarkers, and the
//! by-movie side grows buckets, not one document.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use boxoffice::domain::customer::CustomerId;
use boxoffice::domain::ids::MovieId;
use boxoffice::store::documents::MovieDoc;
use boxoffice::store::{CrashPoint, Store};
use boxoffice::want_to_see::inspect;
use boxoffice::want_to_see::rules::BUCKET_SIZE;
use boxoffice::want_to_see::store::documents::WantState;
use futures::future::join_all;
use serde_json::{json, Value};

use crate::fixtures::{global_id, Catalogue};
use crate::helpers::{nodes, TestApp};

const MARK: &str = "mutation ($input: WantToSeeInput!) { markWantToSee(input: $input) {
    movie { id title } title markedAt } }";
const UNMARK: &str = "mutation ($input: WantToSeeInput!) { unmarkWantToSee(input: $input) }";
const LIST: &str = "query ($customer: String!, $after: String) {
    wantToSee(customerId: $customer, first: 2, after: $after) {
        edges { node { title movie { id } } } pageInfo { hasNextPage endCursor } } }";
const WANTERS: &str = "query ($movie: ID!, $first: Int, $after: String) {
    movieWanters(movieId: $movie, first: $first, after: $after) {
        edges { node { channel customerId } } pageInfo { hasNextPage endCursor } }
    movieWantToSeeCount(movieId: $movie) { exact shown outlier } }";

struct Cinephiles {
    app: TestApp,
    maoyan: String,
    wechat: String,
    movies: Vec<MovieDoc>,
}

async fn cinephiles(movies: usize) -> Cinephiles {
    cinephiles_on(TestApp::spawn().await, movies).await
}

async fn cinephiles_on(app: TestApp, movies: usize) -> Cinephiles {
    let mut catalogue = Catalogue::default();
    let maoyan = catalogue.channel("maoyan", "猫眼电影");
    let wechat = catalogue.channel("wechat", "微信电影票");
    let movies = (0..movies)
        .map(|i| catalogue.movie(&format!("电影{i}"), &["剧情"]))
        .collect();
    catalogue.insert(&app).await;
    Cinephiles {
        app,
        maoyan: maoyan.as_str().to_owned(),
        wechat: wechat.as_str().to_owned(),
        movies,
    }
}

fn input(movie: &MovieDoc, customer: &str) -> Value {
    json!({ "input": { "movieId": global_id("Movie", movie.id), "customerId": customer } })
}

/// Every (wanter, movie) pair on each side, with the mark that put it there; fails on an
/// entry still in flight or on a movie-side entry twice.
async fn both_sides(store: &Store, movies: &[MovieId]) -> (BTreeSet<String>, BTreeSet<String>) {
    both_sides_on(&crate::helpers::mongodb_uri(), store, movies).await
}

/// [`both_sides`] of a database on the server at `uri`.
async fn both_sides_on(
    uri: &str,
    store: &Store,
    movies: &[MovieId],
) -> (BTreeSet<String>, BTreeSet<String>) {
    let client = mongodb::Client::with_uri_str(uri).await.unwrap();
    let db = client.database(store.database_name());
    let lists: Vec<bson::Document> = futures::TryStreamExt::try_collect(
        db.collection::<bson::Document>("want_to_see")
            .find(bson::doc! {})
            .await
            .unwrap(),
    )
    .await
    .unwrap();
    let mut by_customer = BTreeSet::new();
    for list in lists {
        let wanter = list.get_str("_id").unwrap().to_owned();
        for movie in list.get_array("movies").unwrap() {
            let movie = movie.as_document().unwrap();
            assert_eq!(movie.get_str("state").unwrap(), "DONE", "{list}");
            by_customer.insert(format!(
                "{wanter} {} {}",
                movie.get_object_id("movie").unwrap(),
                movie.get_object_id("op").unwrap()
            ));
        }
    }
    let mut by_movie = BTreeSet::new();
    for &movie in movies {
        let buckets = inspect::wanter_buckets(store, movie, i64::MAX, 10_000)
            .await
            .unwrap();
        for bucket in buckets {
            assert!(bucket.entries.len() as i64 <= BUCKET_SIZE);
            for entry in bucket.entries {
                let pair = format!("{} {movie} {}", entry.wanter, entry.op);
                assert!(by_movie.insert(pair), "twice: {}", entry.wanter);
            }
        }
    }
    (by_customer, by_movie)
}

#[tokio::test]
async fn a_customer_marks_movies_and_lists_them_newest_first_and_marking_twice_changes_nothing() {
    let c = cinephiles(3).await;
    for movie in &c.movies {
        let marked = c.app.graphql_as(&c.maoyan, MARK, input(movie, "c-1")).await;
        assert_eq!(
            marked.data()["markWantToSee"]["title"],
            movie.title.as_str()
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let again = c
        .app
        .graphql_as(&c.maoyan, MARK, input(&c.movies[0], "c-1"))
        .await;
    again.data();
    let page = c
        .app
        .graphql_as(&c.maoyan, LIST, json!({ "customer": "c-1" }))
        .await;
    let list = &page.data()["wantToSee"];
    let titles: Vec<Value> = nodes(list).iter().map(|n| n["title"].clone()).collect();
    assert_eq!(titles, [json!("电影2"), json!("电影1")]);
    let rest = c
        .app
        .graphql_as(
            &c.maoyan,
            LIST,
            json!({ "customer": "c-1", "after": list["pageInfo"]["endCursor"] }),
        )
        .await;
    let rest = nodes(&rest.data()["wantToSee"]);
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0]["title"], "电影0");
    // Another channel's customer of the same id is another customer.
    let theirs = c
        .app
        .graphql_as(&c.wechat, LIST, json!({ "customer": "c-1" }))
        .await;
    assert!(nodes(&theirs.data()["wantToSee"]).is_empty());
    // Unmarking: true once, then false; the movie's side follows.
    let unmarked = c
        .app
        .graphql_as(&c.maoyan, UNMARK, input(&c.movies[1], "c-1"))
        .await;
    assert_eq!(unmarked.data()["unmarkWantToSee"], true);
    let unmarked = c
        .app
        .graphql_as(&c.maoyan, UNMARK, input(&c.movies[1], "c-1"))
        .await;
    assert_eq!(unmarked.data()["unmarkWantToSee"], false);
    let ids: Vec<MovieId> = c.movies.iter().map(|m| m.id).collect();
    let (by_customer, by_movie) = both_sides(&c.app.store, &ids).await;
    assert_eq!(by_customer.len(), 2);
    assert_eq!(by_customer, by_movie);
}

#[tokio::test]
async fn a_crash_between_the_two_sides_is_finished_by_the_next_mark_or_by_the_repair_pass() {
    let c = cinephiles(2).await;
    let ids: Vec<MovieId> = c.movies.iter().map(|m| m.id).collect();
    let store = &c.app.store;
    // A mark that died after the customer's side: the movie's side lacks it.
    store.faults().crash_next_at(CrashPoint::MarkBetweenSides);
    let crashed = c
        .app
        .graphql_as(&c.maoyan, MARK, input(&c.movies[0], "c-1"))
        .await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    let list = inspect::want_list(store, "maoyan/c-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(list.movies[0].state, WantState::Adding);
    assert!(inspect::wanter_buckets(store, ids[0], i64::MAX, 10)
        .await
        .unwrap()
        .is_empty());
    // The repair pass leaves it to a live request for a while, then finishes it.
    let live = Duration::from_secs(3600);
    assert_eq!(
        boxoffice::want_to_see::repair_want_lists(store, live)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        boxoffice::want_to_see::repair_want_lists(store, Duration::ZERO)
            .await
            .unwrap(),
        1
    );
    let (by_customer, by_movie) = both_sides(store, &ids).await;
    assert_eq!((by_customer.len(), &by_customer), (1, &by_movie));

    // The same for a second mark, finished by the customer marking it again.
    store.faults().crash_next_at(CrashPoint::MarkBetweenSides);
    let crashed = c
        .app
        .graphql_as(&c.maoyan, MARK, input(&c.movies[1], "c-1"))
        .await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    c.app
        .graphql_as(&c.maoyan, MARK, input(&c.movies[1], "c-1"))
        .await
        .data();
    let (by_customer, by_movie) = both_sides(store, &ids).await;
    assert_eq!((by_customer.len(), &by_customer), (2, &by_movie));

    // An unmark that died with the entry REMOVING: the list no longer shows it, and the
    // repair pass takes it off both sides.
    store.faults().crash_next_at(CrashPoint::UnmarkBetweenSides);
    let crashed = c
        .app
        .graphql_as(&c.maoyan, UNMARK, input(&c.movies[0], "c-1"))
        .await;
    assert_eq!(crashed.error_code(), "INTERNAL");
    let page = c
        .app
        .graphql_as(&c.maoyan, LIST, json!({ "customer": "c-1" }))
        .await;
    assert_eq!(nodes(&page.data()["wantToSee"]).len(), 1);
    assert_eq!(
        boxoffice::want_to_see::repair_want_lists(store, Duration::ZERO)
            .await
            .unwrap(),
        1
    );
    let (by_customer, by_movie) = both_sides(store, &ids).await;
    assert_eq!((by_customer.len(), &by_customer), (1, &by_movie));
}

#[tokio::test]
async fn racing_markers_and_unmarkers_leave_both_sides_in_agreement() {
    let c = cinephiles(3).await;
    let ids: Vec<MovieId> = c.movies.iter().map(|m| m.id).collect();
    // 64 requests at once over 4 customers × 3 movies: each pair marked and unmarked by
    // several at the same time, on both channels.
    let requests = (0..64).map(|i| {
        let movie = &c.movies[i % 3];
        let customer = format!("c-{}", (i / 3) % 4);
        let key = if i % 5 == 0 { &c.wechat } else { &c.maoyan };
        let query = if (i / 2) % 2 == 0 { MARK } else { UNMARK };
        c.app.graphql_as(key, query, input(movie, &customer))
    });
    for answer in join_all(requests).await {
        // A mark that met two unmarks of its pair in a row asks to be retried.
        if answer.0.get("errors").is_some() {
            assert_eq!(answer.error_code(), "UNAVAILABLE");
        }
    }
    let (by_customer, by_movie) = both_sides(&c.app.store, &ids).await;
    assert!(!by_customer.is_empty());
    assert_eq!(by_customer, by_movie);
    // What a list says is what the movie's side says, pair by pair.
    let mut listed: BTreeMap<String, usize> = BTreeMap::new();
    for pair in &by_customer {
        *listed
            .entry(pair.split(' ').nth(1).unwrap().to_owned())
            .or_default() += 1;
    }
    for (movie, count) in listed {
        let exact = inspect::exact_wanter_count(&c.app.store, MovieId::parse_hex(&movie).unwrap())
            .await
            .unwrap();
        assert_eq!(exact as usize, count);
    }
}

#[tokio::test]
async fn a_blockbuster_grows_buckets_is_flagged_an_outlier_and_pages_through_all_of_them() {
    let c = cinephiles(1).await;
    let store = &c.app.store;
    let movie = c.movies[0].id;
    let wanted = BUCKET_SIZE as usize + 5;
    // Straight through the booking layer, 16 at a time.
    for chunk in (0..wanted).collect::<Vec<_>>().chunks(16) {
        join_all(chunk.iter().map(|i| {
            let customer = CustomerId::parse(&format!("c-{i}")).unwrap();
            async move {
                boxoffice::want_to_see::mark_want_to_see(store, "maoyan", &customer, movie)
                    .await
                    .unwrap()
            }
        }))
        .await;
    }
    // Two buckets, newest first, none over its size. (A bucket may hold a few less: a mark
    // whose sequence number the database did not say takes another, leaving a gap.)
    let buckets = inspect::wanter_buckets(store, movie, i64::MAX, 10)
        .await
        .unwrap();
    let numbers: Vec<i64> = buckets.iter().map(|b| b.bucket).collect();
    assert_eq!(numbers, [1, 0], "newest bucket first");
    let sizes: Vec<usize> = buckets.iter().map(|b| b.entries.len()).collect();
    assert!(sizes.iter().all(|&n| n as i64 <= BUCKET_SIZE), "{sizes:?}");
    assert_eq!(sizes.iter().sum::<usize>(), wanted);
    assert!(sizes[1] as i64 >= BUCKET_SIZE - 16, "{sizes:?}");
    let operator = c.app.operator_key("platform", None).await;
    let read = |first: i64, after: Value| {
        let variables =
            json!({ "movie": global_id("Movie", movie), "first": first, "after": after });
        c.app.graphql_as(&operator, WANTERS, variables)
    };
    let answer = read(3, Value::Null).await;
    assert_eq!(
        answer.data()["movieWantToSeeCount"],
        // Marked through the booking layer alone: no gateway counted them for listings.
        json!({ "exact": wanted, "shown": 0, "outlier": true })
    );
    // Every wanter once, across the bucket boundary, in pages of 100.
    let mut seen = BTreeSet::new();
    let mut after = Value::Null;
    loop {
        let answer = read(100, after).await;
        let page = &answer.data()["movieWanters"];
        for node in nodes(page) {
            assert!(seen.insert(node["customerId"].as_str().unwrap().to_owned()));
        }
        if page["pageInfo"]["hasNextPage"] == false {
            break;
        }
        after = page["pageInfo"]["endCursor"].clone();
    }
    assert_eq!(seen.len(), wanted);
}

#[tokio::test]
async fn bad_marks_are_refused_with_a_code_and_change_nothing() {
    let c = cinephiles(1).await;
    let movie = &c.movies[0];
    for customer in ["", "a b", "c\u{7}", &"x".repeat(65)] {
        let refused = c
            .app
            .graphql_as(&c.maoyan, MARK, input(movie, customer))
            .await;
        assert_eq!(refused.error_code(), "BAD_USER_INPUT", "{customer:?}");
    }
    let unknown =
        json!({ "input": { "movieId": global_id("Movie", [7u8; 12]), "customerId": "c-1" } });
    let refused = c.app.graphql_as(&c.maoyan, MARK, unknown).await;
    assert_eq!(refused.error_code(), "NOT_FOUND");
    let anonymous = c.app.graphql(MARK, input(movie, "c-1")).await;
    assert_eq!(anonymous.error_code(), "UNAUTHENTICATED");
    let chain = c.app.operator_key("chain", Some(&[][..])).await;
    let wanters = json!({ "movie": global_id("Movie", movie.id) });
    let forbidden = c.app.graphql_as(&chain, WANTERS, wanters.clone()).await;
    assert_eq!(forbidden.errors()[0]["extensions"]["code"], "FORBIDDEN");
    let forbidden = c.app.graphql_as(&c.maoyan, WANTERS, wanters).await;
    assert_eq!(forbidden.errors()[0]["extensions"]["code"], "FORBIDDEN");
    // Nothing was written on either side.
    let (by_customer, by_movie) = both_sides(&c.app.store, &[movie.id]).await;
    assert!(by_customer.is_empty() && by_movie.is_empty());
    assert_eq!(
        inspect::sequence(&c.app.store, movie.id)
            .await
            .unwrap()
            .next,
        0
    );
}

#[tokio::test]
async fn a_slow_mark_overtaken_by_an_unmark_and_a_slow_unmark_overtaken_by_a_mark_agree() {
    use boxoffice::store::PausePoint;
    let c = cinephiles(1).await;
    let ids = [c.movies[0].id];
    let store = &c.app.store;
    // A mark paused between the sides; an unmark of the pair runs whole meanwhile.
    let pause = store.faults().pause_next_at(PausePoint::MarkBetweenSides);
    let slow = c
        .app
        .graphql_as(&c.maoyan, MARK, input(&c.movies[0], "c-1"));
    let overtake = async {
        pause.reached().await;
        let unmarked = c
            .app
            .graphql_as(&c.maoyan, UNMARK, input(&c.movies[0], "c-1"))
            .await;
        assert_eq!(unmarked.data()["unmarkWantToSee"], true);
        pause.resume();
    };
    let (marked, ()) = tokio::join!(slow, overtake);
    marked.data();
    // The late mark wrote the movie's side after the unmark, saw its entry gone, and took
    // its own entry back out: the pair is on neither side.
    let (by_customer, by_movie) = both_sides(store, &ids).await;
    assert!(
        by_customer.is_empty() && by_movie.is_empty(),
        "{by_customer:?} {by_movie:?}"
    );

    // An unmark paused between the sides; a new mark of the pair runs whole meanwhile (it
    // finishes the unmark first, then marks).
    c.app
        .graphql_as(&c.maoyan, MARK, input(&c.movies[0], "c-1"))
        .await
        .data();
    let pause = store.faults().pause_next_at(PausePoint::UnmarkBetweenSides);
    let slow = c
        .app
        .graphql_as(&c.maoyan, UNMARK, input(&c.movies[0], "c-1"));
    let overtake = async {
        pause.reached().await;
        c.app
            .graphql_as(&c.maoyan, MARK, input(&c.movies[0], "c-1"))
            .await
            .data();
        pause.resume();
    };
    let (unmarked, ()) = tokio::join!(slow, overtake);
    assert_eq!(unmarked.data()["unmarkWantToSee"], true);
    // The late unmark's writes name the old mark: the new one stands on both sides.
    let (by_customer, by_movie) = both_sides(store, &ids).await;
    assert_eq!(by_customer.len(), 1);
    assert_eq!(by_customer, by_movie);
}

const COUNT: &str = "query ($movie: ID!) { movie(id: $movie) { wantToSeeCount } }";

/// The count listings show, read as anyone would.
async fn shown(app: &TestApp, movie: &MovieDoc) -> i64 {
    let read = app
        .graphql(COUNT, json!({ "movie": global_id("Movie", movie.id) }))
        .await;
    read.data()["movie"]["wantToSeeCount"].as_i64().unwrap()
}

#[tokio::test]
async fn sixty_four_racing_markers_are_shown_within_the_bound_and_then_exactly() {
    let c = cinephiles(1).await;
    let movie = &c.movies[0];
    let marks = (0..64).map(|i| {
        let key = if i % 2 == 0 { &c.maoyan } else { &c.wechat };
        c.app.graphql_as(key, MARK, input(movie, &format!("c-{i}")))
    });
    for marked in join_all(marks).await {
        marked.data();
    }
    // Never more than the exact count, and the exact count within two flushes.
    let deadline = std::time::Instant::now()
        + 2 * boxoffice::counters::FLUSH_EVERY
        + Duration::from_millis(500);
    loop {
        let now = shown(&c.app, movie).await;
        assert!((0..=64).contains(&now), "{now}");
        if now == 64 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still {now} after two flushes"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let operator = c.app.operator_key("platform", None).await;
    let counts = c
        .app
        .graphql_as(
            &operator,
            WANTERS,
            json!({ "movie": global_id("Movie", movie.id), "first": 1 }),
        )
        .await;
    assert_eq!(
        counts.data()["movieWantToSeeCount"],
        json!({ "exact": 64, "shown": 64, "outlier": false })
    );
    // Unmarks count down the same way.
    for i in 0..10 {
        let key = if i % 2 == 0 { &c.maoyan } else { &c.wechat };
        let unmarked = c
            .app
            .graphql_as(key, UNMARK, input(movie, &format!("c-{i}")))
            .await;
        assert_eq!(unmarked.data()["unmarkWantToSee"], true);
    }
    let deadline = std::time::Instant::now()
        + 2 * boxoffice::counters::FLUSH_EVERY
        + Duration::from_millis(500);
    while shown(&c.app, movie).await != 54 {
        assert!(std::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn marks_a_dead_gateway_never_wrote_are_counted_again_by_the_reconciliation() {
    let c = cinephiles(1).await;
    let movie = &c.movies[0];
    let store = &c.app.store;
    // Five marks through the booking layer alone: as a gateway that died before its flush.
    for i in 0..5 {
        let customer = CustomerId::parse(&format!("c-{i}")).unwrap();
        boxoffice::want_to_see::mark_want_to_see(store, "maoyan", &customer, movie.id)
            .await
            .unwrap();
    }
    assert_eq!(shown(&c.app, movie).await, 0);
    assert_eq!(
        boxoffice::want_to_see::reconcile_counts(store)
            .await
            .unwrap(),
        1
    );
    assert_eq!(shown(&c.app, movie).await, 5);
    assert_eq!(
        boxoffice::want_to_see::reconcile_counts(store)
            .await
            .unwrap(),
        0
    );
}

#[tokio::test]
async fn a_new_customer_marking_many_movies_at_once_gets_them_all() {
    let c = cinephiles(12).await;
    // Every first mark races the others to insert the customer's list. MongoDB does not retry
    // an upsert whose filter is more than an equality on `_id` after a duplicate key, so the
    // store does (SecantusDB retries it itself: there this passes either way).
    let marks = c.movies.iter().map(|movie| {
        c.app
            .graphql_as(&c.maoyan, MARK, input(movie, "new-customer"))
    });
    for marked in join_all(marks).await {
        marked.data();
    }
    let list = inspect::want_list(&c.app.store, "maoyan/new-customer")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(list.movies.len(), 12);
    let ids: Vec<MovieId> = c.movies.iter().map(|m| m.id).collect();
    let (by_customer, by_movie) = both_sides(&c.app.store, &ids).await;
    assert_eq!(by_customer.len(), 12);
    assert_eq!(by_customer, by_movie);
}

#[tokio::test]
async fn two_gateways_marking_and_unmarking_the_same_pairs_leave_both_sides_in_agreement() {
    let c = cinephiles(2).await;
    let other = c.app.another_gateway().await;
    let ids: Vec<MovieId> = c.movies.iter().map(|m| m.id).collect();
    let requests = (0..32).map(|i| {
        let app = if i % 2 == 0 { &c.app } else { &other };
        let query = if (i / 4) % 2 == 0 { MARK } else { UNMARK };
        app.graphql_as(
            &c.maoyan,
            query,
            input(&c.movies[i % 2], &format!("c-{}", i % 3)),
        )
    });
    for answer in join_all(requests).await {
        if answer.0.get("errors").is_some() {
            assert_eq!(answer.error_code(), "UNAVAILABLE");
        }
    }
    let (by_customer, by_movie) = both_sides(&c.app.store, &ids).await;
    assert_eq!(by_customer, by_movie);
}

#[tokio::test]
async fn a_mark_whose_database_stops_between_the_sides_is_finished_once_it_answers_again() {
    use boxoffice::store::PausePoint;
    let database = crate::processes::OwnDatabase::start();
    let options = boxoffice::store::DatabaseOptions {
        timeout: Duration::from_millis(1000),
        ..Default::default()
    };
    let app = TestApp::spawn_on(&database.uri(), &options).await;
    let c = cinephiles_on(app, 1).await;
    let ids = [c.movies[0].id];
    // The mark wrote the customer's side; the database stops before the movie's.
    let pause = c
        .app
        .store
        .faults()
        .pause_next_at(PausePoint::MarkBetweenSides);
    let mark = c
        .app
        .graphql_as(&c.maoyan, MARK, input(&c.movies[0], "c-1"));
    let stop = async {
        pause.reached().await;
        database.freeze();
        pause.resume();
    };
    let (marked, ()) = tokio::join!(mark, stop);
    assert_eq!(marked.error_code(), "UNAVAILABLE");
    database.thaw();
    let list = inspect::want_list(&c.app.store, "maoyan/c-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(list.movies[0].state, WantState::Adding);
    // The customer's retry finishes it: once on each side.
    c.app
        .graphql_as(&c.maoyan, MARK, input(&c.movies[0], "c-1"))
        .await
        .data();
    let (by_customer, by_movie) = both_sides_on(&database.uri(), &c.app.store, &ids).await;
    assert_eq!(by_customer.len(), 1);
    assert_eq!(by_customer, by_movie);
}
