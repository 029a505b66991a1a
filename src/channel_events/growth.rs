//! Who hears that channels' logs grew. The relay tells a handler registered where the process
//! is assembled (`crate::assembly`: webhooks, which marks the channels' endpoints due) and
//! names no one itself, so this feature depends on none that reads its logs.

use std::collections::BTreeSet;

use tokio::time::Instant;

use crate::error::ApiError;

/// Told when the relay appended events to channels' logs.
#[async_trait::async_trait]
pub trait LogsGrew: Send + Sync {
    /// The live relay appended to the logs of `grown` (empty when it calls for
    /// [`LogsGrew::next_chore`]). A failure is the handler's to retry: the relay logs it.
    async fn live(&self, grown: BTreeSet<String>) -> Result<(), ApiError>;

    /// A background pass appended to the logs of `grown` (never empty).
    async fn pass(&self, grown: Vec<String>) -> Result<(), ApiError>;

    /// When the handler next wants [`LogsGrew::live`] called with nothing new (to retry what
    /// it kept aside); `None` when it keeps nothing.
    fn next_chore(&self) -> Option<Instant>;
}

/// No one listens: the relay only appends (benchmarks and tools without webhooks).
pub struct NoOneListens;

#[async_trait::async_trait]
impl LogsGrew for NoOneListens {
    async fn live(&self, _: BTreeSet<String>) -> Result<(), ApiError> {
        Ok(())
    }

    async fn pass(&self, _: Vec<String>) -> Result<(), ApiError> {
        Ok(())
    }

    fn next_chore(&self) -> Option<Instant> {
        None
    }
}
