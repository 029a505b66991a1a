//! The seat picker: a page that draws a showtime's hall live from the `seatMapChanged`
//! subscription and holds, releases and confirms seats with a sales channel's key. Plain HTML,
//! CSS and JavaScript modules kept in `playground/seats` (no build step), served from the binary
//! like the playground; its graphql-ws client is `playground/vendor/graphql-ws.min.js`.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};

/// `GET /seats` (the upcoming showtimes) and `GET /seats/{showtime}` (one showtime's hall): one
/// page, whose script reads the showtime's id from the path.
pub async fn page() -> Html<&'static str> {
    Html(include_str!("../../playground/seats/index.html"))
}

/// `GET /seats/assets/{file}`: the page's scripts and style sheet.
pub async fn asset(Path(file): Path<String>) -> Response {
    let javascript = "text/javascript; charset=utf-8";
    let (body, content_type): (&'static str, &str) = match file.as_str() {
        "seats.js" => (include_str!("../../playground/seats/seats.js"), javascript),
        "hall.js" => (include_str!("../../playground/seats/hall.js"), javascript),
        "seats.css" => (
            include_str!("../../playground/seats/seats.css"),
            "text/css; charset=utf-8",
        ),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    // Shorter than the vendored builds' day: these URLs carry no version, and the files change
    // with the gateway.
    let cache = (header::CACHE_CONTROL, "public, max-age=300");
    ([(header::CONTENT_TYPE, content_type), cache], body).into_response()
}
