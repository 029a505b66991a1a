//! Idempotency keys: a retried write with the same key and input has one effect and gets the
//! first answer (`once`); the same key with another input is IDEMPOTENCY_KEY_REUSED;
//! concurrent requests with one key produce one effect. Every keyed mutation of every feature
//! runs under it; what an attempt creates takes its id from the key (`Attempt`), and an update
//! made on a key's behalf carries the key's ownership in its transaction (`KeyFence`).
//!
//! It owns the `idempotency_keys` collection (`store/`). Laid out as every feature is:
//! `rules` (pure: the policy and how long keys are kept), the use case (`keys`), answers as
//! stored and replayed (`answers`), `store`,
//! `graphql` (the key policy in a resolver's context).

mod answers;
pub mod graphql;
mod keys;
pub mod rules;
pub mod store;

pub use keys::{fence, once, once_unless_refused, Attempt};
pub use rules::KeyPolicy;
pub use store::KeyFence;
