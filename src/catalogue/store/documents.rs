//! The shapes only the catalogue reads and writes: `ticket_types`, the ticket types operators
//! defined beside the built-in ones. Its other shapes (cinemas, movies, showtimes) are read by
//! other features or by the shared loaders, so they stay in `store::documents`.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::pricing::TicketType;
use crate::store::codec;

/// `ticket_types`: a ticket type an operator defined (`MEMBER`), keyed by its code. The
/// built-in types (ADULT, CHILD, STUDENT, SENIOR) are not stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TicketTypeDoc {
    #[serde(rename = "_id")]
    pub code: TicketType,
    pub schema_version: i32,
    /// What buyers are shown: "会员票".
    pub name: String,
    /// The operator who defined it.
    pub defined_by: String,
    #[serde(with = "codec::time")]
    pub created_at: DateTime<Utc>,
}
