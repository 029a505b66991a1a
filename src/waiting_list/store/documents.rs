//! The waiting list as stored: `waiting_list`, one entry per showtime, channel and customer
//! (re-used when the customer joins again), and `waiting_list_seq`, each showtime's next
//! place in line.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::ids::{HoldId, ShowtimeId, WaitingEntryId};
use crate::domain::seat::SeatKind;
use crate::store::codec;

/// Where an entry stands, as stored (`rules::EntryState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum EntryStateDoc {
    Waiting,
    Offered,
    Accepted,
    Declined,
    Lapsed,
    Left,
    /// The showtime started or was cancelled before seats fit it.
    Closed,
}

/// `waiting_list`: a party waiting for seats of a showtime. `showtime`, `channel` and
/// `customer` never change (a unique index keeps one entry per customer and showtime).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitingEntryDoc {
    #[serde(rename = "_id", with = "codec::id")]
    pub id: WaitingEntryId,
    pub schema_version: i32,
    #[serde(with = "codec::id")]
    pub showtime: ShowtimeId,
    pub channel: String,
    pub customer: String,
    pub party_size: i64,
    pub kind: SeatKind,
    pub together: bool,
    /// Its place in line (the showtime's sequence when it joined): lower goes first.
    pub seq: i64,
    pub state: EntryStateDoc,
    /// The id its offer's hold has (chosen when it joins, so every gateway that makes the
    /// offer makes the same hold, once).
    #[serde(with = "codec::id")]
    pub hold: HoldId,
    #[serde(with = "codec::time")]
    pub joined_at: DateTime<Utc>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_time"
    )]
    pub offered_at: Option<DateTime<Utc>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_time"
    )]
    pub offer_expires_at: Option<DateTime<Utc>>,
}
