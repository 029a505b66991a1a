//! A cinema's door staff keys, for its operators.

use async_graphql::{Context, Object, ID};

use crate::catalogue;
use crate::catalogue::graphql::types::DoorKey;
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::list_cost;

#[derive(Default)]
pub struct DoorKeyQuery;

#[Object]
impl DoorKeyQuery {
    /// The door staff keys of a cinema the calling operator writes, by code (at most 100;
    /// never the keys themselves). FORBIDDEN for anyone else.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "list_cost(100, child_complexity)")]
    async fn door_keys(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The cinema.")] cinema_id: ID,
    ) -> Result<Vec<DoorKey>, ApiError> {
        let operator = ctx.calling_operator("listing door staff keys")?;
        let cinema = global_id::cinema_id(&cinema_id)?;
        let keys = catalogue::door_keys(ctx.store(), operator, cinema).await?;
        Ok(keys
            .into_iter()
            .map(|record| DoorKey {
                record,
                api_key: None,
            })
            .collect())
    }
}
