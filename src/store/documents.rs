//! The shapes of the documents in every collection. Each carries a `schemaVersion`
//! (schema versioning pattern) so later shapes can be migrated lazily.

use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::codec;
use crate::domain::ids::{
    CinemaId, HallId, HoldId, MovieId, OrderId, RegionId, ResourceId, ReviewId, ShowtimeId,
};
use crate::domain::layout::{parse_seat_label, HallLayout};
use crate::domain::rate_limit::RateLimit;
use crate::domain::region::RegionLevel;
use crate::domain::seat::{SeatCounts, SeatKind, SeatState};

/// The shape version written by this code.
pub const SCHEMA_VERSION: i32 = 1;

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

/// A review as embedded in a movie (the 10 latest) and as stored in `reviews`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: ReviewId,
    #[serde(with = "codec::id")]
    pub movie_id: MovieId,
    pub author: String,
    /// 1 to 10.
    pub rating: i32,
    pub text: String,
    #[serde(with = "codec::time")]
    pub created_at: DateTime<Utc>,
}

/// The rating summary a movie keeps (computed pattern).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RatingSummary {
    /// Average of all reviews, 1 to 10.
    pub average: f64,
    pub count: i64,
}

/// `movies`: what lists show (subset pattern).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MovieDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: MovieId,
    pub schema_version: i32,
    pub title: String,
    pub original_title: String,
    pub year: i32,
    pub runtime_minutes: i32,
    pub genres: Vec<String>,
    pub directors: Vec<String>,
    pub top_cast: Vec<String>,
    pub rating: RatingSummary,
    pub poster_url: String,
    /// The 10 latest reviews, newest first.
    pub recent_reviews: Vec<ReviewDoc>,
    /// Tickets sold and revenue of the confirmed orders (computed pattern, kept by the sales
    /// projection).
    #[serde(default)]
    pub sales: SalesDoc,
}

/// Running sales totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SalesDoc {
    pub tickets: i64,
    /// Minor units (fen).
    pub revenue: i64,
    pub orders: i64,
}

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

/// One member of the full cast.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CastMemberDoc {
    pub name: String,
    pub character: String,
}

/// A rating from another site.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalRatingDoc {
    pub source: String,
    pub score: f64,
    pub max_score: f64,
    pub votes: i64,
}

/// `movie_details`: loaded only when asked; `_id` is the movie's. A read projected to some
/// fields (`Store::movie_details_by_ids`) leaves the others empty.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MovieDetailsDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: MovieId,
    #[serde(default)]
    pub schema_version: i32,
    #[serde(default)]
    pub plot: String,
    #[serde(default)]
    pub full_plot: String,
    #[serde(default)]
    pub languages: Vec<String>,
    #[serde(default)]
    pub countries: Vec<String>,
    #[serde(default)]
    pub cast: Vec<CastMemberDoc>,
    #[serde(default)]
    pub external_ratings: Vec<ExternalRatingDoc>,
}

/// Which fields of movie details a read needs (a set; `|` joins two).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DetailFields(u8);

impl DetailFields {
    pub const PLOT: DetailFields = DetailFields(1);
    pub const FULL_PLOT: DetailFields = DetailFields(1 << 1);
    pub const LANGUAGES: DetailFields = DetailFields(1 << 2);
    pub const COUNTRIES: DetailFields = DetailFields(1 << 3);
    pub const CAST: DetailFields = DetailFields(1 << 4);
    pub const EXTERNAL_RATINGS: DetailFields = DetailFields(1 << 5);

    /// The stored names of the fields in the set.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        [
            "plot",
            "fullPlot",
            "languages",
            "countries",
            "cast",
            "externalRatings",
        ]
        .into_iter()
        .enumerate()
        .filter(move |(bit, _)| self.0 & (1 << bit) != 0)
        .map(|(_, name)| name)
    }
}

impl std::ops::BitOr for DetailFields {
    type Output = DetailFields;
    fn bitor(self, other: DetailFields) -> DetailFields {
        DetailFields(self.0 | other.0)
    }
}

/// The cinema fields a showtime copies (extended reference).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CinemaRef {
    #[serde(with = "codec::id")]
    pub id: CinemaId,
    pub name: String,
    pub city: String,
}

/// The movie fields a showtime copies.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MovieRef {
    #[serde(with = "codec::id")]
    pub id: MovieId,
    pub title: String,
    pub runtime_minutes: i32,
}

/// The hall fields a showtime copies.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HallRef {
    #[serde(with = "codec::id")]
    pub id: HallId,
    pub name: String,
    pub format: String,
}

/// One channel's price of a showtime (attribute pattern).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelPriceDoc {
    pub channel: String,
    /// Minor units of `ShowtimeDoc::currency`.
    pub amount: i64,
}

/// The shape version of showtimes written by this code. Version 2 added `priceRevision` and
/// `freeAt`; version 1 documents are upgraded on read (`StoredShowtime`) and rewritten as
/// version 2 by their next write (a price change).
pub const SHOWTIME_SCHEMA_VERSION: i32 = 2;

/// `showtimes`, as this code reads and writes them (schema version 2). Read through
/// [`StoredShowtime`], which upgrades older versions.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", try_from = "StoredShowtime")]
pub struct ShowtimeDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: ShowtimeId,
    pub schema_version: i32,
    pub cinema: CinemaRef,
    pub movie: MovieRef,
    pub theater: HallRef,
    #[serde(with = "codec::time")]
    pub starts_at: DateTime<Utc>,
    #[serde(with = "codec::time")]
    pub ends_at: DateTime<Utc>,
    pub language: String,
    pub currency: String,
    /// Empty when listed without them (`ShowtimeParts`); a stored showtime always has them.
    #[serde(default)]
    pub prices: Vec<ChannelPriceDoc>,
    /// SCHEDULED unless an operator cancelled it (absent in documents written before
    /// cancellations existed: SCHEDULED).
    #[serde(default)]
    pub status: ShowtimeStatus,
    /// How many times its prices changed (document versioning: each change is a
    /// `showtime_price_revisions` document; a change writes with the revision it read).
    pub price_revision: i64,
    /// When its hall is free again: `endsAt` plus the cleaning gap that applied when it was
    /// scheduled (the rule is recorded with the showtime; a later setting does not move it).
    #[serde(with = "codec::time")]
    pub free_at: DateTime<Utc>,
}

/// A showtime document of any schema version, as stored; [`ShowtimeDoc`] is read through it
/// (schema versioning pattern: the shape is upgraded on read, one explicit step per version).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredShowtime {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: ShowtimeId,
    #[serde(default)]
    pub schema_version: i32,
    pub cinema: CinemaRef,
    pub movie: MovieRef,
    pub theater: HallRef,
    #[serde(with = "codec::time")]
    pub starts_at: DateTime<Utc>,
    #[serde(with = "codec::time")]
    pub ends_at: DateTime<Utc>,
    pub language: String,
    pub currency: String,
    #[serde(default)]
    pub prices: Vec<ChannelPriceDoc>,
    #[serde(default)]
    pub status: ShowtimeStatus,
    /// Version 2 on.
    #[serde(default)]
    pub price_revision: Option<i64>,
    /// Version 2 on.
    #[serde(default, with = "codec::optional_time")]
    pub free_at: Option<DateTime<Utc>>,
}

impl TryFrom<StoredShowtime> for ShowtimeDoc {
    type Error = String;

    /// Upgrades a stored showtime to the current shape. Version 1 (no `priceRevision`, no
    /// `freeAt`): no price change yet, and the hall free 15 minutes after the end (the gap
    /// version 1 schedules were made with). Version 2 carries both.
    fn try_from(stored: StoredShowtime) -> Result<Self, Self::Error> {
        let (price_revision, free_at) = match stored.schema_version {
            ..=1 => (0, stored.ends_at + crate::domain::schedule::V1_CLEANING_GAP),
            _ => (
                stored.price_revision.ok_or_else(|| {
                    format!("showtime {} (version 2) has no priceRevision", stored.id)
                })?,
                stored
                    .free_at
                    .ok_or_else(|| format!("showtime {} (version 2) has no freeAt", stored.id))?,
            ),
        };
        Ok(ShowtimeDoc {
            id: stored.id,
            // Read as the current shape: the next write stores it as such.
            schema_version: SHOWTIME_SCHEMA_VERSION,
            cinema: stored.cinema,
            movie: stored.movie,
            theater: stored.theater,
            starts_at: stored.starts_at,
            ends_at: stored.ends_at,
            language: stored.language,
            currency: stored.currency,
            prices: stored.prices,
            status: stored.status,
            price_revision,
            free_at,
        })
    }
}

impl ShowtimeDoc {
    /// The time its hall is busy with it.
    pub fn slot(&self) -> crate::domain::schedule::Slot {
        crate::domain::schedule::Slot {
            starts_at: self.starts_at,
            free_at: self.free_at,
        }
    }
}

/// `showtime_price_revisions`: one per change of a showtime's prices (document versioning
/// pattern: the showtime holds the current prices, each revision the change).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PriceRevisionDoc {
    /// `<showtime id hex>:<revision>`: one revision n per showtime.
    #[serde(rename = "_id")]
    pub id: String,
    pub schema_version: i32,
    #[serde(with = "codec::id")]
    pub showtime_id: ShowtimeId,
    /// 1 for the first change.
    pub revision: i64,
    #[serde(with = "codec::time")]
    pub at: DateTime<Utc>,
    /// The operator's code.
    pub operator: String,
    /// The request that made it (its idempotency resource id), so a retry finds its own.
    #[serde(with = "codec::id")]
    pub request: ResourceId,
    pub before: Vec<ChannelPriceDoc>,
    pub after: Vec<ChannelPriceDoc>,
}

/// Whether a showtime still runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ShowtimeStatus {
    /// It runs; its seats are for sale.
    #[default]
    Scheduled,
    /// Cancelled by its operator: no new holds; its holds and orders are being cancelled.
    Cancelling,
    /// Cancelled: every hold released, every order cancelled.
    Cancelled,
}

/// One seat of a showtime's inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatCellDoc {
    pub kind: SeatKind,
    pub state: SeatState,
    /// The live hold a HELD seat belongs to (one of `SeatInventoryDoc::holds`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub hold: Option<HoldId>,
    /// The order a SOLD seat belongs to.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub order: Option<OrderId>,
}

/// A live hold, kept in its showtime's inventory so that taking seats and recording the hold
/// are one atomic update.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HoldDoc {
    #[serde(with = "codec::id")]
    pub id: HoldId,
    pub channel: String,
    /// Seat labels, e.g. "D7".
    pub seats: Vec<String>,
    /// The kind of each seat, in the order of `seats` (so a confirmation need not read the
    /// seats; empty in holds made before it was kept).
    #[serde(default)]
    pub kinds: Vec<SeatKind>,
    /// The channel's price of one seat, in minor units of the showtime's currency.
    pub unit_price: i64,
    #[serde(with = "codec::time")]
    pub created_at: DateTime<Utc>,
    /// Written from the gateway's clock, but always judged against the database's (`$$NOW`):
    /// whether a hold has expired is decided by one clock for every gateway.
    #[serde(with = "codec::time")]
    pub expires_at: DateTime<Utc>,
}

/// `seat_inventory`: one per showtime, `_id` the showtime's (preallocation pattern).
/// `seats` maps a row label to its positions (`null` for a gap), so seat D7 is the path
/// `seats.D.6` and a conditional update can name it directly.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatInventoryDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: ShowtimeId,
    pub schema_version: i32,
    #[serde(with = "codec::id")]
    pub theater_id: HallId,
    /// Copied from the showtime: no seat is held once the film has started.
    #[serde(with = "codec::time")]
    pub starts_at: DateTime<Utc>,
    pub capacity: i32,
    pub seats: IndexMap<String, Vec<Option<SeatCellDoc>>>,
    pub counts: SeatCounts,
    /// One more with every write that changes seats, in the same update (`VERSION`): live
    /// seat maps order their changes by it. Absent (0) until the first such write.
    #[serde(default)]
    pub version: u32,
    /// The live holds (index `holds.expiresAt` finds the expired ones). Hold ids are unique:
    /// a hold is placed only if no hold with its id is here.
    #[serde(default)]
    pub holds: Vec<HoldDoc>,
    /// Hold ids that may never be placed: those of idempotency-key attempts that were taken
    /// over (the fence; see `booking::idempotency`).
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "codec::ids")]
    pub fenced_holds: Vec<HoldId>,
    /// Notes of keyed releases whose answer is not stored yet, so a release retried after a
    /// crash finds its own (dropped once the answer is stored; at most
    /// `RELEASE_NOTES_KEPT`, should crashes leave some behind).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub released_holds: Vec<ReleasedHoldDoc>,
    /// Set (for good) by the first write of a showtime's cancellation: placing a hold and
    /// selling one both require it unset, so no hold or sale begins after it
    /// (`booking::showtime_cancel`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    /// The hall's `scheduleVersion` when the seats were copied from its layout. Inventories
    /// are written before the transaction that writes their showtimes (`store::schedule`): a
    /// scheduler that finds one there already rewrites it only while it is unused and was
    /// copied from an older read of the hall, so a stale attempt never overwrites a newer one.
    #[serde(default)]
    pub hall_schedule_version: i64,
}

/// A showtime's seat map as it is read for display (`seat_inventory` projected): the counts
/// always, the seats only when a reader asks for them, and of each seat only its kind and
/// state.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeatMapDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: ShowtimeId,
    pub capacity: i32,
    pub counts: SeatCounts,
    /// The inventory's version (read for live seat maps; 0 otherwise).
    #[serde(default)]
    pub version: u32,
    /// Empty unless read with its seats.
    #[serde(default)]
    pub seats: IndexMap<String, Vec<Option<SeatView>>>,
    /// The live holds: read for live seat maps only (their expiry is announced on time).
    #[serde(default)]
    pub holds: Vec<HoldDoc>,
}

/// What a seat map shows of a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct SeatView {
    pub kind: SeatKind,
    pub state: SeatState,
}

/// The most release notes an inventory keeps.
pub const RELEASE_NOTES_KEPT: i32 = 64;

/// A hold that a keyed release released, and which release.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleasedHoldDoc {
    #[serde(with = "codec::id")]
    pub id: HoldId,
    pub seats: Vec<String>,
    /// The id of the release request (its idempotency key's resource id).
    #[serde(with = "codec::id")]
    pub request: ResourceId,
}

impl SeatInventoryDoc {
    /// Seat `label` ("D7"), if the inventory has such a seat.
    pub fn seat(&self, label: &str) -> Option<&SeatCellDoc> {
        let (row, number) = parse_seat_label(label).ok()?;
        self.seats.get(row)?.get(number.checked_sub(1)?)?.as_ref()
    }

    /// `hold` with the kind of each of its seats: as the hold kept them, or looked up here
    /// for a hold made before holds kept them. None if a seat is not in the inventory.
    pub fn with_kinds(&self, hold: &HoldDoc) -> Option<HoldDoc> {
        if hold.kinds.len() == hold.seats.len() {
            return Some(hold.clone());
        }
        let kinds = hold
            .seats
            .iter()
            .map(|label| self.seat(label).map(|seat| seat.kind))
            .collect::<Option<Vec<_>>>()?;
        Some(HoldDoc {
            kinds,
            ..hold.clone()
        })
    }

    /// A fresh inventory for a showtime in a hall: every seat available.
    pub fn for_showtime(showtime: &ShowtimeDoc, hall: &HallDoc) -> Self {
        let seats = hall
            .layout
            .rows
            .iter()
            .map(|row| {
                let cells = row
                    .positions
                    .iter()
                    .map(|kind| {
                        kind.map(|kind| SeatCellDoc {
                            kind,
                            state: SeatState::Available,
                            hold: None,
                            order: None,
                        })
                    })
                    .collect();
                (row.label.clone(), cells)
            })
            .collect();
        SeatInventoryDoc {
            id: showtime.id,
            schema_version: SCHEMA_VERSION,
            theater_id: hall.id,
            starts_at: showtime.starts_at,
            capacity: hall.capacity,
            seats,
            counts: SeatCounts::all_available(hall.capacity as u32),
            version: 0,
            hall_schedule_version: hall.schedule_version,
            holds: Vec::new(),
            fenced_holds: Vec::new(),
            released_holds: Vec::new(),
            cancelled: false,
        }
    }
}

/// `channels`: third-party sales apps; `_id` is the channel's code.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelDoc {
    #[serde(rename = "_id")]
    pub code: String,
    pub schema_version: i32,
    pub name: String,
    /// Hex SHA-256 of the channel's API key; the key itself is never stored.
    pub api_key_hash: String,
    /// The channel's own rate limit; the gateway's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimitDoc>,
}

/// A channel's rate limit: operations a second, and burst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitDoc {
    pub per_second: u32,
    pub burst: u32,
}

impl From<RateLimit> for RateLimitDoc {
    fn from(limit: RateLimit) -> Self {
        RateLimitDoc {
            per_second: limit.per_second,
            burst: limit.burst,
        }
    }
}

impl From<RateLimitDoc> for RateLimit {
    fn from(limit: RateLimitDoc) -> Self {
        RateLimit {
            per_second: limit.per_second,
            burst: limit.burst,
        }
    }
}

/// The showtime an order is for, as it was when the order was made (extended reference: later
/// renames do not rewrite history).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderShowtimeDoc {
    #[serde(with = "codec::id")]
    pub id: ShowtimeId,
    #[serde(with = "codec::id")]
    pub cinema_id: CinemaId,
    #[serde(with = "codec::id")]
    pub movie_id: MovieId,
    #[serde(with = "codec::time")]
    pub starts_at: DateTime<Utc>,
    pub movie_title: String,
    pub cinema_name: String,
    pub hall_name: String,
}

/// One seat of an order with the price it was sold at.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderSeatDoc {
    pub label: String,
    pub kind: SeatKind,
    pub price: i64,
}

/// Who the tickets are for.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomerDoc {
    pub name: String,
    pub contact: String,
}

/// An order's life. The inventory document is the authority on its seats; PENDING and
/// CANCELLING are the moments between an order's two writes (see `store::orders`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    /// Written, its seats not sold to it yet: not an order until they are.
    Pending,
    /// Its seats are SOLD under it.
    Confirmed,
    /// Cancelled; its seats are being given back.
    Cancelling,
    /// Cancelled; its seats were given back.
    Cancelled,
}

/// `orders`: a confirmed hold.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: OrderId,
    pub schema_version: i32,
    pub channel: String,
    pub status: OrderStatus,
    /// The hold it confirmed.
    #[serde(with = "codec::id")]
    pub hold_id: HoldId,
    pub showtime: OrderShowtimeDoc,
    pub seats: Vec<OrderSeatDoc>,
    pub total: i64,
    pub currency: String,
    pub customer: CustomerDoc,
    #[serde(with = "codec::time")]
    pub created_at: DateTime<Utc>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_time"
    )]
    pub cancelled_at: Option<DateTime<Utc>>,
    /// The cancellation request that cancelled it (its idempotency key's resource id), so a
    /// retry of that request after a crash knows the cancellation as its own.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    pub cancel_request: Option<ResourceId>,
    /// Whether the sales figures (the movie's totals, the cinema's hourly bucket) count this
    /// order: the projection makes it true for CONFIRMED orders and false for CANCELLED ones.
    #[serde(default)]
    pub sales_counted: bool,
    /// Why it was cancelled, written with CANCELLING in the same update (absent in orders
    /// cancelled before reasons were kept: the customer's request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_reason: Option<CancelReason>,
}

/// Why an order was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CancelReason {
    /// Its channel cancelled it (`cancelOrder`).
    CustomerRequest,
    /// Its showtime was cancelled by the cinema's operator (`cancelShowtime`).
    ShowtimeCancelled,
}

/// `operators`: cinema chains and the platform, who write the catalogue; `_id` is the code.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperatorDoc {
    #[serde(rename = "_id")]
    pub code: String,
    pub schema_version: i32,
    pub name: String,
    /// Hex SHA-256 of the operator's API key; the key itself is never stored.
    pub api_key_hash: String,
    /// The platform operator: may write every cinema and read the audit log.
    pub all_cinemas: bool,
    /// The cinemas it may write (and their halls and showtimes), when not `all_cinemas`.
    /// A cinema it creates joins it.
    #[serde(with = "codec::ids")]
    pub cinema_ids: Vec<CinemaId>,
}

/// `audit_log`: one entry per operator write that changed something.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditDoc {
    /// The write's idempotency resource id when it had a key (so a retried write is recorded
    /// once), a fresh id otherwise.
    #[serde(rename = "_id", with = "codec::id")]
    pub id: ResourceId,
    pub schema_version: i32,
    /// The operator's code.
    pub operator: String,
    /// The mutation, e.g. "scheduleShowtime".
    pub operation: String,
    #[serde(with = "codec::time")]
    pub at: DateTime<Utc>,
    /// The cinema written, when the write is within one (the scope it was allowed by).
    #[serde(default, with = "codec::optional_id")]
    pub cinema_id: Option<CinemaId>,
    /// What was written, as `Kind:hex id` ("Showtime:6b03…").
    pub subject: String,
    /// The written fields before the write (JSON text), when there was a before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The written fields after it (JSON text), when something remains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}
