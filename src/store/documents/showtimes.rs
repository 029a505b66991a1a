//! The shapes of `showtimes` (with the cinema, movie and hall fields they copy, their
//! per-channel prices and the upgrade of older schema versions) and of
//! `showtime_price_revisions`.
//! Shared: the catalogue writes them, but holds and orders read them and the catalogue depends
//! on both (moving them would make a cycle); the shared loaders read them too.

use chrono::{DateTime, Utc};
use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use crate::domain::ids::{CinemaId, HallId, MovieId, ResourceId, ShowtimeId};
use crate::domain::pricing::{PriceEntry, PriceRef, TicketRule, TicketType};
use crate::domain::seat::SeatKind;
use crate::store::codec;

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

/// One entry of a showtime's price matrix: a channel's price of a seat kind as a ticket type
/// (attribute pattern; `domain::pricing` says how entries apply).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelPriceDoc {
    /// A channel's code, held inline (no allocation per entry when a page is read).
    pub channel: CompactString,
    /// Absent: every kind that no entry of the same channel and type names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_kind: Option<SeatKind>,
    /// Absent in showtimes of schema version 2 and before: ADULT.
    #[serde(default)]
    pub ticket_type: TicketType,
    /// Minor units of `ShowtimeDoc::currency`.
    pub amount: i64,
}

impl ChannelPriceDoc {
    /// An ADULT price of every kind: what a price meant before the matrix.
    pub fn flat(channel: impl Into<CompactString>, amount: i64) -> Self {
        ChannelPriceDoc {
            channel: channel.into(),
            seat_kind: None,
            ticket_type: TicketType::adult(),
            amount,
        }
    }

    /// The entry as the domain reads it, borrowed.
    pub fn borrowed(&self) -> PriceRef<'_> {
        PriceRef {
            channel: &self.channel,
            seat_kind: self.seat_kind,
            ticket_type: &self.ticket_type,
            amount: self.amount,
        }
    }

    pub fn entry(&self) -> PriceEntry {
        PriceEntry {
            channel: self.channel.to_string(),
            seat_kind: self.seat_kind,
            ticket_type: self.ticket_type.clone(),
            amount: self.amount,
        }
    }
}

/// A ticket type a showtime refuses, and the rule saying why (shown to the buyer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TicketRuleDoc {
    pub ticket_type: TicketType,
    pub rule: String,
}

impl TicketRuleDoc {
    pub fn rule(&self) -> TicketRule {
        TicketRule {
            ticket_type: self.ticket_type.clone(),
            rule: self.rule.clone(),
        }
    }
}

/// The shape version of showtimes written by this code. Version 2 added `priceRevision` and
/// `freeAt`; version 3 the price matrix (`seatKind` and `ticketType` of each price) and
/// `ticketRules`. Older documents are upgraded on read (`StoredShowtime`; a version 2 price is
/// an ADULT price of every kind) and rewritten as version 3 by their next write (a price
/// change).
pub const SHOWTIME_SCHEMA_VERSION: i32 = 3;

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
    /// Ticket types it does not sell, each with its rule (read with `prices`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ticket_rules: Vec<TicketRuleDoc>,
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
    /// Version 3 on.
    #[serde(default)]
    pub ticket_rules: Vec<TicketRuleDoc>,
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
            ..=1 => (
                0,
                stored.ends_at + crate::catalogue::rules::schedule::V1_CLEANING_GAP,
            ),
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
            ticket_rules: stored.ticket_rules,
            status: stored.status,
            price_revision,
            free_at,
        })
    }
}

impl ShowtimeDoc {
    /// Its price matrix, as the domain reads it.
    pub fn price_matrix(&self) -> Vec<PriceEntry> {
        self.prices.iter().map(ChannelPriceDoc::entry).collect()
    }

    /// The rules refusing ticket types, as the domain reads them.
    pub fn rules(&self) -> Vec<TicketRule> {
        self.ticket_rules.iter().map(TicketRuleDoc::rule).collect()
    }

    /// Whether `channel` sells it (has any price).
    pub fn sold_on(&self, channel: &str) -> bool {
        self.prices.iter().any(|price| price.channel == channel)
    }

    /// The time its hall is busy with it.
    pub fn slot(&self) -> crate::catalogue::rules::schedule::Slot {
        crate::catalogue::rules::schedule::Slot {
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
    /// The refused ticket types before and after (absent in revisions made before rules).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules_before: Vec<TicketRuleDoc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules_after: Vec<TicketRuleDoc>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc_count::allocations_in;

    /// A showtime as the demo prices one: 4 channels × 4 seat kinds × 2 ticket types.
    fn priced_showtime() -> ShowtimeDoc {
        let kinds = [
            SeatKind::Standard,
            SeatKind::Vip,
            SeatKind::Wheelchair,
            SeatKind::Couple,
        ];
        let mut prices = Vec::new();
        for channel in ["maoyan", "wechat", "taopiaopiao", "boxoffice"] {
            for kind in kinds {
                for ticket_type in [
                    TicketType::adult(),
                    TicketType::parse("t", "CHILD").unwrap(),
                ] {
                    let amount = 4000 + prices.len() as i64;
                    let seat_kind = Some(kind);
                    let channel = channel.into();
                    prices.push(ChannelPriceDoc {
                        channel,
                        seat_kind,
                        ticket_type,
                        amount,
                    });
                }
            }
        }
        let at = chrono::DateTime::from_timestamp_millis(1_790_000_000_000).unwrap();
        ShowtimeDoc {
            id: codec::new_id(),
            schema_version: SHOWTIME_SCHEMA_VERSION,
            cinema: CinemaRef {
                id: codec::new_id(),
                name: "影城".into(),
                city: "深圳".into(),
            },
            movie: MovieRef {
                id: codec::new_id(),
                title: "电影".into(),
                runtime_minutes: 120,
            },
            theater: HallRef {
                id: codec::new_id(),
                name: "1号厅".into(),
                format: "IMAX".into(),
            },
            starts_at: at,
            ends_at: at + chrono::TimeDelta::minutes(120),
            language: "国语".into(),
            currency: "CNY".into(),
            prices,
            ticket_rules: Vec::new(),
            status: ShowtimeStatus::Scheduled,
            price_revision: 0,
            free_at: at + chrono::TimeDelta::minutes(135),
        }
    }

    #[test]
    fn reading_a_showtime_allocates_for_its_text_not_for_each_price_or_date() {
        let showtime = priced_showtime();
        let bytes = bson::to_vec(&showtime).unwrap();
        // As the driver reads a reply: from raw bytes.
        let (read, allocations) =
            allocations_in(|| bson::from_slice::<ShowtimeDoc>(&bytes).unwrap());
        assert_eq!(read.prices, showtime.prices);
        assert_eq!(
            (read.starts_at, read.free_at),
            (showtime.starts_at, showtime.free_at)
        );
        // Seven strings (cinema name and city, title, hall name and format, language,
        // currency) and the price list growing to 32 entries (4 steps): 11. Before channel
        // and ticket type codes were held inline and dates read as raw BSON: 90 (two strings
        // for each of the 32 entries, five allocations for each of the three dates).
        assert!(allocations <= 12, "{allocations} allocations");
    }
}
