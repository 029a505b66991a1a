//! Concessions: the products a cinema sells beside seats (a popcorn combo, a drink), held
//! with the seats, sold in the order, collected at the counter (issue 36).
//!
//! - `rules` (pure): a product's terms and sale window, what a hold may ask for, pricing.
//! - `products`: making, changing and listing products (operators of the cinema).
//! - `stock`: units reserved by a hold, given back, sold, returned by a refund, each once.
//! - `ended_holds`: the handler that gives an ended hold's units back.
//! - `reconciler`: settles the stock entries a crash left.
//! - `store`: `products`; `graphql`.
//!
//! The order's side (its product lines, refunds of them, collection with the pickup code)
//! is the orders feature's.

mod ended_holds;
pub mod graphql;
mod products;
mod reconciler;
pub mod rules;
mod stock;
pub mod store;

pub use ended_holds::StockOfEndedHold;
pub use products::{
    create_product, insert_demo_products, list_products, look_up, product_of, update_product,
    NewProduct,
};
pub use reconciler::{settle_stock, RefundsUnderWay, StockReconciler, STOCK_GRACE};
pub use stock::{
    give_back, give_back_or_leave, hold_lines, reserve, return_refunded, sell, stocked, Units,
    RETURN_GRACE,
};
