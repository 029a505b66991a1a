//! The floor: a hand-written axum endpoint that answers the benchmark's two showtimes pages
//! with the MongoDB queries a careful engineer would write by hand (projected, one `$in` per
//! collection, run side by side) and the same JSON, written with serde. What the gateway
//! spends beyond this is the price of GraphQL.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use boxoffice::domain::global_id::GlobalId;
use boxoffice::domain::ids::ShowtimeId;
use chrono::SecondsFormat;
use futures::TryStreamExt;
use mongodb::bson::oid::ObjectId;
use mongodb::bson::{doc, DateTime, Document};
use mongodb::Database;
use serde::{Deserialize, Serialize};

/// The page of reference fields only (copied into each showtime), through the gateway.
pub const REFERENCES_ONLY: &str = "query ($first: Int, $city: String) {
    showtimes(first: $first, filter: { city: $city }) { edges { node {
    id startsAt price(channel: \"maoyan\") { amount }
    cinema { name city } movie { title runtimeMinutes } hall { name format } } } } }";

/// The page with each cinema's location, each movie's plot and each seat map's counts (one
/// batched query per collection), through the gateway.
pub const WITH_LOADED_FIELDS: &str = "query ($first: Int, $city: String) {
    showtimes(first: $first, filter: { city: $city }) { edges { node {
    id startsAt cinema { name location { latitude longitude } }
    movie { title details { plot } } hall { name }
    seatMap { counts { available sold } } } } } }";

#[derive(Deserialize)]
pub struct PageParams {
    /// `references` or `loaded`.
    variant: String,
    first: i64,
    city: String,
}

pub fn router(db: Database) -> Router {
    Router::new().route("/page", get(page)).with_state(db)
}

async fn page(State(db): State<Database>, Query(params): Query<PageParams>) -> impl IntoResponse {
    let body = match params.variant.as_str() {
        "references" => serde_json::to_vec(&references(&db, &params).await),
        _ => serde_json::to_vec(&loaded(&db, &params).await),
    }
    .expect("JSON");
    ([(header::CONTENT_TYPE, "application/json")], body)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Showtime {
    #[serde(rename = "_id")]
    id: ObjectId,
    starts_at: DateTime,
    cinema: CinemaRef,
    movie: MovieRef,
    theater: HallRef,
    #[serde(default)]
    prices: Vec<Price>,
}

#[derive(Deserialize)]
struct CinemaRef {
    id: ObjectId,
    name: String,
    city: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MovieRef {
    id: ObjectId,
    title: String,
    runtime_minutes: i32,
}

#[derive(Deserialize)]
struct HallRef {
    name: String,
    format: String,
}

#[derive(Deserialize)]
struct Price {
    channel: String,
    amount: i64,
}

/// The page of showtimes in start order, as the gateway reads it (`first + 1`, to know whether
/// there is a next page).
async fn showtimes(db: &Database, params: &PageParams) -> Vec<Showtime> {
    let projection = doc! {
        "startsAt": 1, "prices": 1, "cinema": 1, "movie": 1, "theater.name": 1, "theater.format": 1,
    };
    let mut page: Vec<Showtime> = db
        .collection::<Showtime>("showtimes")
        .find(doc! { "cinema.city": &params.city })
        .sort(doc! { "startsAt": 1, "_id": 1 })
        .projection(projection)
        .limit(params.first + 1)
        .batch_size(params.first as u32 + 1)
        .await
        .expect("find showtimes")
        .try_collect()
        .await
        .expect("showtimes");
    page.truncate(params.first as usize);
    page
}

fn id_of(showtime: &Showtime) -> String {
    GlobalId::Showtime(ShowtimeId(showtime.id.bytes())).encode()
}

fn time(at: DateTime) -> String {
    at.to_chrono().to_rfc3339_opts(SecondsFormat::AutoSi, false)
}

#[derive(Serialize)]
struct Answer<N> {
    data: Showtimes<N>,
}

#[derive(Serialize)]
struct Showtimes<N> {
    showtimes: Edges<N>,
}

#[derive(Serialize)]
struct Edges<N> {
    edges: Vec<Edge<N>>,
}

#[derive(Serialize)]
struct Edge<N> {
    node: N,
}

fn answer<N>(nodes: Vec<N>) -> Answer<N> {
    Answer {
        data: Showtimes {
            showtimes: Edges {
                edges: nodes.into_iter().map(|node| Edge { node }).collect(),
            },
        },
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReferencesNode {
    id: String,
    starts_at: String,
    price: Option<Amount>,
    cinema: NameCity,
    movie: TitleRuntime,
    hall: NameFormat,
}

#[derive(Serialize)]
struct Amount {
    amount: i64,
}

#[derive(Serialize)]
struct NameCity {
    name: String,
    city: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TitleRuntime {
    title: String,
    runtime_minutes: i32,
}

#[derive(Serialize)]
struct NameFormat {
    name: String,
    format: String,
}

async fn references(db: &Database, params: &PageParams) -> Answer<ReferencesNode> {
    let nodes = showtimes(db, params)
        .await
        .into_iter()
        .map(|showtime| ReferencesNode {
            id: id_of(&showtime),
            starts_at: time(showtime.starts_at),
            price: showtime
                .prices
                .iter()
                .find(|price| price.channel == "maoyan")
                .map(|price| Amount {
                    amount: price.amount,
                }),
            cinema: NameCity {
                name: showtime.cinema.name,
                city: showtime.cinema.city,
            },
            movie: TitleRuntime {
                title: showtime.movie.title,
                runtime_minutes: showtime.movie.runtime_minutes,
            },
            hall: NameFormat {
                name: showtime.theater.name,
                format: showtime.theater.format,
            },
        })
        .collect();
    answer(nodes)
}

#[derive(Deserialize)]
struct CinemaLocation {
    #[serde(rename = "_id")]
    id: ObjectId,
    location: Point,
}

#[derive(Deserialize)]
struct Point {
    coordinates: [f64; 2],
}

#[derive(Deserialize)]
struct Plot {
    #[serde(rename = "_id")]
    id: ObjectId,
    plot: String,
}

#[derive(Deserialize)]
struct Counts {
    #[serde(rename = "_id")]
    id: ObjectId,
    counts: CountsDoc,
}

#[derive(Deserialize, Clone, Copy)]
struct CountsDoc {
    available: i32,
    sold: i32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LoadedNode {
    id: String,
    starts_at: String,
    cinema: CinemaNode,
    movie: MovieNode,
    hall: HallName,
    seat_map: SeatMapNode,
}

#[derive(Serialize)]
struct CinemaNode {
    name: String,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    latitude: f64,
    longitude: f64,
}

#[derive(Serialize)]
struct MovieNode {
    title: String,
    details: Option<PlotNode>,
}

#[derive(Serialize)]
struct PlotNode {
    plot: String,
}

#[derive(Serialize)]
struct HallName {
    name: String,
}

#[derive(Serialize)]
struct SeatMapNode {
    counts: CountsNode,
}

#[derive(Serialize)]
struct CountsNode {
    available: i32,
    sold: i32,
}

/// Every document of `collection` whose `_id` is in `ids`, projected, by id.
async fn by_ids<T>(
    db: &Database,
    collection: &str,
    ids: Vec<ObjectId>,
    projection: Document,
    id: fn(&T) -> ObjectId,
) -> HashMap<ObjectId, T>
where
    T: serde::de::DeserializeOwned + Send + Sync,
{
    let limit = ids.len() as i64;
    let found: Vec<T> = db
        .collection::<T>(collection)
        .find(doc! { "_id": { "$in": ids } })
        .projection(projection)
        .limit(limit)
        .batch_size(limit as u32)
        .await
        .expect("find by ids")
        .try_collect()
        .await
        .expect("documents");
    found.into_iter().map(|doc| (id(&doc), doc)).collect()
}

async fn loaded(db: &Database, params: &PageParams) -> Answer<LoadedNode> {
    let page = showtimes(db, params).await;
    let mut cinema_ids: Vec<ObjectId> = page.iter().map(|s| s.cinema.id).collect();
    let mut movie_ids: Vec<ObjectId> = page.iter().map(|s| s.movie.id).collect();
    for ids in [&mut cinema_ids, &mut movie_ids] {
        ids.sort_unstable();
        ids.dedup();
    }
    let showtime_ids = page.iter().map(|s| s.id).collect();
    let (cinemas, plots, counts) = tokio::join!(
        by_ids::<CinemaLocation>(db, "cinemas", cinema_ids, doc! { "location": 1 }, |c| c.id),
        by_ids::<Plot>(db, "movie_details", movie_ids, doc! { "plot": 1 }, |p| p.id),
        by_ids::<Counts>(
            db,
            "seat_inventory",
            showtime_ids,
            doc! { "counts": 1 },
            |c| c.id
        ),
    );
    let nodes = page
        .into_iter()
        .map(|showtime| {
            let [longitude, latitude] = cinemas[&showtime.cinema.id].location.coordinates;
            let counts = counts[&showtime.id].counts;
            LoadedNode {
                id: id_of(&showtime),
                starts_at: time(showtime.starts_at),
                cinema: CinemaNode {
                    name: showtime.cinema.name,
                    location: Location {
                        latitude,
                        longitude,
                    },
                },
                movie: MovieNode {
                    title: showtime.movie.title,
                    details: plots.get(&showtime.movie.id).map(|details| PlotNode {
                        plot: details.plot.clone(),
                    }),
                },
                hall: HallName {
                    name: showtime.theater.name,
                },
                seat_map: SeatMapNode {
                    counts: CountsNode {
                        available: counts.available,
                        sold: counts.sold,
                    },
                },
            }
        })
        .collect();
    answer(nodes)
}
