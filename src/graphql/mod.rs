//! The GraphQL plumbing the features' resolvers stand on, naming no feature: the shared types
//! (`types`: connections, money, seat kinds; each feature keeps its own in its `graphql/`),
//! the generic half of the request context (`context`: the store, the loaders, the caller,
//! pages), the per-request DataLoaders (`loaders`), the request's limits (shape, entities,
//! text), the checked documents' cache, and the one place errors get their codes (`errors`).
//! The schema itself, which names every feature's roots, is assembled above the features, in
//! `crate::schema`.

mod batch_loader;
pub mod context;
pub(crate) mod dispatch;
pub(crate) mod document_cache;
mod document_shape;
pub(crate) mod entity_limit;
pub mod errors;
pub mod loaders;
pub(crate) mod observed;
pub(crate) mod omitted_variables;
mod query_text;
pub mod seat_map_tap;
pub(crate) mod shape_limits;
pub mod types;

pub use context::{Caller, Door};
pub use entity_limit::MAX_REPRESENTATIONS;
pub use shape_limits::MAX_VARIABLE_LIST;

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

impl QueryLimits {
    /// Whether a query's text is within the token and nesting limits, so that parsing it is
    /// bounded work (the schema refuses it otherwise, before parsing).
    pub fn text_within(&self, query: &str) -> bool {
        let text = query_text::scan(query, self.max_tokens + 1);
        text.tokens <= self.max_tokens && text.nesting <= self.max_nesting
    }
}
