//! The `gateways` collection: every gateway process says it is alive every heartbeat
//! (`{_id: <process id>, seenAt: $$NOW, sees, url, demand}`), so each can count the live ones
//! and take its part of every rate limit and of the requests' pool. Judged by the
//! database's clock alone; a TTL index removes the records of processes that died without
//! saying so, and a process that stops deletes its own.

use std::time::Duration;

use bson::{doc, Document};

use crate::error::ApiError;
use crate::gateways::peers::Peer;
use crate::store::command_metrics::Call;
use crate::store::{names, Store};

/// The most gateways counted (far more than a deployment runs).
const MOST: usize = 10_000;

/// What one heartbeat learnt of the other gateways.
#[derive(Debug)]
pub(in crate::gateways) struct Seen {
    /// The live gateways, this one included (so at least 1).
    pub live: u32,
    /// The other live gateways that are reachable.
    pub reachable: Vec<Peer>,
    /// What each other live gateway last said it wanted of the database (None: it did not).
    pub demands: Vec<Option<f64>>,
}

impl Store {
    /// Records that gateway `id` (reachable by the others at `url`, if it is) is alive now and
    /// wants `demand` requests of the database at once, and returns what it learnt of the
    /// gateways seen within `window` by the database's clock. The record keeps the count of
    /// live gateways (`sees`), the share this process takes from now on.
    #[tracing::instrument(skip(self))]
    pub(in crate::gateways) async fn gateway_heartbeat(
        &self,
        id: &str,
        url: Option<&str>,
        window: Duration,
        demand: f64,
    ) -> Result<Seen, ApiError> {
        #[derive(serde::Deserialize)]
        struct Other {
            #[serde(rename = "_id")]
            id: String,
            #[serde(default)]
            url: Option<String>,
            #[serde(default)]
            demand: Option<f64>,
        }
        let gateways = self.collection::<Document>(names::GATEWAYS);
        let window_ms = i64::try_from(window.as_millis()).unwrap_or(i64::MAX);
        let since = doc! { "$dateAdd": { "startDate": "$$NOW", "unit": "millisecond", "amount": -window_ms } };
        let others = doc! { "$and": [
            { "_id": { "$ne": id } },
            { "$expr": { "$gt": ["$seenAt", since] } },
        ] };
        // A handful of small documents: counted here rather than by the server's `count`.
        let others: Vec<Other> = self
            .find_limited(
                names::GATEWAYS,
                others,
                None,
                Some(doc! { "_id": 1, "url": 1, "demand": 1 }),
                MOST,
            )
            .await?;
        let live = u32::try_from(others.len()).unwrap_or(u32::MAX - 1) + 1;
        let seen = vec![doc! { "$set": {
            "seenAt": "$$NOW",
            "sees": i64::from(live),
            "url": url.map_or(bson::Bson::Null, bson::Bson::from),
            "demand": demand,
        } }];
        self.bounded(
            Call::new(names::GATEWAYS, "update"),
            gateways.update_one(doc! { "_id": id }, seen).upsert(true),
        )
        .await?;
        let demands = others.iter().map(|other| other.demand).collect();
        let reachable = (others.into_iter())
            .filter_map(|other| {
                Some(Peer {
                    id: other.id,
                    url: other.url?,
                })
            })
            .collect();
        Ok(Seen {
            live,
            reachable,
            demands,
        })
    }

    /// Deletes gateway `id`'s record: the process is stopping, the others' share grows at their
    /// next heartbeat.
    #[tracing::instrument(skip(self))]
    pub(in crate::gateways) async fn forget_gateway(&self, id: &str) -> Result<(), ApiError> {
        let gateways = self.collection::<Document>(names::GATEWAYS);
        self.bounded(
            Call::new(names::GATEWAYS, "delete"),
            gateways.delete_one(doc! { "_id": id }),
        )
        .await?;
        Ok(())
    }

    /// Every live-gateway record: (process id, the count it saw at its last heartbeat). For
    /// operators and tests.
    #[tracing::instrument(skip(self))]
    pub async fn gateways(&self) -> Result<Vec<(String, u32)>, ApiError> {
        #[derive(serde::Deserialize)]
        struct Seen {
            #[serde(rename = "_id")]
            id: String,
            #[serde(default)]
            sees: i64,
        }
        let found: Vec<Seen> = self
            .find_limited(
                names::GATEWAYS,
                doc! {},
                Some(doc! { "_id": 1 }),
                None,
                MOST,
            )
            .await?;
        Ok(found
            .into_iter()
            .map(|seen| (seen.id, u32::try_from(seen.sees).unwrap_or(0)))
            .collect())
    }
}
