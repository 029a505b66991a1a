//! Telling the complexity limit's refusal by the figure, not by its message.
//!
//! The complexity needs the schema's figures (`#[graphql(complexity)]`), so async-graphql's
//! validation checks it (`limit_complexity`). Its refusal is an error without a code, source,
//! location or path, like a few other validation errors ("unknown operation"). When a response
//! fails that way, the same operation is measured again by a probe: a copy of the schema whose
//! one extension reads the complexity validation computed and stops there, so nothing runs.
//! Over the limit, the error becomes QUERY_TOO_COMPLEX with the figure; otherwise it is left to
//! `errors::classify`. The probe costs nothing on answered requests: the served schema has no
//! extension (see `schema`), and the probe runs only on such failures.

use std::sync::{Arc, OnceLock};

use async_graphql::extensions::{Extension, ExtensionContext, ExtensionFactory, NextValidation};
use async_graphql::parser::types::ExecutableDocument;
use async_graphql::{Request, Response, Schema, ServerError, ValidationResult, Value, Variables};

use super::{Mutation, QueryRoot, RootSchema, Subscription};
use crate::error::ErrorCode;
use crate::graphql::errors::error_with_code;
use crate::graphql::QueryLimits;

/// A copy of the schema (over query root `Q`) that measures operations and runs none.
pub struct ComplexityProbe<Q: QueryRoot>(RootSchema<Q>);

impl<Q: QueryRoot> ComplexityProbe<Q> {
    pub fn new() -> Self {
        ComplexityProbe(
            Schema::build(Q::default(), Mutation::default(), Subscription::default())
                .extension(Measure)
                .finish(),
        )
    }

    /// The complexity of the operation, as async-graphql's validation computes it; None when
    /// the operation does not validate.
    async fn measure(
        &self,
        document: ExecutableDocument,
        variables: Variables,
        operation_name: Option<String>,
    ) -> Option<usize> {
        let figure = Figure::default();
        let mut request = Request::new("").variables(variables).data(figure.clone());
        request.operation_name = operation_name;
        request.set_parsed_query(document);
        self.0.execute(request).await;
        figure.0.get().copied()
    }
}

impl<Q: QueryRoot> Default for ComplexityProbe<Q> {
    fn default() -> Self {
        Self::new()
    }
}

/// What a request needs kept to be measured after it failed: its variables and operation.
pub struct Measurable {
    variables: Variables,
    operation_name: Option<String>,
}

impl Measurable {
    pub fn of(request: &Request) -> Self {
        Measurable {
            variables: request.variables.clone(),
            operation_name: request.operation_name.clone(),
        }
    }
}

/// Gives the complexity refusal of `response`, if it is one, its code and the figure.
pub async fn code_refusal<Q: QueryRoot>(
    schema: &RootSchema<Q>,
    response: &mut Response,
    document: &ExecutableDocument,
    request: Measurable,
    limits: &QueryLimits,
) {
    if !refused_uncoded(response) {
        return;
    }
    let Some(probe) = schema.data::<ComplexityProbe<Q>>() else {
        return;
    };
    let measured = probe
        .measure(document.clone(), request.variables, request.operation_name)
        .await;
    if let Some(complexity) = measured.filter(|&c| c > limits.max_complexity) {
        response.errors = vec![error_with_code(
            format!(
                "the query is too complex ({complexity}, at most {}): ask for fewer or \
                 smaller lists",
                limits.max_complexity
            ),
            ErrorCode::QueryTooComplex,
        )];
    }
}

/// Whether the response is one error of async-graphql's validation that says nothing of where
/// or why: no data, no code, no source, no location, no path.
fn refused_uncoded(response: &Response) -> bool {
    matches!(response.data, Value::Null)
        && response.errors.len() == 1
        && response.errors.iter().all(|error| {
            error.source.is_none()
                && error.locations.is_empty()
                && error.path.is_empty()
                && error.extensions.is_none()
        })
}

/// Where the probe's extension leaves the figure, in the probe request's data.
#[derive(Clone, Default)]
struct Figure(Arc<OnceLock<usize>>);

struct Measure;

impl ExtensionFactory for Measure {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(Measure)
    }
}

#[async_trait::async_trait]
impl Extension for Measure {
    async fn validation(
        &self,
        ctx: &ExtensionContext<'_>,
        next: NextValidation<'_>,
    ) -> Result<ValidationResult, Vec<ServerError>> {
        let result = next.run(ctx).await?;
        if let Some(figure) = ctx.data_opt::<Figure>() {
            let _ = figure.0.set(result.complexity);
        }
        // Measured: stop before anything runs.
        Err(vec![ServerError::new("measured", None)])
    }
}
