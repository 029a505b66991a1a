//! The shapes of the places: `cinemas`, `regions` and `theaters` (halls), and the GeoJSON
//! point a cinema's location is.
//! Shared: the catalogue writes them; the shared loaders (`graphql::loaders`), `store::filters`
//! and seat search read them.

use serde::{Deserialize, Serialize};

use super::SCHEMA_VERSION;
use crate::catalogue::rules::region::RegionLevel;
use crate::domain::ids::{CinemaId, HallId, RegionId};
use crate::domain::layout::HallLayout;
use crate::orders::rules::RefundPolicy;
use crate::store::codec;

/// A GeoJSON point: `coordinates` is `[longitude, latitude]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GeoJsonPoint {
    #[serde(rename = "type")]
    pub kind: String,
    pub coordinates: [f64; 2],
}

impl GeoJsonPoint {
    pub fn new(latitude: f64, longitude: f64) -> Self {
        GeoJsonPoint {
            kind: "Point".to_owned(),
            coordinates: [longitude, latitude],
        }
    }
    pub fn latitude(&self) -> f64 {
        self.coordinates[1]
    }
    pub fn longitude(&self) -> f64 {
        self.coordinates[0]
    }

    /// How far it is from `point`, in metres, on the sphere MongoDB uses.
    pub fn distance_from(&self, point: &crate::domain::geo::GeoPoint) -> f64 {
        let here = crate::domain::geo::GeoPoint {
            latitude: self.latitude(),
            longitude: self.longitude(),
        };
        here.distance_meters(point)
    }
}

/// `cinemas`
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CinemaDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: CinemaId,
    pub schema_version: i32,
    pub name: String,
    pub city: String,
    pub district: String,
    pub address: String,
    pub location: GeoJsonPoint,
    pub amenities: Vec<String>,
    /// The cinema's region path, root first: `[province, city, district]` (empty in documents
    /// written before regions existed). Multikey index `{regionIds, city, name, _id}`: the
    /// cinemas under a region of any level are one equality on it.
    #[serde(default, with = "codec::ids")]
    pub region_ids: Vec<RegionId>,
    /// Its terms for cancellations (absent: refunds in full until the start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund_policy: Option<RefundPolicyDoc>,
}

/// A cinema's refund policy as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RefundPolicyDoc {
    pub cutoff_minutes: u32,
    pub fee_per_seat: i64,
}

impl RefundPolicyDoc {
    pub fn policy(self) -> RefundPolicy {
        RefundPolicy {
            cutoff_minutes: self.cutoff_minutes,
            fee_per_seat: self.fee_per_seat,
        }
    }
}

impl From<RefundPolicy> for RefundPolicyDoc {
    fn from(policy: RefundPolicy) -> Self {
        RefundPolicyDoc {
            cutoff_minutes: policy.cutoff_minutes,
            fee_per_seat: policy.fee_per_seat,
        }
    }
}

impl CinemaDoc {
    /// The cinema's own region: the last of its path (its district).
    pub fn region(&self) -> Option<RegionId> {
        self.region_ids.last().copied()
    }
}

/// `regions`: one node of the region tree (array of ancestors pattern, seed 001).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RegionDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: RegionId,
    pub schema_version: i32,
    /// "广东省", "深圳", "南山区".
    pub name: String,
    pub level: RegionLevel,
    /// The region it is in; null for a province. Index `{parentId, name, _id}`: a region's
    /// children (and, with null, the provinces) in name order.
    #[serde(with = "codec::optional_id")]
    pub parent_id: Option<RegionId>,
    /// Every region it is in, root first (a district: `[province, city]`). Index
    /// `{ancestors}` (multikey): everything under a region is one equality.
    #[serde(with = "codec::ids")]
    pub ancestors: Vec<RegionId>,
}

impl RegionDoc {
    /// A region under `parent` (a province when there is none), its ancestors the parent's
    /// and the parent.
    pub fn new(id: RegionId, name: &str, level: RegionLevel, parent: Option<&RegionDoc>) -> Self {
        let ancestors = parent
            .map(|p| p.ancestors.iter().copied().chain([p.id]).collect())
            .unwrap_or_default();
        RegionDoc {
            id,
            schema_version: SCHEMA_VERSION,
            name: name.to_owned(),
            level,
            parent_id: parent.map(|p| p.id),
            ancestors,
        }
    }

    /// Its path, root first, itself last: what a cinema in it stores as `regionIds`.
    pub fn path(&self) -> Vec<RegionId> {
        self.ancestors.iter().copied().chain([self.id]).collect()
    }
}

/// `theaters`: a hall with its preallocated seat layout.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HallDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: HallId,
    pub schema_version: i32,
    #[serde(with = "codec::id")]
    pub cinema_id: CinemaId,
    pub name: String,
    /// "2D", "3D", "IMAX", "DOLBY", "4DX", ...
    pub format: String,
    pub capacity: i32,
    pub layout: HallLayout,
    /// One more with every change to the hall's schedule or layout. Scheduling a showtime and
    /// changing the layout each write the hall with the version they read in the filter, so
    /// of two that read the same schedule one wins and the other reads again: two showtimes
    /// of a hall never overlap, and a layout never changes under a future showtime.
    #[serde(default)]
    pub schedule_version: i64,
}
