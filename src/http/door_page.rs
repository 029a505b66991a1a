//! The door page: `/door/{cinemaId}`, where door staff admit tickets with their door key
//! (`admitTicket`). It names its cinema and lists its showtimes from four hours back to a day
//! ahead (one `cinema` query). Plain HTML, CSS and a JavaScript module kept in
//! `playground/door`, served from the binary like the seat picker.

use axum::extract::Path;
use axum::response::{Html, Response};

use super::page_assets::{self, CSS, JAVASCRIPT};

/// `GET /door/{cinema}`: one page, whose script reads the cinema's id from the path.
pub async fn page() -> Html<&'static str> {
    Html(include_str!("../../playground/door/index.html"))
}

/// `GET /door/assets/{file}`: the page's script and style sheet.
pub async fn asset(Path(file): Path<String>) -> Response {
    page_assets::reply(match file.as_str() {
        "door.js" => Some((include_str!("../../playground/door/door.js"), JAVASCRIPT)),
        "door.css" => Some((include_str!("../../playground/door/door.css"), CSS)),
        _ => None,
    })
}
