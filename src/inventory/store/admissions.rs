//! Admissions at the door, kept on the seats of `seat_inventory`: a SOLD seat whose ticket
//! was admitted carries `admitted {at, door, request}` and stays SOLD (the seat map, its
//! counts and its version do not move; live seat maps ignore the field), and the inventory's
//! `admitted` counts them.

use bson::doc;
use serde::Deserialize;

use super::{seat_path, COLLECTION};
use crate::admissions::rules::AdmissionWindow;
use crate::channel_events::rules::EventType;
use crate::domain::ids::{OrderId, ShowtimeId};
use crate::error::ApiError;
use crate::store::codec::{date, ObjectIdExt};
use crate::store::command_metrics::Call;
use crate::store::documents::{AdmissionDoc, EventDetailsDoc, SeatCellDoc};
use crate::store::{new_entry, Store};

/// What an admission that matched nothing reads of the seat: enough to say why.
#[derive(Debug, Clone)]
pub struct AdmissionSeat {
    pub starts_at: chrono::DateTime<chrono::Utc>,
    pub cancelled: bool,
    /// The seat as stored, if the hall has it: its state, order and admission.
    pub state: Option<crate::domain::seat::SeatState>,
    pub order: Option<OrderId>,
    pub admitted: Option<AdmissionDoc>,
}

impl Store {
    /// Admits seat `label` of `showtime` for a ticket of `order`, in one update that matches
    /// only while the seat is SOLD under that order and not admitted, the showtime is not
    /// cancelled, and the database's clock is inside `window` around the start. Reads
    /// nothing. False when it did not match.
    #[tracing::instrument(skip(self, admission), fields(door = %admission.door))]
    pub(crate) async fn admit_seat(
        &self,
        showtime: ShowtimeId,
        label: &str,
        order: OrderId,
        admission: &AdmissionDoc,
        window: AdmissionWindow,
    ) -> Result<bool, ApiError> {
        let millis = |duration: chrono::Duration| duration.num_milliseconds();
        let now_plus = |amount: i64| {
            doc! { "$dateAdd": { "startDate": "$$NOW", "unit": "millisecond", "amount": amount } }
        };
        let filter = doc! {
            // `$expr` inside `$and`, not beside `_id`: some servers plan the latter as a scan.
            "$and": [
                { "_id": showtime.oid() },
                { "$expr": { "$and": [
                    // now ≥ start − opens_before, and now ≤ start + closes_after.
                    { "$lte": ["$startsAt", now_plus(millis(window.opens_before))] },
                    { "$gte": ["$startsAt", now_plus(-millis(window.closes_after))] },
                ] } },
            ],
            "cancelled": { "$ne": true },
            seat_path(label, "state")?: "SOLD",
            seat_path(label, "order")?: order.oid(),
            seat_path(label, "admitted")?: { "$exists": false },
        };
        let update = doc! {
            "$set": { seat_path(label, "admitted")?: {
                "at": date(admission.at),
                "door": &admission.door,
                "request": admission.request.oid(),
            } },
            "$inc": { "admitted": 1 },
        };
        // Told to the order's channel, which the relay reads: a scan reads nothing.
        let details = EventDetailsDoc {
            showtime: Some(showtime),
            order: Some(order),
            seats: vec![label.to_owned()],
            door: Some(admission.door.clone()),
            ..Default::default()
        };
        let told = new_entry(EventType::TicketAdmitted, None, details);
        self.update_inventory_telling(showtime, filter, update, &[told])
            .await
    }

    /// Seat `label` of `showtime` as an admission that matched nothing needs it (one `find`,
    /// projected to that seat); `None` when the showtime has no inventory.
    #[tracing::instrument(skip(self))]
    pub(crate) async fn admission_seat(
        &self,
        showtime: ShowtimeId,
        label: &str,
    ) -> Result<Option<AdmissionSeat>, ApiError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Found {
            #[serde(with = "crate::store::codec::time")]
            starts_at: chrono::DateTime<chrono::Utc>,
            #[serde(default)]
            cancelled: bool,
            /// Only the seat's row: the projection reads no other.
            #[serde(default)]
            seats: indexmap::IndexMap<String, Vec<Option<SeatCellDoc>>>,
        }
        let (row, number) = crate::domain::layout::parse_seat_label(label)?;
        let projection = doc! {
            "startsAt": 1,
            "cancelled": 1,
            format!("seats.{row}"): 1,
        };
        let found = self
            .bounded(
                Call::new(COLLECTION, "find"),
                self.collection::<Found>(COLLECTION)
                    .find_one(doc! { "_id": showtime.oid() })
                    .projection(projection),
            )
            .await?;
        let Some(found) = found else {
            return Ok(None);
        };
        let seat = (found.seats.get(row))
            .and_then(|positions| positions.get(number.checked_sub(1)?))
            .cloned()
            .flatten();
        Ok(Some(AdmissionSeat {
            starts_at: found.starts_at,
            cancelled: found.cancelled,
            state: seat.as_ref().map(|seat| seat.state),
            order: seat.as_ref().and_then(|seat| seat.order),
            admitted: seat.and_then(|seat| seat.admitted),
        }))
    }
}
