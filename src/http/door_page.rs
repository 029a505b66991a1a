//! The door page: `/door/{cinemaId}`, where door staff admit tickets with their door key
//! (`admitTicket`). It names its cinema and lists its showtimes from four hours back to a day
//! ahead (one `cinema` query). Plain HTML, CSS and a JavaScript module kept in
//! `playground/door`, served from the binary like the seat picker.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};

/// `GET /door/{cinema}`: one page, whose script reads the cinema's id from the path.
pub async fn page() -> Html<&'static str> {
    Html(include_str!("../../playground/door/index.html"))
}

/// `GET /door/assets/{file}`: the page's script and style sheet.
pub async fn asset(Path(file): Path<String>) -> Response {
    let (body, content_type): (&'static str, &str) = match file.as_str() {
        "door.js" => (
            include_str!("../../playground/door/door.js"),
            "text/javascript; charset=utf-8",
        ),
        "door.css" => (
            include_str!("../../playground/door/door.css"),
            "text/css; charset=utf-8",
        ),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    let cache = (header::CACHE_CONTROL, "public, max-age=300");
    ([(header::CONTENT_TYPE, content_type), cache], body).into_response()
}
