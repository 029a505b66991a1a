//! What a keyed mutation's resolver reaches through its context: the key policy, which
//! `schema::prepare` attaches to every request.

use async_graphql::Context;

use crate::idempotency::KeyPolicy;

/// Typed access to the key policy in the request data.
pub trait IdempotencyContext {
    fn key_policy(&self) -> &KeyPolicy;
}

impl IdempotencyContext for Context<'_> {
    fn key_policy(&self) -> &KeyPolicy {
        self.data_unchecked::<KeyPolicy>()
    }
}
