//! The schema, assembled on the top floor: every feature's query, mutation and subscription
//! roots merged (`query`, `mutation`, `subscription`; `--federation` adds the entities), the
//! schema built from them (`schema`, `ServedSchema`) and run with its limits, cache and error
//! codes (`execution`), and what each request carries for the features' resolvers
//! (`context`: `RequestSettings`, `prepare`). It names every feature; no feature names it but
//! through `upward`. The plumbing it runs on, which names no feature, is `crate::graphql`.

mod boxed_member;
mod complexity;
mod context;
mod execution;
mod mutation;
mod query;
mod served;
mod subscription;
pub mod upward;

use async_graphql::{ObjectType, Schema};
use complexity::ComplexityProbe;

use crate::graphql::document_cache::DocumentCache;
use crate::graphql::QueryLimits;

pub use context::{prepare, RequestSettings};
pub use execution::{execute, execute_batch, execute_stream};
pub use mutation::Mutation;
pub use query::{FederatedQuery, Query};
pub use served::ServedSchema;
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
