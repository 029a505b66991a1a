//! Readiness: the database answers a ping, and every index created at start-up is
//! there (compared by name, one `listIndexes` per indexed collection, all at once), within
//! the operation timeout.

use std::collections::BTreeSet;

use futures::future::join_all;

use super::Store;

/// What a readiness check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Readiness {
    /// Why the database did not answer in time, if it did not.
    pub database_error: Option<String>,
    /// The indexes that are not there, as `collection.name`.
    pub missing_indexes: Vec<String>,
}

impl Readiness {
    /// Whether the gateway can serve.
    pub fn is_ready(&self) -> bool {
        self.database_error.is_none() && self.missing_indexes.is_empty()
    }
}

impl Store {
    /// Pings the database and lists the indexes of the collections of `wanted` (collection,
    /// index name), concurrently, within the operation timeout.
    pub(crate) async fn readiness_of(&self, wanted: &[(&'static str, &'static str)]) -> Readiness {
        let collections: BTreeSet<&'static str> = wanted.iter().map(|(c, _)| *c).collect();
        let listings = join_all(collections.iter().map(|&collection| async move {
            let names = tokio::time::timeout(self.timeout, self.existing_index_names(collection))
                .await
                .map_err(|_| format!("listing the indexes of {collection} took too long"))
                .and_then(|names| names.map_err(|error| error.to_string()));
            (collection, names)
        }));
        let (ping, listings) = tokio::join!(self.ping(), listings);
        let mut readiness = Readiness {
            database_error: ping.err().map(|error| error.to_string()),
            missing_indexes: Vec::new(),
        };
        for (collection, names) in listings {
            // A collection that does not exist lists no index; one that cannot be listed
            // says nothing of its indexes, but the database is not ready.
            let names = match names {
                Ok(names) => names,
                Err(error) => {
                    readiness.database_error.get_or_insert(error);
                    continue;
                }
            };
            readiness.missing_indexes.extend(
                wanted
                    .iter()
                    .filter(|(c, name)| *c == collection && !names.iter().any(|n| n == name))
                    .map(|(c, name)| format!("{c}.{name}")),
            );
        }
        readiness
    }
}
