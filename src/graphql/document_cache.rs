//! Queries already parsed and checked, by their text and operation name: clients send the
//! same few query texts again and again (a seat picker's hold, a channel's confirm), and
//! parsing one with async-graphql's parser and measuring its shape costs more than the rest of
//! a small request's GraphQL work. A text that failed a check is never kept, so an entry
//! stands for "within every limit"; what depends on the request (its variables) is checked
//! each time.
//!
//! Bounded by the bytes of the texts it keeps (a parsed document takes some tens of times its
//! text), each at most `MAX_CACHED_TEXT`; when it is full, arbitrary entries make room, so a
//! client sending endless distinct texts costs the others their hits, never memory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use async_graphql::parser::types::ExecutableDocument;

use super::entity_limit::Representations;
use super::omitted_variables::OmittedAsNull;

/// Longer texts are checked each time (and are rare: hand-written queries and the
/// playground's introspection query are a few KB).
const MAX_CACHED_TEXT: usize = 8 * 1024;
/// Operations kept per text: a document names few, and more asked for are not worth keeping.
const MAX_OPERATIONS_PER_TEXT: usize = 8;

/// A query that passed the shape limits: its document, and the variables that are `null`
/// when omitted.
pub struct Checked {
    pub document: ExecutableDocument,
    pub omitted_as_null: OmittedAsNull,
    /// Its `_entities` calls' representations, checked against each request's variables.
    pub representations: Representations,
}

/// The cache, shared by every request of a schema: by query text, then by operation name
/// (a document with several operations is checked once per operation asked for).
pub struct DocumentCache {
    text_budget: usize,
    inner: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    by_text: HashMap<Box<str>, Operations>,
    /// The bytes of the texts in `by_text`.
    text_bytes: usize,
}

type Operations = Vec<(Option<Box<str>>, Arc<Checked>)>;

impl DocumentCache {
    /// A cache keeping texts of at most `text_budget` bytes in all.
    pub fn new(text_budget: usize) -> Self {
        DocumentCache {
            text_budget,
            inner: Mutex::new(Entries::default()),
        }
    }

    pub fn get(&self, query: &str, operation_name: Option<&str>) -> Option<Arc<Checked>> {
        let entries = self.lock();
        let operations = entries.by_text.get(query)?;
        operations
            .iter()
            .find(|(name, _)| name.as_deref() == operation_name)
            .map(|(_, checked)| Arc::clone(checked))
    }

    pub fn insert(&self, query: &str, operation_name: Option<&str>, checked: Arc<Checked>) {
        if query.len() > MAX_CACHED_TEXT.min(self.text_budget) {
            return;
        }
        let mut entries = self.lock();
        if !entries.by_text.contains_key(query) {
            while entries.text_bytes + query.len() > self.text_budget {
                let Some(evicted) = entries.by_text.keys().next().cloned() else {
                    break;
                };
                entries.by_text.remove(&evicted);
                entries.text_bytes -= evicted.len();
            }
            entries.text_bytes += query.len();
        }
        let operations = entries.by_text.entry(query.into()).or_default();
        let known = operations
            .iter()
            .any(|(name, _)| name.as_deref() == operation_name);
        if !known && operations.len() < MAX_OPERATIONS_PER_TEXT {
            operations.push((operation_name.map(Into::into), checked));
        }
    }

    fn lock(&self) -> MutexGuard<'_, Entries> {
        // A panic while holding the lock leaves the entries whole: they change only after
        // the last call that could panic.
        self.inner
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(query: &str) -> Arc<Checked> {
        Arc::new(Checked {
            document: async_graphql::parser::parse_query(query).unwrap(),
            omitted_as_null: OmittedAsNull::default(),
            representations: Representations::default(),
        })
    }

    #[test]
    fn an_entry_is_found_by_its_text_and_operation_name() {
        let cache = DocumentCache::new(1024);
        let query = "query A { a } query B { b }";
        cache.insert(query, Some("A"), checked(query));
        assert!(cache.get(query, Some("A")).is_some());
        assert!(cache.get(query, Some("B")).is_none());
        assert!(cache.get(query, None).is_none());
        assert!(cache.get("query A { a }", Some("A")).is_none());
        cache.insert(query, Some("A"), checked(query));
        assert_eq!(
            cache.lock().by_text[query].len(),
            1,
            "a second insert of one operation"
        );
    }

    #[test]
    fn the_cache_keeps_at_most_its_budget_of_text_and_no_long_texts() {
        let cache = DocumentCache::new(30);
        for i in 0..10 {
            let query = format!("{{ field{i} }}"); // 10 bytes
            cache.insert(&query, None, checked(&query));
            assert!(
                cache.get(&query, None).is_some(),
                "the newest entry is kept"
            );
            let entries = cache.lock();
            assert!(entries.text_bytes <= 30, "{}", entries.text_bytes);
            let held: usize = entries.by_text.keys().map(|text| text.len()).sum();
            assert_eq!(held, entries.text_bytes);
        }
        assert_eq!(cache.lock().by_text.len(), 3);
        let long = format!("{{ {} }}", "a ".repeat(14));
        cache.insert(&long, None, checked(&long));
        assert!(
            cache.get(&long, None).is_none(),
            "over the budget on its own"
        );
        let empty = DocumentCache::new(0);
        empty.insert("{ a }", None, checked("{ a }"));
        assert!(empty.get("{ a }", None).is_none());
    }
}
