//! The shape of `cinema_sales_hourly`, the sales projection's buckets.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::ids::CinemaId;
use crate::store::codec;
use crate::store::documents::SalesDoc;

/// `cinema_sales_hourly`: one document per cinema per hour of sale (bucket pattern), kept by the
/// sales projection from the orders sold in that hour (and back when they are cancelled).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HourlySalesDoc {
    /// `<cinema id>:<hour in epoch milliseconds>`.
    #[serde(rename = "_id")]
    pub id: String,
    #[serde(with = "codec::id")]
    pub cinema_id: CinemaId,
    /// The start of the hour (UTC).
    #[serde(with = "codec::time")]
    pub hour: DateTime<Utc>,
    #[serde(flatten)]
    pub sales: SalesDoc,
}
