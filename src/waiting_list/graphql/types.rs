//! `WaitingListEntry`: a party's place on a showtime's waiting list.

use async_graphql::{Enum, Object, ID};
use chrono::{DateTime, Utc};

use crate::domain::global_id::GlobalId;
use crate::graphql::types::SeatKind;
use crate::waiting_list::store::documents::{EntryStateDoc, WaitingEntryDoc};

/// Where a waiting list entry stands.
#[derive(Enum, Clone, Copy, Debug, PartialEq, Eq)]
#[graphql(remote = "crate::waiting_list::store::documents::EntryStateDoc")]
pub enum WaitingListStatus {
    /// In line for seats that fit.
    Waiting,
    /// Seats were held for it (`offerHoldId`): confirm the hold before `offerExpiresAt`, or
    /// release it (or leave the list) to decline.
    Offered,
    /// Its offer was confirmed into an order.
    Accepted,
    /// Its offer was declined (released).
    Declined,
    /// Its offer expired unconfirmed.
    Lapsed,
    /// It left the list before any offer.
    Left,
    /// The showtime started or was cancelled before seats fitting it came back.
    Closed,
}

/// A party's place on a showtime's waiting list: when seats that fit it come back, and every
/// party that joined before it was served, they are held for it (an offer).
pub struct WaitingListEntry(pub WaitingEntryDoc);

/// A party's place on a showtime's waiting list: when seats that fit it come back, and every
/// party that joined before it was served, they are held for it (an offer).
#[Object]
impl WaitingListEntry {
    /// The entry's id.
    async fn id(&self) -> ID {
        GlobalId::WaitingListEntry(self.0.id).encode().into()
    }

    /// The showtime.
    async fn showtime_id(&self) -> ID {
        GlobalId::Showtime(self.0.showtime).encode().into()
    }

    /// The channel's id of its customer.
    async fn customer_id(&self) -> &str {
        &self.0.customer
    }

    /// How many seats the party needs.
    async fn party_size(&self) -> i32 {
        self.0.party_size as i32
    }

    /// Their kind.
    async fn kind(&self) -> SeatKind {
        self.0.kind.into()
    }

    /// Whether they must be side by side in one row.
    async fn together(&self) -> bool {
        self.0.together
    }

    /// Where it stands.
    async fn status(&self) -> WaitingListStatus {
        self.0.state.into()
    }

    /// When it joined (this turn).
    async fn joined_at(&self) -> DateTime<Utc> {
        self.0.joined_at
    }

    /// The hold its offer is (once offered): confirm it with `confirmHold`.
    async fn offer_hold_id(&self) -> Option<ID> {
        (self.0.state != EntryStateDoc::Waiting && self.0.state != EntryStateDoc::Left)
            .then(|| GlobalId::Hold(self.0.showtime, self.0.hold).encode().into())
    }

    /// When the offer was made.
    async fn offered_at(&self) -> Option<DateTime<Utc>> {
        self.0.offered_at
    }

    /// When the offer lapses unless confirmed.
    async fn offer_expires_at(&self) -> Option<DateTime<Utc>> {
        self.0.offer_expires_at
    }
}
