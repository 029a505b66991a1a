//! The GraphiQL playground, served from the binary (no CDN), and the example operations kept in
//! `playground/examples`: each `NAME.graphql` with its variables in `NAME.json`, and the
//! request headers of those that act as a sales channel in `NAME.headers.json`.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use serde::Serialize;

/// One example operation.
#[derive(Debug, Clone, Serialize)]
pub struct Example {
    pub name: &'static str,
    /// The first comment line of the operation.
    pub description: &'static str,
    pub query: &'static str,
    /// Variables as JSON text.
    pub variables: &'static str,
    /// Request headers as JSON text (a channel's API key), or empty.
    pub headers: &'static str,
}

macro_rules! examples {
    ($($name:literal),* $(,)?) => {
        &[$((
            $name,
            include_str!(concat!("../../playground/examples/", $name, ".graphql")),
            include_str!(concat!("../../playground/examples/", $name, ".json")),
        )),*]
    };
}

/// Every example, in the order the playground lists them.
const EXAMPLES: &[(&str, &str, &str)] = examples![
    "cinemas-in-a-city",
    "cinemas-by-name",
    "cinemas-near-a-point",
    "regions-tree",
    "cinemas-in-a-region",
    "cinema-halls-and-showtimes",
    "node-by-id",
    "movies-by-genre",
    "movies-by-title",
    "movies-showing-in-a-city",
    "movie-details-and-reviews",
    "showtimes-by-city-and-time",
    "showtimes-on-a-channel",
    "showtime-prices",
    "price-matrix",
    "showtime-seat-map",
    "live-seat-map",
    "showtimes-page-with-references",
    "find-seats",
    "channels",
    "mark-want-to-see",
    "want-to-see-list",
    "hold-best-seats",
    "hold-seats-with-ticket-types",
    "hold-seats-with-voucher",
    "hold-seats-with-products",
    "join-waiting-list",
    "read-hold",
    "extend-hold",
    "my-holds",
    "confirm-hold",
    "release-hold",
    "cancel-order",
    "cancel-seats",
    "my-orders",
    "my-events",
    "create-webhook-endpoint",
    "create-cinema",
    "update-cinema",
    "set-refund-policy",
    "create-hall",
    "update-hall",
    "create-movie",
    "update-movie",
    "schedule-showtime",
    "change-showtime-prices",
    "define-ticket-type",
    "create-voucher-batch",
    "create-product",
    "showtime-price-history",
    "block-seats",
    "unblock-seats",
    "cancel-showtime",
    "create-door-key",
    "admit-ticket",
    "collect-items",
    "revoke-door-key",
];

/// The headers of the examples that act as a channel or an operator (`NAME.headers.json`): the
/// demo channel maoyan's key or the demo platform operator's, which the demo data derives from
/// its seed.
const HEADERS: &[(&str, &str)] = &[
    (
        "mark-want-to-see",
        include_str!("../../playground/examples/mark-want-to-see.headers.json"),
    ),
    (
        "want-to-see-list",
        include_str!("../../playground/examples/want-to-see-list.headers.json"),
    ),
    (
        "my-events",
        include_str!("../../playground/examples/my-events.headers.json"),
    ),
    (
        "create-webhook-endpoint",
        include_str!("../../playground/examples/create-webhook-endpoint.headers.json"),
    ),
    (
        "revoke-door-key",
        include_str!("../../playground/examples/revoke-door-key.headers.json"),
    ),
    (
        "admit-ticket",
        include_str!("../../playground/examples/admit-ticket.headers.json"),
    ),
    (
        "collect-items",
        include_str!("../../playground/examples/collect-items.headers.json"),
    ),
    (
        "create-product",
        include_str!("../../playground/examples/create-product.headers.json"),
    ),
    (
        "hold-seats-with-products",
        include_str!("../../playground/examples/hold-seats-with-products.headers.json"),
    ),
    (
        "join-waiting-list",
        include_str!("../../playground/examples/join-waiting-list.headers.json"),
    ),
    (
        "create-door-key",
        include_str!("../../playground/examples/create-door-key.headers.json"),
    ),
    (
        "hold-best-seats",
        include_str!("../../playground/examples/hold-best-seats.headers.json"),
    ),
    (
        "hold-seats-with-ticket-types",
        include_str!("../../playground/examples/hold-seats-with-ticket-types.headers.json"),
    ),
    (
        "hold-seats-with-voucher",
        include_str!("../../playground/examples/hold-seats-with-voucher.headers.json"),
    ),
    (
        "read-hold",
        include_str!("../../playground/examples/read-hold.headers.json"),
    ),
    (
        "extend-hold",
        include_str!("../../playground/examples/extend-hold.headers.json"),
    ),
    (
        "my-holds",
        include_str!("../../playground/examples/my-holds.headers.json"),
    ),
    (
        "confirm-hold",
        include_str!("../../playground/examples/confirm-hold.headers.json"),
    ),
    (
        "define-ticket-type",
        include_str!("../../playground/examples/define-ticket-type.headers.json"),
    ),
    (
        "create-voucher-batch",
        include_str!("../../playground/examples/create-voucher-batch.headers.json"),
    ),
    (
        "release-hold",
        include_str!("../../playground/examples/release-hold.headers.json"),
    ),
    (
        "cancel-order",
        include_str!("../../playground/examples/cancel-order.headers.json"),
    ),
    (
        "cancel-seats",
        include_str!("../../playground/examples/cancel-seats.headers.json"),
    ),
    (
        "set-refund-policy",
        include_str!("../../playground/examples/set-refund-policy.headers.json"),
    ),
    (
        "my-orders",
        include_str!("../../playground/examples/my-orders.headers.json"),
    ),
    (
        "create-cinema",
        include_str!("../../playground/examples/create-cinema.headers.json"),
    ),
    (
        "update-cinema",
        include_str!("../../playground/examples/update-cinema.headers.json"),
    ),
    (
        "create-hall",
        include_str!("../../playground/examples/create-hall.headers.json"),
    ),
    (
        "update-hall",
        include_str!("../../playground/examples/update-hall.headers.json"),
    ),
    (
        "create-movie",
        include_str!("../../playground/examples/create-movie.headers.json"),
    ),
    (
        "update-movie",
        include_str!("../../playground/examples/update-movie.headers.json"),
    ),
    // The demo platform operator's key (also derived from the seed).
    (
        "schedule-showtime",
        include_str!("../../playground/examples/schedule-showtime.headers.json"),
    ),
    (
        "change-showtime-prices",
        include_str!("../../playground/examples/change-showtime-prices.headers.json"),
    ),
    (
        "block-seats",
        include_str!("../../playground/examples/block-seats.headers.json"),
    ),
    (
        "unblock-seats",
        include_str!("../../playground/examples/unblock-seats.headers.json"),
    ),
    (
        "cancel-showtime",
        include_str!("../../playground/examples/cancel-showtime.headers.json"),
    ),
];

/// The examples the playground offers (also read by the tests, which run each one).
pub fn examples_list() -> Vec<Example> {
    EXAMPLES
        .iter()
        .map(|(name, query, variables)| Example {
            name,
            description: query
                .lines()
                .next()
                .and_then(|line| line.strip_prefix('#'))
                .map(str::trim)
                .unwrap_or(""),
            query,
            variables,
            headers: HEADERS
                .iter()
                .find(|(example, _)| example == name)
                .map_or("", |(_, headers)| headers),
        })
        .collect()
}

pub async fn page() -> Html<&'static str> {
    Html(include_str!("../../playground/index.html"))
}

pub async fn examples() -> Json<Vec<Example>> {
    Json(examples_list())
}

/// The vendored GraphiQL, React and graphql-ws builds (GraphiQL's are stored gzip-compressed).
pub async fn vendor(Path(file): Path<String>) -> Response {
    let javascript = "text/javascript; charset=utf-8";
    let (body, content_type, gzip): (&'static [u8], &str, bool) = match file.as_str() {
        "graphiql.min.js" => (
            include_bytes!("../../playground/vendor/graphiql.min.js.gz"),
            javascript,
            true,
        ),
        "graphiql.min.css" => (
            include_bytes!("../../playground/vendor/graphiql.min.css.gz"),
            "text/css; charset=utf-8",
            true,
        ),
        "react.production.min.js" => (
            include_bytes!("../../playground/vendor/react.production.min.js"),
            javascript,
            false,
        ),
        "react-dom.production.min.js" => (
            include_bytes!("../../playground/vendor/react-dom.production.min.js"),
            javascript,
            false,
        ),
        // The seat picker's GraphQL-over-WebSocket client (graphql-ws's browser build).
        "graphql-ws.min.js" => (
            include_bytes!("../../playground/vendor/graphql-ws.min.js"),
            javascript,
            false,
        ),
        // The seat picker's QR codes of the tickets (qrcode-generator, MIT).
        "qrcode.js" => (
            include_bytes!("../../playground/vendor/qrcode.js"),
            javascript,
            false,
        ),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    let cache = (header::CACHE_CONTROL, "public, max-age=86400");
    if gzip {
        (
            [
                (header::CONTENT_TYPE, content_type),
                (header::CONTENT_ENCODING, "gzip"),
                cache,
            ],
            body,
        )
            .into_response()
    } else {
        ([(header::CONTENT_TYPE, content_type), cache], body).into_response()
    }
}
