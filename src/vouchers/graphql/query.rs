//! An operator's voucher batches.

use async_graphql::{Context, Object};

use super::types::VoucherBatch;
use crate::domain::input_caps;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::page_cost;
use crate::vouchers::{self, MAX_LISTED};

#[derive(Default)]
pub struct VoucherQuery;

#[Object]
impl VoucherQuery {
    /// The calling operator's voucher batches, newest first, with their redemption counts.
    #[tracing::instrument(skip(self, ctx))]
    #[graphql(complexity = "page_cost(first, child_complexity)")]
    async fn voucher_batches(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "How many (1 to 100; 20 when not given).")] first: Option<i32>,
    ) -> Result<Vec<VoucherBatch>, ApiError> {
        let first = input_caps::count("first", first.unwrap_or(20), MAX_LISTED)?;
        let operator = ctx.calling_operator("listing voucher batches")?;
        let listed = Box::pin(vouchers::list_batches(ctx.store(), operator, first)).await?;
        Ok(listed
            .into_iter()
            .map(|(batch, count)| VoucherBatch { batch, count })
            .collect())
    }
}
