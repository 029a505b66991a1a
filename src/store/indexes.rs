//! The indexes every query relies on, created idempotently at start-up. Each feature declares
//! its own beside its store code (`src/<feature>/store/indexes.rs`, the inventory's in its
//! `store/mod.rs`); the process's assembly collects them (`crate::assembly`: the
//! `Store::ensure_indexes` and `Store::readiness` the process calls), so this module, which
//! creates what it is given, names no feature.

use bson::Document;
use mongodb::options::IndexOptions;
use mongodb::IndexModel;

use super::Store;
use crate::error::ApiError;

/// An index a query relies on.
pub(crate) struct Wanted {
    pub(crate) collection: &'static str,
    pub(crate) keys: Document,
    pub(crate) name: &'static str,
    pub(crate) unique: bool,
    /// Only documents that have the field (the pending-propagation markers).
    pub(crate) sparse: bool,
    /// A TTL index: documents go this long after the indexed date.
    pub(crate) expire_after: Option<std::time::Duration>,
}

pub(crate) fn index(collection: &'static str, keys: Document, name: &'static str) -> Wanted {
    Wanted {
        collection,
        keys,
        name,
        unique: false,
        sparse: false,
        expire_after: None,
    }
}

pub(crate) fn sparse(collection: &'static str, keys: Document, name: &'static str) -> Wanted {
    Wanted {
        sparse: true,
        ..index(collection, keys, name)
    }
}

pub(crate) fn unique(collection: &'static str, keys: Document, name: &'static str) -> Wanted {
    Wanted {
        unique: true,
        ..index(collection, keys, name)
    }
}

impl Store {
    /// Creates each index of `wanted` that does not exist yet, so this runs at each start.
    /// Existing ones are left alone by name: re-sending a 2dsphere spec conflicts with the
    /// stored one, which carries the server's `2dsphereIndexVersion`.
    pub(crate) async fn create_indexes(&self, wanted: Vec<Wanted>) -> Result<(), ApiError> {
        let mut by_collection: Vec<(&str, Vec<IndexModel>)> = Vec::new();
        let mut existing: Vec<(&str, Vec<String>)> = Vec::new();
        for Wanted {
            collection,
            keys,
            name,
            unique,
            sparse,
            expire_after,
        } in wanted
        {
            if !existing.iter().any(|(c, _)| *c == collection) {
                existing.push((collection, self.existing_index_names(collection).await?));
            }
            let (_, names) = existing
                .iter()
                .find(|(c, _)| *c == collection)
                .expect("listed");
            if names.iter().any(|existing| existing == name) {
                continue;
            }
            let model = IndexModel::builder()
                .keys(keys)
                .options(
                    IndexOptions::builder()
                        .name(name.to_owned())
                        .unique(unique.then_some(true))
                        .sparse(sparse.then_some(true))
                        .expire_after(expire_after)
                        .build(),
                )
                .build();
            match by_collection.iter_mut().find(|(c, _)| *c == collection) {
                Some((_, models)) => models.push(model),
                None => by_collection.push((collection, vec![model])),
            }
        }
        for (collection, models) in by_collection {
            self.collection::<Document>(collection)
                .create_indexes(models)
                .await?;
        }
        Ok(())
    }

    /// The names of the indexes of a collection; none when it does not exist yet.
    pub(super) async fn existing_index_names(
        &self,
        collection: &str,
    ) -> Result<Vec<String>, ApiError> {
        match self
            .collection::<Document>(collection)
            .list_index_names()
            .await
        {
            Ok(names) => Ok(names),
            // NamespaceNotFound: the collection is created with its first index.
            Err(error) if matches!(*error.kind, mongodb::error::ErrorKind::Command(ref e) if e.code == 26) => {
                Ok(Vec::new())
            }
            Err(error) => Err(error.into()),
        }
    }
}
