//! The GraphQL schema's assembly: the features' query, mutation and subscription roots merged
//! (`query`, `mutation`, `subscription`), the shared types (`types`: connections, money,
//! nodes; each feature keeps its own in its `graphql/`), the per-request DataLoaders
//! (`loaders`), the request's limits (complexity, shape, entities), and the one place errors
//! get their codes (`errors`).

mod batch_loader;
mod boxed_member;
mod complexity;
pub mod context;
mod dispatch;
mod document_cache;
mod document_shape;
mod entity_limit;
pub mod errors;
pub mod loaders;
mod mutation;
mod observed;
mod omitted_variables;
mod query;
mod query_text;
pub mod seat_map_tap;
mod shape_limits;
pub(crate) mod subscription;
pub mod types;

use std::sync::Arc;
use std::time::Instant;

use async_graphql::parser::types::OperationDefinition;
use async_graphql::{BatchRequest, BatchResponse, ObjectType, Response, Schema};
use complexity::{ComplexityProbe, Measurable};
use document_cache::{Checked, DocumentCache};
use entity_limit::Representations;
use futures::stream::{BoxStream, StreamExt};
use omitted_variables::OmittedAsNull;

pub use context::{prepare, Caller, Door, RequestSettings};
pub use entity_limit::MAX_REPRESENTATIONS;
pub use mutation::Mutation;
pub use query::{FederatedQuery, Query};
pub use shape_limits::MAX_VARIABLE_LIST;
pub use subscription::Subscription;

/// The bytes of query text whose parsed and checked documents are kept (`document_cache`):
/// a few hundred typical queries, some tens of MB at most with their documents.
const DOCUMENT_CACHE_TEXT_BYTES: usize = 512 * 1024;

/// A query root the gateway serves: the API's, or, with `--federation`, the API's with the
/// Apollo Federation entities (`_entities`, `_service`).
pub trait QueryRoot: ObjectType + Default + Send + Sync + 'static {}
impl QueryRoot for Query {}
impl QueryRoot for FederatedQuery {}

/// A schema of the gateway over query root `Q`.
pub type RootSchema<Q> = Schema<Q, Mutation, Subscription>;
/// The schema served by the gateway (and printed in `schema.graphql`).
pub type AppSchema = RootSchema<Query>;
/// The schema served with `--federation`: a subgraph of an Apollo Federation v2 supergraph.
pub type FederatedSchema = RootSchema<FederatedQuery>;

/// The schema a gateway serves: one or the other, chosen at start-up.
#[derive(Clone)]
pub enum ServedSchema {
    Plain(AppSchema),
    Federated(FederatedSchema),
}

impl ServedSchema {
    /// The schema of `limits`, federated or not.
    pub fn new(limits: QueryLimits, federation: bool) -> Self {
        if federation {
            ServedSchema::Federated(schema_of(limits))
        } else {
            ServedSchema::Plain(schema(limits))
        }
    }

    /// [`execute_batch`] on the schema served.
    pub async fn execute_batch(&self, batch: BatchRequest) -> BatchResponse {
        match self {
            ServedSchema::Plain(schema) => execute_batch(schema, batch).await,
            ServedSchema::Federated(schema) => execute_batch(schema, batch).await,
        }
    }

    /// [`execute_stream`] on the schema served.
    pub fn execute_stream(&self, request: async_graphql::Request) -> BoxStream<'static, Response> {
        match self {
            ServedSchema::Plain(schema) => execute_stream(schema, request),
            ServedSchema::Federated(schema) => execute_stream(schema, request),
        }
    }

    /// [`seat_map_tap::shareable`] on the schema served.
    pub fn shareable(&self, request: &mut async_graphql::Request) -> bool {
        match self {
            ServedSchema::Plain(schema) => seat_map_tap::shareable(schema, request),
            ServedSchema::Federated(schema) => seat_map_tap::shareable(schema, request),
        }
    }

    /// Whether `request` runs a subscription, from its document as the shape limits checked
    /// it (and cached; the execution then parses nothing again). False when the limits refuse
    /// it or it names no operation of its document: the execution says what is wrong.
    pub fn is_subscription(&self, request: &mut async_graphql::Request) -> bool {
        use async_graphql::parser::types::OperationType;
        let subscription = |operation: &OperationDefinition, _: &async_graphql::Variables| {
            (operation.ty == OperationType::Subscription).then_some(())
        };
        self.on_operation(request, subscription).is_some()
    }

    /// `test` of the operation `request` runs and its variables, from its document as the
    /// shape limits checked it (and cached); None when the limits refuse it or it names no
    /// operation of its document.
    pub fn on_operation<T>(
        &self,
        request: &mut async_graphql::Request,
        test: impl FnOnce(&OperationDefinition, &async_graphql::Variables) -> Option<T>,
    ) -> Option<T> {
        match self {
            ServedSchema::Plain(schema) => with_operation(schema, request, test),
            ServedSchema::Federated(schema) => with_operation(schema, request, test),
        }
    }
}

/// `test` of the operation `request` runs, from its checked document; None when the shape
/// limits refuse it or it names no operation of the document.
fn with_operation<Q: QueryRoot, T>(
    schema: &RootSchema<Q>,
    request: &mut async_graphql::Request,
    test: impl FnOnce(&OperationDefinition, &async_graphql::Variables) -> Option<T>,
) -> Option<T> {
    use async_graphql::parser::types::DocumentOperations;
    let limits = limits_of(schema);
    let checked = checked(schema, request, &limits).ok()?;
    let operation = match (&checked.document.operations, &request.operation_name) {
        (DocumentOperations::Single(operation), _) => operation,
        (DocumentOperations::Multiple(operations), Some(name)) => operations.get(name.as_str())?,
        (DocumentOperations::Multiple(_), None) => return None,
    };
    test(&operation.node, &request.variables)
}

/// Limits on a query checked before any resolver runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryLimits {
    pub max_depth: usize,
    pub max_complexity: usize,
    pub max_tokens: usize,
    pub max_aliases: usize,
    pub max_directives: usize,
    /// How deep brackets nest in the text, values in the variables, and selection sets with
    /// fragments expanded.
    pub max_nesting: usize,
    /// Whether introspection is answered.
    pub introspection: bool,
}

impl QueryLimits {
    /// No limit at all: for printing the schema, which the limits do not change. (A served
    /// schema gets its limits from `config`.)
    pub const NONE: QueryLimits = QueryLimits {
        max_depth: usize::MAX,
        max_complexity: usize::MAX,
        max_tokens: usize::MAX,
        max_aliases: usize::MAX,
        max_directives: usize::MAX,
        max_nesting: usize::MAX,
        introspection: true,
    };
}

/// Builds the schema without any data: requests get theirs from [`prepare`], and run through
/// [`execute`].
///
/// No extensions: with any, async-graphql passes every field of every response through the
/// extension chain (an eighth of the gateway's CPU on a page of showtimes). What extensions
/// would do (the limits, the error codes) `execute` does around the schema.
pub fn schema(limits: QueryLimits) -> AppSchema {
    schema_of(limits)
}

/// [`schema`] over query root `Q`.
fn schema_of<Q: QueryRoot>(limits: QueryLimits) -> RootSchema<Q> {
    let builder = Schema::build(Q::default(), Mutation::default(), Subscription::default());
    let builder = if limits.introspection {
        builder
    } else {
        builder.disable_introspection()
    };
    builder
        .limit_complexity(limits.max_complexity)
        // `shape_limits` checks the same count first, with a code; this stays as a backstop.
        .limit_recursive_depth(limits.max_nesting)
        .data(limits)
        .data(DocumentCache::new(DOCUMENT_CACHE_TEXT_BYTES))
        .data(ComplexityProbe::<Q>::new())
        .finish()
}

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
        Err(error) => {
            let response = Response::from_errors(vec![error]);
            let label = observed::operation_label(request.operation_name.as_deref(), None);
            observed::record(&label, started, &response);
            return response;
        }
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
            let response = Response::from_errors(vec![error]);
            let label = observed::operation_label(request.operation_name.as_deref(), None);
            observed::record(&label, started, &response);
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
fn limits_of<Q: QueryRoot>(schema: &RootSchema<Q>) -> QueryLimits {
    schema
        .data::<QueryLimits>()
        .copied()
        .expect("`schema` keeps its limits in the schema's data")
}

/// The request's query parsed and within the shape limits, from the cache when this text was
/// seen before; the parsed document is in `request` either way.
fn checked<Q: QueryRoot>(
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

impl QueryLimits {
    /// Whether a query's text is within the token and nesting limits, so that parsing it is
    /// bounded work (the schema refuses it otherwise, before parsing).
    pub fn text_within(&self, query: &str) -> bool {
        let text = query_text::scan(query, self.max_tokens + 1);
        text.tokens <= self.max_tokens && text.nesting <= self.max_nesting
    }
}

/// The SDL of the schema, as checked in at `schema.graphql`.
pub fn sdl() -> String {
    schema(QueryLimits::NONE).sdl()
}

/// The subgraph SDL `--federation` serves at `_service { sdl }`, with its `@key` directives.
pub fn federation_sdl() -> String {
    schema_of::<FederatedQuery>(QueryLimits::NONE).sdl_with_options(
        async_graphql::SDLExportOptions::new()
            .federation()
            .compose_directive(),
    )
}
