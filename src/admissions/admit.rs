//! Admitting a ticket at the door.
//!
//! The code is checked without the database (its HMAC, its cinema against the door's), then
//! the seat is admitted in one conditional update that reads nothing (`admissions::store`).
//! Only a miss reads the seat, to say why: admitted already (when, at which door), cancelled,
//! or outside the window. The admission records the request's id (its idempotency key's
//! resource id), so a retry of the key that finds the seat admitted by an earlier attempt of
//! its own answers ADMITTED, not ALREADY_ADMITTED: no fence is needed, since every attempt's
//! write is the same admission.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::rules::{door_keys, refusal, AdmissionWindow, Admitted, SeatFound};
use crate::domain::global_id::GlobalId;
use crate::domain::ids::{CinemaId, OrderId, ResourceId, ShowtimeId};
use crate::domain::seat::SeatState;
use crate::domain::ticket_codes::{Ticket, TicketSecret};
use crate::error::ApiError;
use crate::idempotency::{once, Attempt, KeyPolicy};
use crate::store::documents::AdmissionDoc;
use crate::store::{self, CrashPoint, DelayPoint, Store};

/// The door a scan is made at.
#[derive(Debug, Clone, Copy)]
pub struct DoorAt<'a> {
    /// The door staff key's code: its idempotency keys are its own.
    pub key: &'a str,
    pub cinema: CinemaId,
    pub name: &'a str,
}

/// An admitted ticket.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Admission {
    pub showtime: ShowtimeId,
    pub order: OrderId,
    pub seat: String,
    pub at: DateTime<Utc>,
    pub door: String,
}

/// Admits the ticket `code` names at `door`, once per ticket (and once per idempotency key).
/// BAD_USER_INPUT for a malformed or forged code, FORBIDDEN for another cinema's ticket (both
/// before anything is read or written), then ALREADY_ADMITTED, TICKET_CANCELLED or
/// ADMISSION_CLOSED.
#[tracing::instrument(skip(store, keys, secret, code), fields(door = door.name))]
pub async fn admit_ticket(
    store: &Store,
    keys: &KeyPolicy,
    secret: &TicketSecret,
    window: AdmissionWindow,
    door: DoorAt<'_>,
    code: &str,
    key: Option<&str>,
) -> Result<Admission, ApiError> {
    let ticket = Ticket::verify(secret, code)?;
    if ticket.cinema != door.cinema {
        return Err(ApiError::forbidden(format!(
            "this ticket is for another cinema ({}), not this door's",
            GlobalId::Cinema(ticket.cinema).encode()
        )));
    }
    let space = door_keys(door.key);
    once(
        store,
        keys,
        &space,
        key,
        "admitTicket",
        &code.trim(),
        |attempt| admit_once(store, window, door, &ticket, attempt),
    )
    .await
}

async fn admit_once(
    store: &Store,
    window: AdmissionWindow,
    door: DoorAt<'_>,
    ticket: &Ticket,
    attempt: Attempt,
) -> Result<Admission, ApiError> {
    let request = attempt.resource_id();
    let admission = AdmissionDoc {
        at: store::now(),
        door: door.name.to_owned(),
        request,
    };
    let admitted = |admitted: Admitted<ResourceId>| Admission {
        showtime: ticket.showtime,
        order: ticket.order,
        seat: ticket.seat.clone(),
        at: admitted.at,
        door: admitted.door,
    };
    if store
        .admit_seat(
            ticket.showtime,
            &ticket.seat,
            ticket.order,
            &admission,
            window,
        )
        .await?
    {
        crate::telemetry::metrics::ticket_admitted();
        store.delay_point(DelayPoint::AdmitAfterWrite).await;
        store.crash_point(CrashPoint::AdmitAfterWrite)?;
        return Ok(admitted(Admitted {
            at: admission.at,
            door: admission.door,
            request,
        }));
    }
    let found = store.admission_seat(ticket.showtime, &ticket.seat).await?;
    let now = store::now();
    let (seat, cancelled, starts_at) = match found {
        None => (SeatFound::NoShowtime, false, now),
        Some(seat) => {
            let sold_to_ticket =
                seat.state == Some(SeatState::Sold) && seat.order == Some(ticket.order);
            let found = if sold_to_ticket {
                SeatFound::SoldToTicket(seat.admitted.map(|admission| Admitted {
                    at: admission.at,
                    door: admission.door,
                    request: admission.request,
                }))
            } else {
                SeatFound::NotTheTicket
            };
            (found, seat.cancelled, seat.starts_at)
        }
    };
    refusal(seat, &request, cancelled, window.around(starts_at), now).map(admitted)
}
