//! Objects that arrive with only some of their fields (an extended reference copied into another
//! document) load the rest through the request's DataLoader, only when a field asks for it.

use std::fmt::Display;
use std::hash::Hash;
use std::sync::Arc;

use async_graphql::Context;

use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::loaders::LoadedBy;

/// The full document of an object, given at construction or loaded by id on first use.
pub struct Lazy<K, D> {
    pub id: K,
    doc: Option<Arc<D>>,
}

impl<K, D> Lazy<K, D>
where
    K: Copy + Display + Send + Sync + Hash + Eq + 'static,
    D: LoadedBy<K> + Send + Sync + 'static,
{
    pub fn loaded(id: K, doc: Arc<D>) -> Self {
        Lazy { id, doc: Some(doc) }
    }

    pub fn unloaded(id: K) -> Self {
        Lazy { id, doc: None }
    }

    /// The document; loading it joins the request's batch for this collection.
    pub async fn get(&self, ctx: &Context<'_>, kind: &str) -> Result<Arc<D>, ApiError> {
        if let Some(doc) = &self.doc {
            return Ok(Arc::clone(doc));
        }
        D::loader(ctx.loaders())
            .load_one(self.id)
            .await?
            .ok_or_else(|| ApiError::not_found(format!("{kind} {} does not exist", self.id)))
    }
}
