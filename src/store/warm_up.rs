//! Opening every collection before the gateway takes requests.
//!
//! SecantusDB, the test server, reads a collection whole the first time after a start that
//! anything touches it: 31 s and about 1 GB for the national demo's `seat_inventory`. When
//! several requests touch a cold collection at once, each of them does: six concurrent first
//! reads took the server past 14 GB in 20 s, and the kernel killed it at 24 GB during a
//! booking benchmark. One read per collection, one collection after another, makes the first
//! request's reads ordinary ones. On MongoDB it is one quick read per collection.

use std::time::{Duration, Instant};

use bson::{doc, Document};

use super::command_metrics::Call;
use super::{names, Store};
use crate::error::ApiError;

impl Store {
    /// Reads one document id from every collection, one collection after another, and gives
    /// how long each took. Takes as long as the server needs: call it on a store whose
    /// timeout allows that (`with_timeout`).
    #[tracing::instrument(skip(self))]
    pub async fn warm_up(&self) -> Result<Vec<(&'static str, Duration)>, ApiError> {
        let mut took = Vec::with_capacity(names::ALL.len());
        for collection in names::ALL {
            let started = Instant::now();
            self.bounded(
                Call::new(collection, "find"),
                self.collection::<Document>(collection)
                    .find_one(doc! {})
                    .projection(doc! { "_id": 1 }),
            )
            .await?;
            took.push((collection, started.elapsed()));
        }
        Ok(took)
    }
}
