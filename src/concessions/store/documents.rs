//! Products as stored: `products`, one document per product a cinema sells beside seats,
//! with its stock and the stock entries of the holds and refunds in flight.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::ids::{CinemaId, ProductId, ShowtimeId};
use crate::store::codec;

/// `products`: a product of a cinema.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: ProductId,
    pub schema_version: i32,
    #[serde(with = "codec::id")]
    pub cinema_id: CinemaId,
    pub name: String,
    /// Per unit, in fen.
    pub price: i64,
    pub currency: String,
    /// Units left to hold (absent: the product keeps no stock and never runs out). Holds
    /// take from it, releases, expiries and refunds give back: it never goes below zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stock: Option<i64>,
    /// Units sold by orders, net of refunds (stocked products only).
    #[serde(default)]
    pub sold: i64,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_time"
    )]
    pub sold_from: Option<DateTime<Utc>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_time"
    )]
    pub sold_until: Option<DateTime<Utc>>,
    #[serde(default)]
    pub retired: bool,
    /// The holds with units reserved and the refunds that gave units back, until settled:
    /// each names its hold (or refund), so a reservation, a give-back or a sale happens
    /// once. At most `MAX_PENDING`.
    #[serde(default)]
    pub pending: Vec<StockEntryDoc>,
    /// The operator that made it.
    pub operator: String,
    #[serde(with = "codec::time")]
    pub created_at: DateTime<Utc>,
}

/// What a stock entry stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StockEntryKind {
    /// Units a hold took: given back when it goes, sold when its order is confirmed.
    Hold,
    /// Units a refund gave back: kept until the refund is finished, so it gives them once.
    Return,
}

/// One hold's reservation of a product's units, or one refund's return of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StockEntryDoc {
    /// The hold's id, or the refund's.
    pub id: bson::oid::ObjectId,
    pub kind: StockEntryKind,
    pub quantity: i64,
    /// The hold's showtime, or the refunded order's.
    #[serde(with = "codec::id")]
    pub showtime: ShowtimeId,
    /// The refunded order (a return only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<bson::oid::ObjectId>,
    /// When the reconciler looks at it: a hold's expiry, a refund's grace.
    #[serde(with = "codec::time")]
    pub check_at: DateTime<Utc>,
}
