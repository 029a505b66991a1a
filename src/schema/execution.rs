//! Running a request on the schema: the shape limits before it reaches the schema (from the
//! cache of checked documents when its text was seen before), then the schema, driven so its
//! loaders send their batches when it can go no further, then the error codes.

use std::sync::Arc;
use std::time::Instant;

use async_graphql::{BatchRequest, BatchResponse, Response};
use futures::stream::{BoxStream, StreamExt};

use super::complexity::{self, Measurable};
use super::{QueryRoot, RootSchema};
use crate::graphql::document_cache::{Checked, DocumentCache};
use crate::graphql::entity_limit::Representations;
use crate::graphql::omitted_variables::OmittedAsNull;
use crate::graphql::{dispatch, errors, loaders, observed, shape_limits, QueryLimits};

/// Runs one request: the shape limits before it reaches the schema, then the schema, then
/// the error codes on its response.
pub async fn execute<Q: QueryRoot>(
    schema: &RootSchema<Q>,
    mut request: async_graphql::Request,
) -> Response {
    let started = Instant::now();
    let limits = limits_of(schema);
    let checked = match checked(schema, &mut request, &limits) {
        Ok(checked) => checked,
        Err(error) => return refused(&request, started, error),
    };
    let label =
        observed::operation_label(request.operation_name.as_deref(), Some(&checked.document));
    let measurable = Measurable::of(&request);
    let response = match dispatch_of(&request) {
        Some(dispatch) => dispatch::Driven::new(Box::pin(schema.execute(request)), dispatch).await,
        None => schema.execute(request).await,
    };
    let response = finish(response, &checked, Some((schema, measurable, &limits))).await;
    observed::record(&label, started, &response);
    response
}

/// A response with its error codes. `refusable` is given for a
/// response that may be a refusal of the whole operation (the first), to be measured if it
/// looks like the complexity limit's.
async fn finish<Q: QueryRoot>(
    mut response: Response,
    checked: &Checked,
    refusable: Option<(&RootSchema<Q>, Measurable, &QueryLimits)>,
) -> Response {
    if let Some((schema, measurable, limits)) = refusable {
        complexity::code_refusal(schema, &mut response, &checked.document, measurable, limits)
            .await;
    }
    errors::classify_response(&mut response);
    response
}

/// Runs one operation sent over WebSocket, a subscription or not: the same limits first, then
/// the schema's stream of responses, each with its error codes.
pub fn execute_stream<Q: QueryRoot>(
    schema: &RootSchema<Q>,
    mut request: async_graphql::Request,
) -> BoxStream<'static, Response> {
    let started = Instant::now();
    let limits = limits_of(schema);
    let checked = match checked(schema, &mut request, &limits) {
        Ok(checked) => checked,
        Err(error) => {
            let response = refused(&request, started, error);
            return futures::stream::once(async { response }).boxed();
        }
    };
    let label: Arc<str> =
        observed::operation_label(request.operation_name.as_deref(), Some(&checked.document))
            .into();
    let measurable = Some(Measurable::of(&request));
    let schema = schema.clone();
    // Not driven (`dispatch`): a subscription's loaders keep their timer. A subscription
    // waits on the live hub far more than on loaders, and a driven stream that misses a wake
    // stalls a subscriber, not a request with a timeout.
    schema
        .execute_stream(request)
        .scan(measurable, |measurable, response| {
            // Only the first response can be a refusal of the whole operation, and it counts
            // as the operation (its time: until it came).
            futures::future::ready(Some((measurable.take(), response)))
        })
        .then(move |(measurable, response)| {
            let (schema, checked, label) =
                (schema.clone(), Arc::clone(&checked), Arc::clone(&label));
            async move {
                let first = measurable.is_some();
                let refusable = measurable.map(|measurable| (&schema, measurable, &limits));
                let response = finish(response, &checked, refusable).await;
                if first {
                    observed::record(&label, started, &response);
                } else {
                    observed::record_errors(&label, &response);
                }
                response
            }
        })
        .boxed()
}

/// The dispatch of the request's loaders, when `prepare` gave it some.
fn dispatch_of(request: &async_graphql::Request) -> Option<Arc<dispatch::Dispatch>> {
    let loaders = request
        .data
        .get(&std::any::TypeId::of::<loaders::Loaders>())?;
    let loaders = loaders.downcast_ref::<loaders::Loaders>()?;
    Some(Arc::clone(loaders.dispatch()))
}

/// The limits the schema was built with.
pub(super) fn limits_of<Q: QueryRoot>(schema: &RootSchema<Q>) -> QueryLimits {
    schema
        .data::<QueryLimits>()
        .copied()
        .expect("`schema` keeps its limits in the schema's data")
}

/// The request's query parsed and within the shape limits, from the cache when this text was
/// seen before; the parsed document is in `request` either way.
pub(super) fn checked<Q: QueryRoot>(
    schema: &RootSchema<Q>,
    request: &mut async_graphql::Request,
    limits: &QueryLimits,
) -> async_graphql::ServerResult<Arc<Checked>> {
    shape_limits::check_variables(request, limits)?;
    let cache = schema.data::<DocumentCache>();
    let operation_name = request.operation_name.clone();
    let cached = cache.and_then(|cache| cache.get(&request.query, operation_name.as_deref()));
    if let Some(checked) = cached {
        request.set_parsed_query(checked.document.clone());
        checked.omitted_as_null.fill(&mut request.variables);
        checked.representations.check(&request.variables)?;
        return Ok(checked);
    }
    let document = shape_limits::check_query(request, limits)?;
    let checked = Arc::new(Checked {
        omitted_as_null: OmittedAsNull::of(document, operation_name.as_deref()),
        representations: Representations::of(document),
        document: document.clone(),
    });
    checked.omitted_as_null.fill(&mut request.variables);
    checked.representations.check(&request.variables)?;
    if let Some(cache) = cache {
        cache.insert(
            &request.query,
            operation_name.as_deref(),
            Arc::clone(&checked),
        );
    }
    Ok(checked)
}

/// Runs a batch, one request after another, as async-graphql does.
pub async fn execute_batch<Q: QueryRoot>(
    schema: &RootSchema<Q>,
    batch: BatchRequest,
) -> BatchResponse {
    match batch {
        BatchRequest::Single(request) => BatchResponse::Single(execute(schema, request).await),
        BatchRequest::Batch(requests) => {
            let mut responses = Vec::with_capacity(requests.len());
            for request in requests {
                responses.push(execute(schema, request).await);
            }
            BatchResponse::Batch(responses)
        }
    }
}

/// The answer to `request` when the limits refuse it before it reaches the schema, recorded
/// like any other.
fn refused(
    request: &async_graphql::Request,
    started: Instant,
    error: async_graphql::ServerError,
) -> Response {
    let response = Response::from_errors(vec![error]);
    let label = observed::operation_label(request.operation_name.as_deref(), None);
    observed::record(&label, started, &response);
    response
}
