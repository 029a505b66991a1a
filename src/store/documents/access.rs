//! The shapes of the callers and what they leave: `channels` (with their rate limits),
//! `operators` and the `audit_log`.
//! Shared: the catalogue writes channels and door keys, `operators` the rest; orders audit.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::ids::{CinemaId, ResourceId};
use crate::domain::rate_limit::RateLimit;
use crate::store::codec;

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
    /// Set for a door staff key: it admits tickets at this door of one cinema and does
    /// nothing else (its `cinema_ids` stay empty, so no catalogue write ever matches it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub door: Option<DoorDoc>,
}

/// The door a door staff key admits at.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DoorDoc {
    #[serde(with = "codec::id")]
    pub cinema_id: CinemaId,
    pub name: String,
    /// The operator who made the key.
    pub created_by: String,
    /// When it was made.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_time"
    )]
    pub created_at: Option<chrono::DateTime<chrono::Utc>>,
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
