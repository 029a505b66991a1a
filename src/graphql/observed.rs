//! The figures of each operation (`telemetry::metrics`): its name as a bounded label, how long
//! it ran, and the codes of its answer's errors, taken where `execute` already has them.

use std::time::Instant;

use async_graphql::parser::types::{DocumentOperations, ExecutableDocument};
use async_graphql::{Response, Value};

use crate::telemetry::metrics;

/// The label of the operation a request runs: the name it asks for, else the name of the
/// document's one named operation; bounded by `metrics::operation_label`.
pub(crate) fn operation_label(
    requested: Option<&str>,
    document: Option<&ExecutableDocument>,
) -> String {
    let from_document = || match &document?.operations {
        DocumentOperations::Multiple(operations) if operations.len() == 1 => {
            operations.keys().next().map(|name| name.as_str())
        }
        _ => None,
    };
    metrics::operation_label(requested.or_else(from_document))
}

/// Records an answered operation.
pub(crate) fn record(label: &str, started: Instant, response: &Response) {
    metrics::graphql_operation(label, started.elapsed(), codes(response));
}

/// Records only the errors of a later response of a subscription.
pub(crate) fn record_errors(label: &str, response: &Response) {
    if !response.errors.is_empty() {
        metrics::graphql_errors(label, codes(response));
    }
}

/// The `extensions.code` of each error (`errors` has set one on every error it classified).
fn codes(response: &Response) -> impl Iterator<Item = &str> {
    response.errors.iter().map(|error| {
        match error
            .extensions
            .as_ref()
            .and_then(|extensions| extensions.get("code"))
        {
            Some(Value::String(code)) => code.as_str(),
            Some(Value::Enum(code)) => code.as_str(),
            _ => "NONE",
        }
    })
}
