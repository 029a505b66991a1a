//! Reads every feature's store code shares: bounded finds, finds by ids, keyset pages, and
//! the database's size.

use crate::error::ApiError;

use super::command_metrics::Call;
use super::{codec, filters, Store};

impl Store {
    /// Runs a `find` that returns at most `limit` documents in one round trip: the batch size
    /// equals the limit, so the server closes the cursor with the first batch (no `getMore`, no
    /// `killCursors`). With a `projection`, only its fields are read.
    pub(crate) async fn find_limited<T>(
        &self,
        collection: &'static str,
        filter: bson::Document,
        sort: Option<bson::Document>,
        projection: Option<bson::Document>,
        limit: usize,
    ) -> Result<Vec<T>, ApiError>
    where
        T: serde::de::DeserializeOwned + Send + Sync,
    {
        use futures::TryStreamExt;
        if limit == 0 {
            return Ok(Vec::new());
        }
        let limit = i64::try_from(limit)
            .map_err(|error| ApiError::internal_caused("a find limit", error))?;
        let documents = self.collection::<T>(collection);
        let mut find = documents
            .find(filter)
            .sort(sort.unwrap_or_default())
            .limit(limit)
            .batch_size(u32::try_from(limit).unwrap_or(u32::MAX));
        if let Some(projection) = projection {
            find = find.projection(projection);
        }
        self.bounded(Call::new(collection, "find"), async {
            find.await?.try_collect().await
        })
        .await
    }

    /// Which of `codes` are the `_id` of a document of `collection` (one `find` on `_id`,
    /// reading the ids only).
    pub(crate) async fn existing_codes(
        &self,
        collection: &'static str,
        codes: &[&str],
    ) -> Result<Vec<String>, ApiError> {
        let found: Vec<bson::Document> = self
            .find_limited(
                collection,
                bson::doc! { "_id": { "$in": codes } },
                None,
                Some(bson::doc! { "_id": 1 }),
                codes.len(),
            )
            .await?;
        Ok(found
            .iter()
            .filter_map(|doc| doc.get_str("_id").ok().map(str::to_owned))
            .collect())
    }

    /// Every document whose `_id` is in `ids`, in one `find({_id: {$in: ids}})`.
    pub(crate) async fn find_by_ids<T>(
        &self,
        collection: &'static str,
        ids: &[impl codec::StoredId],
    ) -> Result<Vec<T>, ApiError>
    where
        T: serde::de::DeserializeOwned + Send + Sync,
    {
        let limit = ids.len();
        let filter = bson::doc! { "_id": { "$in": codec::oids(ids) } };
        self.find_limited(collection, filter, None, None, limit)
            .await
    }

    /// The same, with the fields of `projection` only.
    pub(crate) async fn find_by_ids_projected<T>(
        &self,
        collection: &'static str,
        ids: &[impl codec::StoredId],
        projection: bson::Document,
    ) -> Result<Vec<T>, ApiError>
    where
        T: serde::de::DeserializeOwned + Send + Sync,
    {
        let limit = ids.len();
        let filter = bson::doc! { "_id": { "$in": codec::oids(ids) } };
        self.find_limited(collection, filter, None, Some(projection), limit)
            .await
    }

    /// One page of a keyset-paginated list: decodes `after` (a cursor of list `kind` holding the
    /// sort key `K`), fetches `first + 1` documents after it and gives each item its cursor.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn find_page<T, K>(
        &self,
        collection: &'static str,
        kind: &'static str,
        filter: bson::Document,
        sort: bson::Document,
        projection: Option<bson::Document>,
        page: &crate::domain::paging::PageRequest,
        after_filter: impl FnOnce(K) -> bson::Document,
        key_of: impl Fn(&T) -> K,
    ) -> Result<crate::domain::paging::Page<T>, ApiError>
    where
        T: serde::de::DeserializeOwned + Send + Sync,
        K: serde::Serialize + serde::de::DeserializeOwned + Send + Sync + 'static,
    {
        use crate::domain::{cursor, paging::Page};
        let after = page
            .after
            .as_deref()
            .map(|after| cursor::decode::<K>(kind, after))
            .transpose()?;
        let filter = filters::all_of(vec![filter, after.map(after_filter).unwrap_or_default()]);
        let docs = self
            .find_limited(collection, filter, Some(sort), projection, page.first + 1)
            .await?;
        Ok(Page::from_fetched(docs, page, |doc| {
            cursor::Cursor::new(kind, key_of(doc))
        }))
    }
}

/// Sizes of the database, as `dbStats` reports them.
#[derive(Debug, Clone, Copy, Default)]
pub struct DatabaseSize {
    pub objects: u64,
    /// Uncompressed size of the documents, in bytes.
    pub data_bytes: u64,
    /// Size on disk of the collections and indexes, in bytes.
    pub storage_bytes: u64,
}

impl Store {
    /// The database's size (for the demo loader's report).
    #[tracing::instrument(skip(self))]
    pub async fn size(&self) -> Result<DatabaseSize, ApiError> {
        let stats = self.db.run_command(bson::doc! { "dbStats": 1 }).await?;
        let number = |key: &str| -> u64 {
            match stats.get(key) {
                Some(bson::Bson::Int32(n)) => *n as u64,
                Some(bson::Bson::Int64(n)) => *n as u64,
                Some(bson::Bson::Double(n)) => *n as u64,
                _ => 0,
            }
        };
        Ok(DatabaseSize {
            objects: number("objects"),
            data_bytes: number("dataSize"),
            storage_bytes: number("storageSize") + number("indexSize"),
        })
    }
}
