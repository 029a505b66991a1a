//! Operators making and changing products.

use async_graphql::{Context, InputObject, Object, ID};
use chrono::{DateTime, Utc};

use super::types::Product;
use crate::concessions::rules::{self, ProductTerms};
use crate::concessions::store::ProductChange;
use crate::concessions::{self, NewProduct};
use crate::domain::global_id;
use crate::error::ApiError;
use crate::graphql::context::ContextExt;
use crate::idempotency::graphql::IdempotencyContext;

#[derive(Default)]
pub struct ConcessionMutation;

/// A product to make.
#[derive(InputObject, Debug, serde::Serialize)]
pub struct CreateProductInput {
    /// The cinema that sells it (one the calling operator writes).
    pub cinema_id: ID,
    /// Its name (1 to 60 characters).
    pub name: String,
    /// Its price per unit in fen (0 to 1,000,000).
    pub price: i64,
    /// Units to sell (0 to 1,000,000): holds take them, and never more than are left. Not
    /// given: it keeps no stock and never runs out.
    pub stock: Option<i64>,
    /// On sale from then (always, when not given).
    pub sold_from: Option<DateTime<Utc>>,
    /// On sale until then, exclusive (for good, when not given).
    pub sold_until: Option<DateTime<Utc>>,
    /// Makes retries safe: a retry with the same key and input makes one product and gets
    /// the first answer; the same key with another input is IDEMPOTENCY_KEY_REUSED. Kept 48
    /// hours.
    pub idempotency_key: Option<String>,
}

/// What to change of a product (what is not given stays).
#[derive(InputObject, Debug, serde::Serialize)]
pub struct UpdateProductInput {
    /// The product.
    pub product_id: ID,
    /// A new name (1 to 60 characters); orders keep the name they were sold under.
    pub name: Option<String>,
    /// A new price in fen (0 to 1,000,000); holds and orders keep theirs.
    pub price: Option<i64>,
    /// On sale from then.
    pub sold_from: Option<DateTime<Utc>>,
    /// On sale until then, exclusive.
    pub sold_until: Option<DateTime<Utc>>,
    /// Units added to its stock (or taken from it, when negative: never below none);
    /// -1,000,000 to 1,000,000, not 0. Only for a product that keeps a stock.
    pub add_stock: Option<i64>,
    /// Take it off sale (true) or back on (false).
    pub retired: Option<bool>,
    /// Makes retries safe (an `addStock` adds once): a retry with the same key and input
    /// gets the first answer. Kept 48 hours.
    pub idempotency_key: Option<String>,
}

#[Object]
impl ConcessionMutation {
    /// Makes a product of a cinema the calling operator writes. Audited.
    #[tracing::instrument(skip_all)]
    async fn create_product(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The product.")] input: CreateProductInput,
    ) -> Result<Product, ApiError> {
        let operator = ctx.calling_operator("making products")?;
        let new = NewProduct {
            cinema: global_id::cinema_id(&input.cinema_id)?,
            terms: ProductTerms::checked(
                &input.name,
                input.price,
                input.sold_from,
                input.sold_until,
            )?,
            stock: input
                .stock
                .map(|stock| rules::stock_checked("stock", stock))
                .transpose()?,
        };
        // Boxed, as every resolver's use case: see `schema::boxed_member`.
        let product = Box::pin(concessions::create_product(
            ctx.store(),
            ctx.key_policy(),
            operator,
            input.idempotency_key.as_deref(),
            &new,
            &input,
        ))
        .await?;
        Ok(Product(product))
    }

    /// Changes a product of a cinema the calling operator writes. Audited with the fields
    /// before and after.
    #[tracing::instrument(skip_all)]
    async fn update_product(
        &self,
        ctx: &Context<'_>,
        #[graphql(desc = "The product and what to change.")] input: UpdateProductInput,
    ) -> Result<Product, ApiError> {
        let operator = ctx.calling_operator("changing products")?;
        let id = global_id::product_id(&input.product_id)?;
        let name = (input.name.as_deref())
            .map(|name| crate::domain::text::required_within("name", name, rules::MAX_NAME_CHARS))
            .transpose()?;
        let change = ProductChange {
            name,
            price: input.price.map(rules::price_checked).transpose()?,
            sold_from: input.sold_from,
            sold_until: input.sold_until,
            retired: input.retired,
            add_stock: input
                .add_stock
                .map(rules::stock_change_checked)
                .transpose()?,
        };
        let product = Box::pin(concessions::update_product(
            ctx.store(),
            ctx.key_policy(),
            operator,
            input.idempotency_key.as_deref(),
            id,
            &change,
            &input,
        ))
        .await?;
        Ok(Product(product))
    }
}
