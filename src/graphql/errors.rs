//! The one place where errors become GraphQL errors with `extensions.code`.
//!
//! Resolvers return [`ApiError`] with `?`; async-graphql keeps it as the error's source.
//! [`classify_response`] reads it back for every error of a response, sets the code, and masks
//! internal errors (logging them with their path first). Errors raised by async-graphql itself
//! are validation and input-coercion errors: BAD_USER_INPUT. (Parse errors and our own limits
//! are coded where they arise, in `shape_limits`; the complexity limit's refusal is told by
//! its figure in `complexity`, before this runs.)

use async_graphql::{ErrorExtensionValues, Response, ServerError};

use crate::error::{ApiError, ErrorCode};

/// Sets the codes of every error of `response`.
pub fn classify_response(response: &mut Response) {
    response.errors.iter_mut().for_each(classify);
}

/// Sets `extensions.code` on an error and masks it if it is internal. An error that already
/// has a code (raised by our own limits) keeps it.
pub fn classify(error: &mut ServerError) {
    if error
        .extensions
        .as_ref()
        .is_some_and(|extensions| extensions.get("code").is_some())
    {
        return;
    }
    let code = match error.source::<ApiError>().cloned() {
        Some(api_error) => {
            match &api_error {
                ApiError::Unavailable(cause) => {
                    tracing::warn!(path = ?error.path, cause = format!("{cause:#}"), "database unavailable");
                }
                ApiError::Internal(_) | ApiError::Fenced { .. } => {
                    tracing::error!(path = ?error.path, error = %api_error, "internal error");
                }
                _ => {}
            }
            if let ApiError::SeatUnavailable { seats, .. } = &api_error {
                let seats = seats
                    .iter()
                    .map(|s| async_graphql::Value::from(s.as_str()))
                    .collect();
                error
                    .extensions
                    .get_or_insert_with(ErrorExtensionValues::default)
                    .set("seats", async_graphql::Value::List(seats));
            }
            if let Some(reason) = api_error.reason() {
                error
                    .extensions
                    .get_or_insert_with(ErrorExtensionValues::default)
                    .set("reason", reason);
            }
            if let Some(product) = api_error.product() {
                error
                    .extensions
                    .get_or_insert_with(ErrorExtensionValues::default)
                    .set("product", product);
            }
            let (name, at_door) = match &api_error {
                ApiError::AlreadyAdmitted { at, door, .. } => ("admittedAt", Some((at, door))),
                ApiError::AlreadyCollected { at, door, .. } => ("collectedAt", Some((at, door))),
                _ => ("", None),
            };
            if let Some((at, door)) = at_door {
                let extensions = error
                    .extensions
                    .get_or_insert_with(ErrorExtensionValues::default);
                extensions.set(name, at.to_rfc3339());
                extensions.set("door", door.as_str());
            }
            let code = api_error.code();
            error.message = api_error.client_message();
            code
        }
        None => ErrorCode::BadUserInput,
    };
    set_code(error, code);
}

/// A GraphQL error built outside the schema (HTTP-level limits), with its code.
pub fn error_with_code(message: impl Into<String>, code: ErrorCode) -> ServerError {
    with_code(ServerError::new(message, None), code)
}

/// An error raised by async-graphql where we know what it means (a parse error, a validation
/// error), given that code.
pub fn with_code(mut error: ServerError, code: ErrorCode) -> ServerError {
    set_code(&mut error, code);
    error
}

fn set_code(error: &mut ServerError, code: ErrorCode) {
    error
        .extensions
        .get_or_insert_with(ErrorExtensionValues::default)
        .set("code", code.as_str());
}
