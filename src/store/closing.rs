//! Closing the connection to the database.

use super::Store;

impl Store {
    /// Closes the connection to the database: the last step of a graceful stop. Does not wait
    /// for open cursors (the change feed's): nothing runs any more. Within the operation
    /// timeout (the driver ends the server's sessions first, which needs the server).
    #[tracing::instrument(skip(self))]
    pub async fn shutdown(&self) {
        let closing = self.db.client().clone().shutdown().immediate(true);
        if tokio::time::timeout(self.timeout, closing).await.is_err() {
            tracing::warn!("the database client did not close in time");
        }
    }
}
