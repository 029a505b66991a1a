//! Confirming holds into orders, and cancelling orders.

use async_graphql::{Context, InputObject, Object, ID};

use crate::booking::{self, Customer};
use crate::domain::global_id;
use crate::domain::holds::HoldPolicy;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::graphql::types::Order;

#[derive(Default)]
pub struct OrderMutation;

/// The customer the tickets are for.
#[derive(InputObject, Debug)]
pub struct CustomerInput {
    /// Their name.
    pub name: String,
    /// How to reach them (phone or e-mail).
    pub contact: String,
}

/// Which hold to confirm, and for whom.
#[derive(InputObject, Debug)]
pub struct ConfirmHoldInput {
    /// The hold's id, as `holdSeats` returned it.
    pub hold_id: ID,
    /// The customer.
    pub customer: CustomerInput,
}

#[Object]
impl OrderMutation {
    /// Confirms a live hold of the calling channel into an order: its seats become SOLD. An
    /// expired hold is HOLD_EXPIRED and can never be confirmed.
    #[tracing::instrument(skip(self, ctx))]
    async fn confirm_hold(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The hold and the customer.")] input: ConfirmHoldInput,
    ) -> Result<Order, ApiError> {
        let channel = ctx.calling_channel("confirming a hold")?;
        let (showtime, hold) = global_id::hold_id(&input.hold_id)?;
        let customer = Customer {
            name: input.customer.name,
            contact: input.customer.contact,
        };
        let policy = ctx.data_unchecked::<HoldPolicy>();
        let order =
            booking::confirm_hold(ctx.store(), channel, showtime, hold, customer, policy).await?;
        Ok(Order(order))
    }

    /// Cancels a confirmed order of the calling channel: its seats are free again.
    #[tracing::instrument(skip(self, ctx))]
    async fn cancel_order(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The order's id.")] order_id: ID,
    ) -> Result<Order, ApiError> {
        let channel = ctx.calling_channel("cancelling an order")?;
        let order = global_id::order_id(&order_id)?;
        Ok(Order(
            booking::cancel_order(ctx.store(), channel, order).await?,
        ))
    }
}
