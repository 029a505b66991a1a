//! The shapes of `seat_inventory`: a showtime's seats, its live holds and its release notes,
//! and the projected seat map read for display.
//! Shared: only the inventory writes them, but the shared loaders and admissions (which the
//! inventory depends on) read them, so under `inventory` they would make a cycle.

use chrono::{DateTime, Utc};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::{HallDoc, ShowtimeDoc, SCHEMA_VERSION};
use crate::domain::ids::{
    HallId, HoldId, OrderId, ProductId, RedemptionId, ResourceId, ShowtimeId, VoucherBatchId,
    WaitingEntryId,
};
use crate::domain::layout::parse_seat_label;
use crate::domain::pricing::TicketType;
use crate::domain::seat::{SeatCounts, SeatKind, SeatState};
use crate::store::codec;

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
    /// Set once a SOLD seat's ticket was admitted at the door (it stays SOLD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admitted: Option<AdmissionDoc>,
}

/// A ticket's admission: when, at which door, by which request (its idempotency key's
/// resource id, or a fresh one), so a retry of that request knows the admission for its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionDoc {
    #[serde(with = "codec::time")]
    pub at: DateTime<Utc>,
    pub door: String,
    #[serde(with = "codec::id")]
    pub request: ResourceId,
}

/// A live hold, kept in its showtime's inventory so that taking seats and recording the hold
/// are one atomic update. Stored in a compact form (`StoredHold`): the per-seat lists are left
/// out when they say what the defaults say, and read back whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "StoredHold", from = "StoredHold")]
pub struct HoldDoc {
    pub id: HoldId,
    pub channel: String,
    /// Seat labels, e.g. "D7".
    pub seats: Vec<String>,
    /// The kind of each seat, in the order of `seats` (so a confirmation need not read the
    /// seats).
    pub kinds: Vec<SeatKind>,
    /// The ticket type of each seat, in the order of `seats`.
    pub ticket_types: Vec<TicketType>,
    /// The price of each seat, in the order of `seats`, in minor units of the showtime's
    /// currency: the matrix's price when the hold was placed (a later price change does not
    /// move it).
    pub amounts: Vec<i64>,
    pub created_at: DateTime<Utc>,
    /// Written from the gateway's clock, but always judged against the database's (`$$NOW`):
    /// whether a hold has expired is decided by one clock for every gateway.
    pub expires_at: DateTime<Utc>,
    /// The `extendHold` request that extended the hold (its idempotency key's resource id, or
    /// a fresh one): a hold is extended at most once, and a retry of that request finds it.
    pub extended_by: Option<ResourceId>,
    /// The voucher that priced its seats, and the redemption it reserved (its order redeems
    /// it; a release or an expiry gives it back).
    // Boxed: holds are carried by value through deep booking futures; most have no voucher.
    pub voucher: Option<Box<VoucherUseDoc>>,
    /// The products held beside the seats (concessions), at their prices when held; a
    /// stocked one has its units reserved under the hold's id (`concessions::stock`).
    pub items: Vec<HoldItemDoc>,
    /// The waiting list's party it was offered to (a hold the gateway placed for it).
    pub offer: Option<Box<OfferDoc>>,
}

/// A hold as its inventory stores it. A sold-out showtime's document carries dozens of live
/// holds, and every write of it costs the database in proportion to its size (measured on
/// SecantusDB: a findAndModify of a 13 KB inventory 0.84 ms of CPU, of a 6 KB one 0.55 ms),
/// so the lists that only repeat a default are left out: `kinds` when every seat is
/// STANDARD, `ticketTypes` when every one is ADULT, and `amounts` when every seat has one
/// price (then `unitPrice`). Each of these shapes was already read by earlier gateways: an
/// empty `kinds` sends them to the seats, no `ticketTypes` is every seat ADULT, and
/// `unitPrice` is the price of every seat of a hold made before the price matrix. About 135
/// bytes a hold of two seats instead of 240.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredHold {
    #[serde(with = "codec::id")]
    id: HoldId,
    channel: String,
    seats: Vec<String>,
    /// Empty: every seat STANDARD.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    kinds: Vec<SeatKind>,
    /// Empty: every seat ADULT.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ticket_types: Vec<TicketType>,
    /// Empty: every seat `unit_price`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    amounts: Vec<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unit_price: Option<i64>,
    #[serde(with = "codec::time")]
    created_at: DateTime<Utc>,
    #[serde(with = "codec::time")]
    expires_at: DateTime<Utc>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "codec::optional_id"
    )]
    extended_by: Option<ResourceId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    voucher: Option<Box<VoucherUseDoc>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    items: Vec<HoldItemDoc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    offer: Option<Box<OfferDoc>>,
}

impl From<HoldDoc> for StoredHold {
    fn from(hold: HoldDoc) -> Self {
        let one_price = match hold.amounts.split_first() {
            Some((first, rest)) if rest.iter().all(|amount| amount == first) => Some(*first),
            _ => None,
        };
        StoredHold {
            id: hold.id,
            channel: hold.channel,
            seats: hold.seats,
            kinds: if hold.kinds.iter().all(|kind| *kind == SeatKind::Standard) {
                Vec::new()
            } else {
                hold.kinds
            },
            ticket_types: if hold.ticket_types.iter().all(|t| *t == TicketType::adult()) {
                Vec::new()
            } else {
                hold.ticket_types
            },
            amounts: if one_price.is_some() {
                Vec::new()
            } else {
                hold.amounts
            },
            unit_price: one_price,
            created_at: hold.created_at,
            expires_at: hold.expires_at,
            extended_by: hold.extended_by,
            voucher: hold.voucher,
            items: hold.items,
            offer: hold.offer,
        }
    }
}

impl From<StoredHold> for HoldDoc {
    fn from(stored: StoredHold) -> Self {
        let count = stored.seats.len();
        HoldDoc {
            kinds: whole(stored.kinds, count, SeatKind::Standard),
            ticket_types: whole(stored.ticket_types, count, TicketType::adult()),
            amounts: whole(stored.amounts, count, stored.unit_price.unwrap_or_default()),
            id: stored.id,
            channel: stored.channel,
            seats: stored.seats,
            created_at: stored.created_at,
            expires_at: stored.expires_at,
            extended_by: stored.extended_by,
            voucher: stored.voucher,
            items: stored.items,
            offer: stored.offer,
        }
    }
}

/// `list`, or `default` for each of `count` seats when the list was left out.
fn whole<T: Clone>(list: Vec<T>, count: usize, default: T) -> Vec<T> {
    if list.is_empty() {
        vec![default; count]
    } else {
        list
    }
}

/// The party a hold was offered to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OfferDoc {
    #[serde(with = "codec::id")]
    pub entry: WaitingEntryId,
    /// The channel's customer (its opaque id).
    pub customer: String,
}

/// A product a hold carries: how many, at what price.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HoldItemDoc {
    #[serde(with = "codec::id")]
    pub product: ProductId,
    /// Its name when held (a later rename does not change what was sold).
    pub name: String,
    pub quantity: i64,
    /// Its price per unit when held, in fen.
    pub unit_price: i64,
    /// Whether the product keeps a stock (so the hold reserved units of it).
    pub stocked: bool,
}

impl HoldItemDoc {
    /// What the line costs.
    pub fn amount(&self) -> i64 {
        self.quantity * self.unit_price
    }
}

/// A voucher as a hold or an order used it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VoucherUseDoc {
    /// The redemption (slot) the hold reserved.
    #[serde(with = "codec::id")]
    pub redemption: RedemptionId,
    /// Its batch (for the operator's figures).
    #[serde(with = "codec::id")]
    pub batch: VoucherBatchId,
    /// What it took off the seats' list prices, in all (fen).
    pub discount: i64,
    /// The customer it counts against, under a per-customer cap (`voucher_customers`' id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer: Option<String>,
    /// The code's hash: `voucher_redemptions`' shard key, named in every write of the
    /// redemption (None on holds placed before it was kept: those writes go to every shard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voucher: Option<String>,
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
    /// over (the fence; see `idempotency::keys`).
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "codec::ids")]
    pub fenced_holds: Vec<HoldId>,
    /// Notes of keyed releases whose answer is not stored yet, so a release retried after a
    /// crash finds its own (dropped once the answer is stored; at most
    /// `RELEASE_NOTES_KEPT`, should crashes leave some behind).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub released_holds: Vec<ReleasedHoldDoc>,
    /// Set (for good) by the first write of a showtime's cancellation: placing a hold and
    /// selling one both require it unset, so no hold or sale begins after it
    /// (`orders::showtime_cancel`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cancelled: bool,
    /// The hall's `scheduleVersion` when the seats were copied from its layout. Inventories
    /// are written before the transaction that writes their showtimes (`catalogue::store::schedule`): a
    /// scheduler that finds one there already rewrites it only while it is unused and was
    /// copied from an older read of the hall, so a stale attempt never overwrites a newer one.
    #[serde(default)]
    pub hall_schedule_version: i64,
    /// How many tickets were admitted at the door (one more with each admission, in the
    /// same update).
    #[serde(default)]
    pub admitted: i32,
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
    /// How many tickets were admitted (shown to door staff and operators only).
    #[serde(default)]
    pub admitted: i32,
}

/// What a seat map shows of a seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct SeatView {
    pub kind: SeatKind,
    pub state: SeatState,
    /// Whether a SOLD seat's ticket was admitted (shown to door staff only).
    #[serde(default, deserialize_with = "present", rename = "admitted")]
    pub admitted: bool,
}

/// True for any value: the field is there.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    serde::de::IgnoredAny::deserialize(deserializer).map(|_| true)
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

impl HoldDoc {
    /// The ticket type and price of each seat, in the order of `seats`.
    pub fn seat_prices(&self) -> Vec<(TicketType, i64)> {
        (0..self.seats.len())
            .map(|i| {
                let ticket_type = self.ticket_types.get(i).cloned().unwrap_or_default();
                (
                    ticket_type,
                    self.amounts.get(i).copied().unwrap_or_default(),
                )
            })
            .collect()
    }

    /// The price of all its seats and items.
    pub fn total(&self) -> i64 {
        let seats: i64 = self.seat_prices().iter().map(|(_, amount)| amount).sum();
        seats + self.items.iter().map(HoldItemDoc::amount).sum::<i64>()
    }
}

impl SeatInventoryDoc {
    /// Seat `label` ("D7"), if the inventory has such a seat.
    pub fn seat(&self, label: &str) -> Option<&SeatCellDoc> {
        let (row, number) = parse_seat_label(label).ok()?;
        self.seats.get(row)?.get(number.checked_sub(1)?)?.as_ref()
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
                            admitted: None,
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
            admitted: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seat cell reads back from BSON as it was written (its kind and state are read by name,
    /// `domain::seat`), and a cell with a state no version wrote is refused.
    #[test]
    fn a_seat_cell_round_trips_through_bson() {
        let cells = [
            SeatCellDoc {
                kind: SeatKind::Couple,
                state: SeatState::Held,
                hold: Some(HoldId([7; 12])),
                order: None,
                admitted: None,
            },
            SeatCellDoc {
                kind: SeatKind::Wheelchair,
                state: SeatState::Blocked,
                hold: None,
                order: None,
                admitted: None,
            },
        ];
        for cell in cells {
            let stored = bson::to_document(&cell).unwrap();
            assert_eq!(bson::from_document::<SeatCellDoc>(stored).unwrap(), cell);
        }
        let unknown = bson::doc! { "kind": "STANDARD", "state": "RESERVED" };
        assert!(bson::from_document::<SeatCellDoc>(unknown).is_err());
    }

    fn hold(kinds: Vec<SeatKind>, ticket_types: Vec<TicketType>, amounts: Vec<i64>) -> HoldDoc {
        let at = chrono::DateTime::from_timestamp_millis(1_790_000_000_000).unwrap();
        HoldDoc {
            id: HoldId([3; 12]),
            channel: "maoyan".into(),
            seats: vec!["D7".into(), "D8".into()],
            kinds,
            ticket_types,
            amounts,
            created_at: at,
            expires_at: at,
            extended_by: None,
            voucher: None,
            items: Vec::new(),
            offer: None,
        }
    }

    /// The common hold (standard seats, adults, one price) is stored without the lists that
    /// repeat the defaults, and reads back whole.
    #[test]
    fn a_hold_of_defaults_is_stored_compact_and_read_back_whole() {
        let standard = vec![SeatKind::Standard; 2];
        let hold = hold(standard, vec![TicketType::adult(); 2], vec![4000, 4000]);
        let stored = bson::to_document(&hold).unwrap();
        let keys: Vec<&str> = stored.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "id",
                "channel",
                "seats",
                "unitPrice",
                "createdAt",
                "expiresAt"
            ]
        );
        assert!(bson::to_vec(&stored).unwrap().len() < 140);
        assert_eq!(bson::from_document::<HoldDoc>(stored).unwrap(), hold);
    }

    /// A hold whose seats differ keeps every list, and reads back as it was.
    #[test]
    fn a_hold_of_mixed_seats_keeps_its_lists() {
        let kinds = vec![SeatKind::Couple, SeatKind::Standard];
        let types = vec![
            TicketType::adult(),
            TicketType::parse("t", "CHILD").unwrap(),
        ];
        let hold = hold(kinds, types, vec![4000, 2800]);
        let stored = bson::to_document(&hold).unwrap();
        for key in ["kinds", "ticketTypes", "amounts"] {
            assert!(stored.contains_key(key), "{key} in {stored}");
        }
        assert!(!stored.contains_key("unitPrice"));
        assert_eq!(bson::from_document::<HoldDoc>(stored).unwrap(), hold);
    }

    /// A hold stored whole (by a gateway before the compact form), or with `unitPrice` (before
    /// the price matrix), reads as the same hold.
    #[test]
    fn holds_stored_in_earlier_forms_read_the_same() {
        let hold = hold(
            vec![SeatKind::Standard; 2],
            vec![TicketType::adult(); 2],
            vec![4000, 4000],
        );
        let mut whole = bson::to_document(&hold).unwrap();
        whole.remove("unitPrice");
        whole.insert("kinds", vec!["STANDARD", "STANDARD"]);
        whole.insert("ticketTypes", vec!["ADULT", "ADULT"]);
        whole.insert("amounts", vec![4000_i64, 4000]);
        assert_eq!(bson::from_document::<HoldDoc>(whole).unwrap(), hold);
        let mut before_matrix = bson::to_document(&hold).unwrap();
        before_matrix.insert("kinds", vec!["STANDARD", "STANDARD"]);
        assert_eq!(bson::from_document::<HoldDoc>(before_matrix).unwrap(), hold);
    }
}
