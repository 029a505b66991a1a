//! `node(id:)`: any object by its global id, and the Relay `Node` interface it answers.

use async_graphql::{Context, Interface, Object, ID};

use crate::catalogue::graphql::types::{Cinema, Hall, Movie, Region, Review, Showtime};
use crate::domain::global_id::GlobalId;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;

/// An object with a global id, fetchable with `node(id:)`.
#[derive(Interface)]
#[graphql(field(name = "id", ty = "ID", desc = "The global id."))]
pub enum Node {
    Cinema(Cinema),
    Hall(Hall),
    Movie(Movie),
    Review(Review),
    Showtime(Showtime),
    Region(Region),
}

#[derive(Default)]
pub struct NodeQuery;

#[Object]
impl NodeQuery {
    /// Any object by its global id; null when it does not exist. An id this API did not issue
    /// is BAD_USER_INPUT.
    #[tracing::instrument(skip(self, ctx))]
    async fn node(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "Any global id this API issued.")] id: ID,
    ) -> Result<Option<Node>, ApiError> {
        let loaders = ctx.loaders();
        Ok(match GlobalId::decode(&id)? {
            GlobalId::Cinema(id) => loaders
                .cinemas
                .load_one(id)
                .await?
                .map(|d| Cinema::from_doc(d).into()),
            GlobalId::Hall(id) => loaders
                .halls
                .load_one(id)
                .await?
                .map(|d| Hall::from_doc(d).into()),
            GlobalId::Movie(id) => loaders
                .movies
                .load_one(id)
                .await?
                .map(|d| Movie::from_doc(d).into()),
            GlobalId::Review(id) => loaders
                .reviews
                .load_one(id)
                .await?
                .map(|d| Review::from_doc(d).into()),
            GlobalId::Showtime(id) => loaders
                .showtimes
                .load_one(id)
                .await?
                .map(|d| Showtime::from_arc(d).into()),
            GlobalId::Region(id) => Region::load(ctx, id).await?.map(Node::from),
            // Holds and orders are private to their channel and are not nodes.
            GlobalId::Hold(..)
            | GlobalId::Order(..)
            | GlobalId::TicketType(_)
            | GlobalId::WebhookEndpoint(_)
            | GlobalId::VoucherBatch(_)
            | GlobalId::Product(_)
            | GlobalId::WaitingListEntry(_) => None,
        })
    }
}
