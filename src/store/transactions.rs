//! Multi-document transactions, retried on transient errors (write conflicts). Only the sales
//! projection uses one: the seat writes are single-document updates (invariant 1), and an
//! order and its seats agree through the inventory document's authority, not a transaction
//! (see `orders`).

use mongodb::error::TRANSIENT_TRANSACTION_ERROR;
use mongodb::ClientSession;

use super::Store;
use crate::error::ApiError;

/// A transaction that hits a write conflict is run again, this many times at most.
const TRANSACTION_ATTEMPTS: usize = 5;

impl Store {
    /// Runs `body` in a transaction, again from the start on a transient error. `body`
    /// returning `Ok(false)` or an error aborts; `Ok(true)` commits. All attempts together
    /// take at most the operation timeout each (a dropped session's transaction is aborted by
    /// the server).
    pub(super) async fn in_transaction<F>(&self, body: F) -> Result<bool, ApiError>
    where
        F: for<'a> Fn(
            &'a Store,
            &'a mut ClientSession,
        )
            -> futures::future::BoxFuture<'a, Result<bool, mongodb::error::Error>>,
    {
        let limit = self.timeout * TRANSACTION_ATTEMPTS as u32;
        tokio::time::timeout(limit, self.run_transaction(body))
            .await
            .map_err(|_| {
                ApiError::unavailable(format!(
                    "a transaction did not finish within {} ms",
                    limit.as_millis()
                ))
            })?
    }

    async fn run_transaction<F>(&self, body: F) -> Result<bool, ApiError>
    where
        F: for<'a> Fn(
            &'a Store,
            &'a mut ClientSession,
        )
            -> futures::future::BoxFuture<'a, Result<bool, mongodb::error::Error>>,
    {
        let mut session = self.db.client().start_session().await?;
        let mut last_error = None;
        for _ in 0..TRANSACTION_ATTEMPTS {
            session.start_transaction().await?;
            let outcome = match body(self, &mut session).await {
                Ok(true) => session.commit_transaction().await.map(|()| true),
                Ok(false) => {
                    session.abort_transaction().await?;
                    return Ok(false);
                }
                Err(error) => {
                    // Best effort: the server also aborts a transaction its session abandons.
                    let _ = session.abort_transaction().await;
                    Err(error)
                }
            };
            match outcome {
                Ok(done) => return Ok(done),
                Err(error) if error.contains_label(TRANSIENT_TRANSACTION_ERROR) => {
                    last_error = Some(error);
                }
                Err(error) => return Err(error.into()),
            }
        }
        Err(last_error.map_or_else(|| ApiError::internal("transaction failed"), ApiError::from))
    }
}
