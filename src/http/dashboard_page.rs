//! The sales dashboard: `/dashboard`, where a cinema chain's (or the platform's) operator sees
//! a cinema's day: showtimes with live occupancy bars, revenue by hour, seat heat maps,
//! vouchers and products. Plain HTML, CSS and JavaScript modules kept in
//! `playground/dashboard` (no framework, charts drawn as SVG by hand), served from the binary
//! like the door page. The page reads only through the GraphQL API with the operator's key,
//! so the API decides what it shows.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};

/// `GET /dashboard`: one page; the operator's key is entered there, never in the address.
pub async fn page() -> Html<&'static str> {
    Html(include_str!("../../playground/dashboard/index.html"))
}

/// `GET /dashboard/assets/{file}`: the page's scripts and style sheet.
pub async fn asset(Path(file): Path<String>) -> Response {
    let javascript = "text/javascript; charset=utf-8";
    let (body, content_type): (&'static str, &str) = match file.as_str() {
        "dashboard.js" => (
            include_str!("../../playground/dashboard/dashboard.js"),
            javascript,
        ),
        "charts.js" => (
            include_str!("../../playground/dashboard/charts.js"),
            javascript,
        ),
        "format.js" => (
            include_str!("../../playground/dashboard/format.js"),
            javascript,
        ),
        "dashboard.css" => (
            include_str!("../../playground/dashboard/dashboard.css"),
            "text/css; charset=utf-8",
        ),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    let cache = (header::CACHE_CONTROL, "public, max-age=300");
    ([(header::CONTENT_TYPE, content_type), cache], body).into_response()
}
