//! The files of the pages the gateway serves from its binary (the seat picker, the door page,
//! the dashboard): each page's handler names its files, this answers with one.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

/// A script's content type.
pub const JAVASCRIPT: &str = "text/javascript; charset=utf-8";
/// A style sheet's content type.
pub const CSS: &str = "text/css; charset=utf-8";

/// A page's file, `(body, content type)`, or 404 for a name the page does not have. Cached
/// shorter than the vendored builds' day: these URLs carry no version, and the files change
/// with the gateway.
pub fn reply(file: Option<(&'static str, &'static str)>) -> Response {
    let Some((body, content_type)) = file else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let cache = (header::CACHE_CONTROL, "public, max-age=300");
    ([(header::CONTENT_TYPE, content_type), cache], body).into_response()
}
