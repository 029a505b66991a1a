//! The counter handing over an order's products: `collectItems`, and what it handed over.

use std::sync::Arc;

use async_graphql::{Context, InputObject, Object, SimpleObject, ID};
use chrono::{DateTime, Utc};

use crate::admissions::graphql::calling_door_at;
use crate::admissions::AdmissionWindow;
use crate::domain::global_id::GlobalId;
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::idempotency::graphql::IdempotencyContext;
use crate::orders::{self, Collected};

#[derive(Default)]
pub struct ItemCollectionMutation;

/// A pickup code said at the counter.
#[derive(InputObject, Debug)]
pub struct CollectItemsInput {
    /// The order's pickup code (`Order.pickupCode`): 10 characters; case, spaces and dashes
    /// do not matter.
    pub pickup_code: String,
    /// Makes retries safe: a retry with the same key gets the first answer (COLLECTED, not
    /// ALREADY_COLLECTED). Kept 48 hours.
    pub idempotency_key: Option<String>,
}

/// One product line handed over at the counter.
#[derive(SimpleObject)]
pub struct CollectedItem {
    /// The product's global id.
    pub product_id: ID,
    /// Its name when sold.
    pub name: String,
    /// How many to hand over.
    pub quantity: i32,
}

/// The products of an order handed over at the counter.
#[derive(SimpleObject)]
pub struct ItemCollection {
    /// The order's id.
    pub order_id: ID,
    /// What to hand over: every product line not refunded.
    pub items: Vec<CollectedItem>,
    /// When they were collected.
    pub collected_at: DateTime<Utc>,
    /// The counter (door) that handed them over.
    pub door: String,
}

impl From<Collected> for ItemCollection {
    fn from(collected: Collected) -> Self {
        ItemCollection {
            order_id: GlobalId::Order(collected.showtime, collected.order)
                .encode()
                .into(),
            items: (collected.items.into_iter())
                .map(|item| CollectedItem {
                    product_id: GlobalId::Product(item.product).encode().into(),
                    name: item.name,
                    quantity: item.quantity as i32,
                })
                .collect(),
            collected_at: collected.at,
            door: collected.door,
        }
    }
}

#[Object]
impl ItemCollectionMutation {
    /// Hands over the products of the order whose pickup code is given, once per order,
    /// within its showtime's admission window. Needs a door staff key of the order's
    /// cinema. Refusals, each changing nothing: BAD_USER_INPUT for a malformed code,
    /// NOT_FOUND for a code of no order with products at this cinema, ALREADY_COLLECTED
    /// (with `collectedAt` and `door` in the error's extensions), TICKET_CANCELLED for an
    /// order cancelled or whose products were all refunded, ADMISSION_CLOSED outside the
    /// window.
    #[tracing::instrument(skip_all)]
    async fn collect_items(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The pickup code said at the counter.")] input: CollectItemsInput,
    ) -> Result<ItemCollection, ApiError> {
        let door = calling_door_at(ctx, "collecting products")?;
        let collected = Box::pin(orders::collect_items(
            ctx.store(),
            ctx.key_policy(),
            ctx.data_unchecked::<Arc<TicketSecret>>(),
            *ctx.data_unchecked::<AdmissionWindow>(),
            door,
            &input.pickup_code,
            input.idempotency_key.as_deref(),
        ))
        .await?;
        Ok(ItemCollection::from(collected))
    }
}
