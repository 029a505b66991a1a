//! `products`: making, reading, listing and changing a cinema's products.

use bson::{doc, Document};
use serde::{Deserialize, Serialize};

use super::documents::ProductDoc;
use crate::domain::ids::{CinemaId, ProductId};
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::store::codec::ObjectIdExt;
use crate::store::command_metrics::Call;
use crate::store::{filters, names, Store};

#[derive(Serialize, Deserialize)]
struct ProductKey(ProductId);

/// What an operator changes of a product (what is `None` stays).
#[derive(Debug, Default, Clone)]
pub struct ProductChange {
    pub name: Option<String>,
    pub price: Option<i64>,
    pub sold_from: Option<chrono::DateTime<chrono::Utc>>,
    pub sold_until: Option<chrono::DateTime<chrono::Utc>>,
    pub retired: Option<bool>,
    /// Units added to (or taken from) its stock.
    pub add_stock: Option<i64>,
}

impl Store {
    /// Writes a new product (an earlier attempt of the same request may have: kept).
    #[tracing::instrument(skip(self, product), fields(product = %product.id))]
    pub(in crate::concessions) async fn insert_product(
        &self,
        product: &ProductDoc,
    ) -> Result<(), ApiError> {
        self.insert_new(names::PRODUCTS, std::slice::from_ref(product))
            .await?;
        Ok(())
    }

    /// Writes many products (the demo's); those there already are kept. How many were there.
    #[tracing::instrument(skip_all, fields(products = products.len()))]
    pub(in crate::concessions) async fn insert_products(
        &self,
        products: &[ProductDoc],
    ) -> Result<usize, ApiError> {
        Ok(self.insert_new(names::PRODUCTS, products).await?.len())
    }

    /// Products by id.
    #[tracing::instrument(skip(self))]
    pub(in crate::concessions) async fn products_by_ids(
        &self,
        ids: &[ProductId],
    ) -> Result<Vec<ProductDoc>, ApiError> {
        self.find_by_ids(names::PRODUCTS, ids).await
    }

    /// A page of `cinema`'s products, oldest first (index `cinema`).
    #[tracing::instrument(skip(self))]
    pub(in crate::concessions) async fn list_products(
        &self,
        cinema: CinemaId,
        page: &PageRequest,
    ) -> Result<Page<ProductDoc>, ApiError> {
        self.find_page(
            names::PRODUCTS,
            "products",
            doc! { "cinemaId": cinema.oid() },
            doc! { "cinemaId": 1, "_id": 1 },
            // The stock entries are the store's business, not a listing's.
            Some(doc! { "pending": 0 }),
            page,
            |ProductKey(id)| filters::after_ascending(&["_id"], &[id.oid().into()]),
            |product: &ProductDoc| ProductKey(product.id),
        )
        .await
    }

    /// Applies `change` to product `id`; the product as it now is, or None when there is no
    /// such product, or when taking stock away would leave less than none (the filter
    /// requires enough).
    #[tracing::instrument(skip(self))]
    pub(in crate::concessions) async fn change_product(
        &self,
        id: ProductId,
        change: &ProductChange,
    ) -> Result<Option<ProductDoc>, ApiError> {
        let mut filter = doc! { "_id": id.oid() };
        let (mut set, mut inc) = (Document::new(), Document::new());
        if let Some(name) = &change.name {
            set.insert("name", name);
        }
        if let Some(price) = change.price {
            set.insert("price", price);
        }
        for (field, at) in [
            ("soldFrom", change.sold_from),
            ("soldUntil", change.sold_until),
        ] {
            if let Some(at) = at {
                set.insert(field, bson::DateTime::from_chrono(at));
            }
        }
        if let Some(retired) = change.retired {
            set.insert("retired", retired);
        }
        if let Some(add) = change.add_stock {
            filter.insert("stock", doc! { "$gte": (-add).max(0) });
            inc.insert("stock", add);
        }
        let mut update = Document::new();
        for (operator, fields) in [("$set", set), ("$inc", inc)] {
            if !fields.is_empty() {
                update.insert(operator, fields);
            }
        }
        if update.is_empty() {
            return Ok(self.products_by_ids(&[id]).await?.pop());
        }
        self.bounded(
            Call::new(names::PRODUCTS, "findAndModify"),
            self.collection::<ProductDoc>(names::PRODUCTS)
                .find_one_and_update(filter, update)
                .return_document(mongodb::options::ReturnDocument::After),
        )
        .await
    }
}
