//! `node(id:)`: any object by its global id.

use async_graphql::{Context, Object, ID};

use crate::domain::global_id::GlobalId;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::{Cinema, Hall, Movie, Node, Review, Showtime};

#[derive(Default)]
pub struct NodeQuery;

#[Object]
impl NodeQuery {
    /// Any object by its global id; null when it does not exist. An id this API did not issue
    /// is BAD_USER_INPUT.
    #[tracing::instrument(skip(self, ctx))]
    async fn node(&self, ctx: &Context<'_>, id: ID) -> Result<Option<Node>, ApiError> {
        let loader = &ctx.loaders().catalogue;
        Ok(match GlobalId::decode(&id)? {
            GlobalId::Cinema(id) => loader.load_one(id).await?.map(|d| Cinema::from_doc(d).into()),
            GlobalId::Hall(id) => loader.load_one(id).await?.map(|d| Hall::from_doc(d).into()),
            GlobalId::Movie(id) => loader.load_one(id).await?.map(|d| Movie::from_doc(d).into()),
            GlobalId::Review(id) => loader.load_one(id).await?.map(|d| Review::from_doc(d).into()),
            GlobalId::Showtime(id) => {
                loader.load_one(id).await?.map(|d| Showtime::from_arc(d).into())
            }
        })
    }
}
