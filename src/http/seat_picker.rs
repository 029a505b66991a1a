//! The seat picker: a page that draws a showtime's hall live from the `seatMapChanged`
//! subscription and holds, releases and confirms seats with a sales channel's key. Plain HTML,
//! CSS and JavaScript modules kept in `playground/seats` (no build step), served from the binary
//! like the playground; its graphql-ws client is `playground/vendor/graphql-ws.min.js`.

use axum::extract::Path;
use axum::response::{Html, Response};

use super::page_assets::{self, CSS, JAVASCRIPT};

/// `GET /seats` (the upcoming showtimes) and `GET /seats/{showtime}` (one showtime's hall): one
/// page, whose script reads the showtime's id from the path.
pub async fn page() -> Html<&'static str> {
    Html(include_str!("../../playground/seats/index.html"))
}

/// `GET /seats/assets/{file}`: the page's scripts and style sheet.
pub async fn asset(Path(file): Path<String>) -> Response {
    page_assets::reply(match file.as_str() {
        "seats.js" => Some((include_str!("../../playground/seats/seats.js"), JAVASCRIPT)),
        "hall.js" => Some((include_str!("../../playground/seats/hall.js"), JAVASCRIPT)),
        "seats.css" => Some((include_str!("../../playground/seats/seats.css"), CSS)),
        _ => None,
    })
}
