//! Automatic persisted queries (Apollo's APQ protocol): a frontend sends only a query's SHA-256
//! (`extensions.persistedQuery.sha256Hash`); the first time, the gateway answers
//! PERSISTED_QUERY_NOT_FOUND and the client sends the query with its hash, which is remembered.
//!
//! The query text is remembered, not a parsed document, so a persisted query is parsed and
//! checked against every limit like any other (async-graphql's own APQ extension hands the
//! executor a parsed document, which would skip the parse-time limits). The cache keeps at most
//! a configured number of queries, dropping the oldest first.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use async_graphql::Request;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::error::ErrorCode;

/// Why a request's persisted query could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PersistedQuery {
    version: i64,
    sha256_hash: String,
}

/// The queries by hash, and the hashes oldest first (for eviction).
type Cache = (HashMap<String, Arc<str>>, VecDeque<String>);

/// The queries this process was sent with their hash, by hash.
#[derive(Debug)]
pub struct PersistedQueries {
    capacity: usize,
    queries: Mutex<Cache>,
}

impl PersistedQueries {
    pub fn new(capacity: usize) -> Self {
        PersistedQueries {
            capacity,
            queries: Mutex::default(),
        }
    }

    /// Fills in the query of a request that sent only its hash, or remembers the query of one
    /// that sent both. A request without the extension is left as it is.
    pub fn resolve(&self, request: &mut Request) -> Result<(), Refusal> {
        let Some(extension) = request.extensions.remove("persistedQuery") else {
            return Ok(());
        };
        let bad = |message: &str| Refusal {
            code: ErrorCode::BadUserInput,
            message: message.to_owned(),
        };
        let json = extension
            .into_json()
            .map_err(|_| bad("extensions.persistedQuery is not JSON"))?;
        let persisted: PersistedQuery = serde_json::from_value(json).map_err(|_| {
            bad("extensions.persistedQuery must be { version: 1, sha256Hash: \"<hex>\" }")
        })?;
        if persisted.version != 1 {
            return Err(bad("only version 1 of persisted queries is supported"));
        }
        let hash = persisted.sha256_hash.to_ascii_lowercase();
        if request.query.is_empty() {
            let found = self
                .queries
                .lock()
                .expect("persisted queries")
                .0
                .get(&hash)
                .cloned();
            let query = found.ok_or_else(|| Refusal {
                code: ErrorCode::PersistedQueryNotFound,
                message: "PersistedQueryNotFound".to_owned(),
            })?;
            request.query = query.to_string();
            return Ok(());
        }
        let actual: String = Sha256::digest(request.query.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if actual != hash {
            return Err(bad(
                "the query's SHA-256 is not the sha256Hash sent with it",
            ));
        }
        if self.capacity > 0 {
            let mut guard = self.queries.lock().expect("persisted queries");
            let (queries, order) = &mut *guard;
            if !queries.contains_key(&hash) {
                while queries.len() >= self.capacity {
                    let Some(oldest) = order.pop_front() else {
                        break;
                    };
                    queries.remove(&oldest);
                }
                queries.insert(hash.clone(), Arc::from(request.query.as_str()));
                order.push_back(hash);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_extension(query: &str, hash: &str) -> Request {
        let mut request = Request::new(query);
        let extension = serde_json::json!({ "version": 1, "sha256Hash": hash });
        request.extensions.insert(
            "persistedQuery".to_owned(),
            async_graphql::Value::from_json(extension).unwrap(),
        );
        request
    }

    fn sha(query: &str) -> String {
        Sha256::digest(query.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn a_hash_is_answered_once_its_query_was_sent_with_it() {
        let cache = PersistedQueries::new(2);
        let query = "{ __typename }";
        let refused = cache
            .resolve(&mut with_extension("", &sha(query)))
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::PersistedQueryNotFound);
        cache
            .resolve(&mut with_extension(query, &sha(query)))
            .unwrap();
        let mut by_hash = with_extension("", &sha(query));
        cache.resolve(&mut by_hash).unwrap();
        assert_eq!(by_hash.query, query);
        let wrong = cache.resolve(&mut with_extension(query, &sha("other")));
        assert_eq!(wrong.unwrap_err().code, ErrorCode::BadUserInput);
    }

    #[test]
    fn the_oldest_queries_are_dropped_past_the_capacity() {
        let cache = PersistedQueries::new(2);
        for query in ["{ a }", "{ b }", "{ c }"] {
            cache
                .resolve(&mut with_extension(query, &sha(query)))
                .unwrap();
        }
        assert!(cache
            .resolve(&mut with_extension("", &sha("{ a }")))
            .is_err());
        assert!(cache
            .resolve(&mut with_extension("", &sha("{ c }")))
            .is_ok());
    }
}
