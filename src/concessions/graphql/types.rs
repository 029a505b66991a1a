//! `Product`.

use async_graphql::{Object, ID};
use chrono::{DateTime, Utc};

use crate::concessions::product_of;
use crate::concessions::store::documents::ProductDoc;
use crate::domain::global_id::GlobalId;
use crate::graphql::types::Money;

/// Something a cinema sells beside seats: a popcorn combo, a drink.
pub struct Product(pub ProductDoc);

/// Something a cinema sells beside seats: a popcorn combo, a drink.
#[Object]
impl Product {
    /// Its global id: name it in `holdSeats(input: {items})`.
    async fn id(&self) -> ID {
        GlobalId::Product(self.0.id).encode().into()
    }

    /// The cinema that sells it.
    async fn cinema_id(&self) -> ID {
        GlobalId::Cinema(self.0.cinema_id).encode().into()
    }

    /// Its name, e.g. "爆米花可乐套餐".
    async fn name(&self) -> &str {
        &self.0.name
    }

    /// Its price per unit.
    async fn price(&self) -> Money {
        Money::of(self.0.price, &self.0.currency)
    }

    /// Units left to sell; null for a product that keeps no stock (it never runs out).
    async fn stock(&self) -> Option<i64> {
        self.0.stock
    }

    /// Units sold by orders, net of refunds (products with a stock only).
    async fn sold(&self) -> i64 {
        self.0.sold
    }

    /// On sale from then (always, when null).
    async fn sold_from(&self) -> Option<DateTime<Utc>> {
        self.0.sold_from
    }

    /// On sale until then, exclusive (for good, when null).
    async fn sold_until(&self) -> Option<DateTime<Utc>> {
        self.0.sold_until
    }

    /// Whether it may be held now: not retired, within its window. It may still be sold
    /// out (`stock` 0).
    async fn on_sale(&self) -> bool {
        product_of(&self.0).on_sale(crate::store::now())
    }

    /// Taken off sale by its operator.
    async fn retired(&self) -> bool {
        self.0.retired
    }
}
