//! The sales dashboard: `/dashboard`, where a cinema chain's (or the platform's) operator sees
//! a cinema's day: showtimes with live occupancy bars, revenue by hour, seat heat maps,
//! vouchers and products. Plain HTML, CSS and JavaScript modules kept in
//! `playground/dashboard` (no framework, charts drawn as SVG by hand), served from the binary
//! like the door page. The page reads only through the GraphQL API with the operator's key,
//! so the API decides what it shows.

use axum::extract::Path;
use axum::response::{Html, Response};

use super::page_assets::{self, CSS, JAVASCRIPT};

/// `GET /dashboard`: one page; the operator's key is entered there, never in the address.
pub async fn page() -> Html<&'static str> {
    Html(include_str!("../../playground/dashboard/index.html"))
}

/// `GET /dashboard/assets/{file}`: the page's scripts and style sheet.
pub async fn asset(Path(file): Path<String>) -> Response {
    page_assets::reply(match file.as_str() {
        "dashboard.js" => Some((
            include_str!("../../playground/dashboard/dashboard.js"),
            JAVASCRIPT,
        )),
        "charts.js" => Some((
            include_str!("../../playground/dashboard/charts.js"),
            JAVASCRIPT,
        )),
        "format.js" => Some((
            include_str!("../../playground/dashboard/format.js"),
            JAVASCRIPT,
        )),
        "dashboard.css" => Some((
            include_str!("../../playground/dashboard/dashboard.css"),
            CSS,
        )),
        _ => None,
    })
}
