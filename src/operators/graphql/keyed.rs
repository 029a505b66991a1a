//! Where an operator's write runs, from the resolver's context.

use async_graphql::Context;

use crate::graphql::context::ContextExt;
use crate::idempotency::graphql::IdempotencyContext;
use crate::operators::Keyed;

/// An operator's keyed write from the request data.
pub trait OperatorsContext {
    /// Where `operator`'s write runs: the store, the key policy, the write's idempotency key
    /// and the request the key's retries must repeat.
    fn keyed<'a, R: serde::Serialize>(
        &'a self,
        operator: &'a str,
        key: Option<&'a str>,
        request: &'a R,
    ) -> Keyed<'a, R>;
}

impl OperatorsContext for Context<'_> {
    fn keyed<'a, R: serde::Serialize>(
        &'a self,
        operator: &'a str,
        key: Option<&'a str>,
        request: &'a R,
    ) -> Keyed<'a, R> {
        Keyed {
            store: self.store(),
            keys: self.key_policy(),
            operator,
            key,
            request,
        }
    }
}
