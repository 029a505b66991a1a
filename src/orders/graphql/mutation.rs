//! Confirming holds into orders, and cancelling orders.

use std::sync::Arc;

use async_graphql::{Context, InputObject, Object, ID};

use crate::concessions::rules::MAX_ITEM_LINES;
use crate::domain::global_id;
use crate::domain::input_caps;
use crate::domain::list_caps::MAX_SEATS_PER_HOLD;
use crate::domain::text;
use crate::domain::ticket_codes::TicketSecret;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::holds::rules::HoldPolicy;
use crate::holds::HoldEndings;
use crate::idempotency;
use crate::idempotency::graphql::IdempotencyContext;
use crate::orders::graphql::Order;
use crate::orders::{self, Customer};

#[derive(Default)]
pub struct OrderMutation;

/// The customer the tickets are for.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct CustomerInput {
    /// Their name.
    pub name: String,
    /// How to reach them (phone or e-mail).
    pub contact: String,
}

/// Which hold to confirm, and for whom.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct ConfirmHoldInput {
    /// The hold's id, as `holdSeats` returned it.
    pub hold_id: ID,
    /// The customer.
    pub customer: CustomerInput,
    /// Makes retries safe: a retry with the same key and input has one effect and gets the
    /// first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

#[Object]
impl OrderMutation {
    /// Confirms a live hold of the calling channel into an order: its seats become SOLD. An
    /// expired hold is HOLD_EXPIRED and can never be confirmed.
    // The input carries the customer's name and contact: personal data, never in a span.
    #[tracing::instrument(skip_all, fields(hold = %input.hold_id.as_str()))]
    async fn confirm_hold(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The hold and the customer.")] input: ConfirmHoldInput,
    ) -> Result<Order, ApiError> {
        let channel = ctx.calling_channel("confirming a hold")?;
        // It finishes a purchase: never refused at the door (`overload::door`).
        crate::overload::deadline::classify(crate::overload::Class::Finish);
        let (showtime, hold) = global_id::hold_id(&input.hold_id)?;
        // Checked before the idempotency key is claimed: a refused confirmation keeps no key.
        let customer = Customer {
            name: text::required("customer.name", &input.customer.name)?,
            contact: text::required("customer.contact", &input.customer.contact)?,
        };
        let policy = ctx.data_unchecked::<HoldPolicy>();
        let secret = ctx.data_unchecked::<Arc<TicketSecret>>().as_ref();
        let confirmations = ctx.data_unchecked::<Arc<orders::Confirmations>>().as_ref();
        let endings = ctx.data_unchecked::<HoldEndings>();
        let store = ctx.store();
        let key = input.idempotency_key.as_deref();
        let keys = ctx.key_policy();
        // Boxed: see `holdSeats`.
        let order = Box::pin(idempotency::once(
            store,
            keys,
            channel,
            key,
            "confirmHold",
            &input,
            |attempt| {
                let customer = customer.clone();
                orders::confirm_hold(
                    store,
                    endings,
                    confirmations,
                    secret,
                    channel,
                    showtime,
                    hold,
                    customer,
                    policy,
                    attempt,
                )
            },
        ))
        .await?;
        Ok(Order(order))
    }

    /// Cancels seats or products of a confirmed order of the calling channel, or the whole
    /// order: the seats are free again at once, the products back in stock, and a refund is
    /// recorded (`Order.refunds`), under the cinema's refund policy (REFUND_NOT_ALLOWED
    /// within its cut-off before the start; its fee kept per seat, products refunded in full;
    /// a product collected at the counter is never refunded). The order stays CONFIRMED while
    /// it has lines left to give back, and is CANCELLED with its last one. A seat or product
    /// not in the order, or cancelled already, is BAD_USER_INPUT, also while another
    /// cancellation of it (under another idempotency key) is under way: one request refunds a
    /// line, whichever comes first.
    #[tracing::instrument(skip(self, ctx, seats, items))]
    async fn cancel_order(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The order's id.")] order_id: ID,
        #[graphql(
            desc = "The seats to cancel, e.g. [\"D8\"]; every seat it has left when not given."
        )]
        seats: Option<Vec<String>>,
        #[graphql(
            desc = "The products whose lines to cancel (each in full), by product id; with `seats` not given, only these."
        )]
        items: Option<Vec<ID>>,
        #[graphql(
            desc = "Makes retries safe: a retry with the same key and seats has one effect and gets the first answer; kept 48 hours."
        )]
        idempotency_key: Option<String>,
    ) -> Result<Order, ApiError> {
        let channel = ctx.calling_channel("cancelling an order")?;
        // It gives seats back: never refused at the door (`overload::door`).
        crate::overload::deadline::classify(crate::overload::Class::Finish);
        let order = global_id::order_id(&order_id)?;
        if seats
            .as_ref()
            .is_some_and(|seats| seats.len() > MAX_SEATS_PER_HOLD)
        {
            return Err(ApiError::bad_input(format!(
                "an order has at most {MAX_SEATS_PER_HOLD} seats"
            )));
        }
        input_caps::optional_list("items", items.as_deref(), MAX_ITEM_LINES)?;
        let products = (items.as_deref())
            .map(|items| {
                (items.iter())
                    .map(|id| global_id::product_id(id))
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let store = ctx.store();
        let endings = ctx.data_unchecked::<HoldEndings>();
        let key = idempotency_key.as_deref();
        let keys = ctx.key_policy();
        let request = orders::CancelRequest {
            order,
            seats: seats.as_deref(),
            items: products.as_deref(),
            key,
        };
        // The order's id alone for a whole cancellation (as before seats could be named), so
        // keys stored then still match; the seats alone when no item is named.
        let hashed = match (&seats, &items) {
            (None, None) => serde_json::json!(order_id.as_str()),
            (Some(seats), None) => {
                serde_json::json!({ "orderId": order_id.as_str(), "seats": seats })
            }
            (seats, Some(items)) => serde_json::json!({
                "orderId": order_id.as_str(),
                "seats": seats,
                "items": items,
            }),
        };
        let cancelled = idempotency::once(
            store,
            keys,
            channel,
            key,
            "cancelOrder",
            &hashed,
            |attempt| orders::cancel_order(store, endings, channel, &request, attempt),
        )
        .await?;
        Ok(Order(cancelled))
    }
}
