//! Multi-document transactions, run by the driver's transaction runner
//! (`start_transaction().and_run`): it runs the body again from the start on a transient error
//! (a write conflict) and retries a commit whose result is unknown, as the drivers' convenient
//! transaction API specifies. Four writes use one (docs/sharding.md lists them): the sales
//! projection, an operator's keyed update behind its key's fence, a hall's schedule, and a
//! price revision. No booking path does: the seat writes are single-document updates
//! (invariant 1), and an order and its seats agree through the inventory document's
//! authority, not a transaction (see `orders`).

use futures::FutureExt;
use mongodb::ClientSession;

use super::Store;
use crate::error::ApiError;

/// The runner retries for up to 120 s; a transaction gets this many operation timeouts.
const TRANSACTION_TIMEOUTS: u32 = 5;

/// The body's "do not commit": carried through the runner as a custom error, which aborts.
#[derive(Debug)]
struct Abandon;

impl Store {
    /// Runs `body` in a transaction, again from the start on a transient error. `body`
    /// returning `Ok(false)` or an error aborts; `Ok(true)` commits. All attempts together
    /// take at most `TRANSACTION_TIMEOUTS` operation timeouts (a dropped session's transaction
    /// is aborted by the server).
    pub(crate) async fn in_transaction<F>(&self, body: F) -> Result<bool, ApiError>
    where
        F: for<'a> Fn(
                &'a Store,
                &'a mut ClientSession,
            )
                -> futures::future::BoxFuture<'a, Result<bool, mongodb::error::Error>>
            + Sync,
    {
        let limit = self.timeout * TRANSACTION_TIMEOUTS;
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
                -> futures::future::BoxFuture<'a, Result<bool, mongodb::error::Error>>
            + Sync,
    {
        let mut session = self.db.client().start_session().await?;
        let run = session
            .start_transaction()
            .and_run((self, &body), |session, (store, body)| {
                let (store, body) = (*store, *body);
                async move {
                    match body(store, session).await? {
                        true => Ok(()),
                        false => Err(mongodb::error::Error::custom(Abandon)),
                    }
                }
                .boxed()
            })
            .await;
        match run {
            Ok(()) => Ok(true),
            Err(error) if error.get_custom::<Abandon>().is_some() => Ok(false),
            Err(error) => Err(error.into()),
        }
    }
}
