//! Making, changing and listing a cinema's products (operators of the cinema), and reading
//! the products a hold names.

use serde::Serialize;

use super::rules::{self, Product, ProductTerms};
use super::store::documents::ProductDoc;
use super::store::ProductChange;
use crate::domain::global_id::GlobalId;
use crate::domain::ids::{CinemaId, ProductId};
use crate::domain::paging::{Page, PageRequest};
use crate::error::ApiError;
use crate::idempotency::KeyPolicy;
use crate::operators::{self, Audited, Keyed};
use crate::store::documents::SCHEMA_VERSION;
use crate::store::{self, Store};

/// A product as an operator asks for it (checked by the rules before it gets here).
#[derive(Debug, Clone)]
pub struct NewProduct {
    pub cinema: CinemaId,
    pub terms: ProductTerms,
    /// Units to sell (`None`: no stock kept, never runs out).
    pub stock: Option<i64>,
}

/// Makes a product of `new.cinema` as operator `operator` (FORBIDDEN unless it writes that
/// cinema; NOT_FOUND for a cinema that does not exist): once per idempotency key, the
/// product's id the key's resource id. Audited.
#[tracing::instrument(skip(store, keys, new, request))]
pub async fn create_product<R: Serialize>(
    store: &Store,
    keys: &KeyPolicy,
    operator: &str,
    key: Option<&str>,
    new: &NewProduct,
    request: &R,
) -> Result<ProductDoc, ApiError> {
    if store.cinemas_by_ids(&[new.cinema]).await?.is_empty() {
        return Err(ApiError::not_found(format!(
            "cinema {} does not exist",
            GlobalId::Cinema(new.cinema).encode()
        )));
    }
    operators::authorize(store, operator, new.cinema).await?;
    // Every cinema sells in yuan, as its showtimes do.
    let currency = crate::domain::money::CNY.to_owned();
    let keyed = Keyed {
        store,
        keys,
        operator,
        key,
        request,
    };
    let id: ProductId = keyed
        .once("createProduct", |attempt| {
            let currency = currency.clone();
            async move {
                let product = ProductDoc {
                    id: ProductId(attempt.resource_id().0),
                    schema_version: SCHEMA_VERSION,
                    cinema_id: new.cinema,
                    name: new.terms.name.clone(),
                    price: new.terms.price,
                    currency,
                    stock: new.stock,
                    sold: 0,
                    sold_from: new.terms.sold_from,
                    sold_until: new.terms.sold_until,
                    retired: false,
                    pending: Vec::new(),
                    operator: operator.to_owned(),
                    created_at: store::now(),
                };
                store.insert_product(&product).await?;
                operators::record(
                    store,
                    attempt,
                    Audited {
                        operator,
                        operation: "createProduct",
                        cinema: Some(product.cinema_id),
                        subject: GlobalId::Product(product.id),
                        before: None,
                        after: Audited::json(&product),
                    },
                )
                .await?;
                Ok(product.id)
            }
        })
        .await?;
    store
        .products_by_ids(&[id])
        .await?
        .pop()
        .ok_or_else(|| ApiError::internal(format!("product {id} is gone")))
}

/// Changes product `id` as operator `operator` (FORBIDDEN unless it writes the product's
/// cinema), once per idempotency key. Adding stock to a product that keeps none, or taking
/// more than is left, is BAD_USER_INPUT and changes nothing. Audited with the fields before
/// and after.
#[tracing::instrument(skip(store, keys, request))]
pub async fn update_product<R: Serialize>(
    store: &Store,
    keys: &KeyPolicy,
    operator: &str,
    key: Option<&str>,
    id: ProductId,
    change: &ProductChange,
    request: &R,
) -> Result<ProductDoc, ApiError> {
    let missing = || {
        ApiError::not_found(format!(
            "product {} does not exist",
            GlobalId::Product(id).encode()
        ))
    };
    let before = store
        .products_by_ids(&[id])
        .await?
        .pop()
        .ok_or_else(missing)?;
    operators::authorize(store, operator, before.cinema_id).await?;
    if change.add_stock.is_some() && before.stock.is_none() {
        return Err(ApiError::bad_input(
            "this product keeps no stock (it never runs out): addStock does not apply",
        ));
    }
    rules::window_checked(
        change.sold_from.or(before.sold_from),
        change.sold_until.or(before.sold_until),
    )?;
    let keyed = Keyed {
        store,
        keys,
        operator,
        key,
        request,
    };
    keyed
        .once("updateProduct", |attempt| {
            let before = before.clone();
            async move {
                let Some(after) = store.change_product(id, change).await? else {
                    let left = before.stock.unwrap_or_default();
                    return Err(ApiError::bad_input(format!(
                        "addStock would leave less than none: {left} left (as last read)"
                    )));
                };
                let fields = ["name", "price", "stock", "soldFrom", "soldUntil", "retired"];
                operators::record(
                    store,
                    attempt,
                    Audited {
                        operator,
                        operation: "updateProduct",
                        cinema: Some(after.cinema_id),
                        subject: GlobalId::Product(id),
                        before: Audited::fields(&before, &fields),
                        after: Audited::fields(&after, &fields),
                    },
                )
                .await?;
                Ok(after.id)
            }
        })
        .await?;
    store
        .products_by_ids(&[id])
        .await?
        .pop()
        .ok_or_else(missing)
}

/// A page of `cinema`'s products, oldest first (retired ones too: they say so).
#[tracing::instrument(skip(store))]
pub async fn list_products(
    store: &Store,
    cinema: CinemaId,
    page: &PageRequest,
) -> Result<Page<ProductDoc>, ApiError> {
    store.list_products(cinema, page).await
}

/// The products `ids` names (at most `rules::MAX_ITEM_LINES`), as the rules see them; one
/// read.
pub async fn look_up(store: &Store, ids: &[ProductId]) -> Result<Vec<Product>, ApiError> {
    if ids.len() > rules::MAX_ITEM_LINES {
        return Err(ApiError::internal(
            "more products looked up than a hold may name",
        ));
    }
    Ok(store
        .products_by_ids(ids)
        .await?
        .iter()
        .map(product_of)
        .collect())
}

/// What every demo cinema sells: name, price in fen, stock (none kept when `None`).
const DEMO_PRODUCTS: [(&str, i64, Option<i64>); 3] = [
    ("爆米花可乐套餐", 3_500, Some(200)),
    ("可乐 (中杯)", 1_200, None),
    ("双人分享套餐", 5_800, Some(60)),
];

/// Gives each of `cinemas` the demo's products, with ids derived from the cinema's (so a
/// second load of the same demo makes none twice); how many it wrote.
pub async fn insert_demo_products(store: &Store, cinemas: &[CinemaId]) -> Result<usize, ApiError> {
    use sha2::{Digest, Sha256};
    let now = store::now();
    let products: Vec<ProductDoc> = cinemas
        .iter()
        .flat_map(|cinema| {
            DEMO_PRODUCTS
                .iter()
                .enumerate()
                .map(move |(index, (name, price, stock))| {
                    let digest = Sha256::digest(
                        [&b"boxoffice demo product"[..], &cinema.0, &[index as u8]].concat(),
                    );
                    let mut id = [0; 12];
                    id.copy_from_slice(&digest[..12]);
                    ProductDoc {
                        id: ProductId(id),
                        schema_version: SCHEMA_VERSION,
                        cinema_id: *cinema,
                        name: (*name).to_owned(),
                        price: *price,
                        currency: crate::domain::money::CNY.to_owned(),
                        stock: *stock,
                        sold: 0,
                        sold_from: None,
                        sold_until: None,
                        retired: false,
                        pending: Vec::new(),
                        operator: "platform".to_owned(),
                        created_at: now,
                    }
                })
        })
        .collect();
    let existed = store.insert_products(&products).await?;
    Ok(products.len() - existed)
}

/// A stored product as the rules see it.
pub fn product_of(doc: &ProductDoc) -> Product {
    Product {
        id: doc.id,
        cinema: doc.cinema_id,
        name: doc.name.clone(),
        price: doc.price,
        stocked: doc.stock.is_some(),
        sold_from: doc.sold_from,
        sold_until: doc.sold_until,
        retired: doc.retired,
    }
}
