//! The keys' store code: the `idempotency_keys` records (`keys`), and the writes of other
//! features that take effect only while a keyed attempt owns its key (`fenced_writes`).

mod fenced_writes;
mod indexes;
mod keys;

pub use fenced_writes::KeyFence;
pub use keys::{Claim, KeyState, NewKey, Outcome, StoredAdmission, StoredError};
